#!/usr/bin/env bash
# Sets up the machine and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's minutes, said at the end (also when a phase fails): the command is to stay well
# under 45 minutes on a 2-core machine, and this says where they go.
began=$SECONDS times=() now=""
timed() { now=$1; shift; local t=$SECONDS; "$@"; times+=("$(printf '%-22s %4d s' "$now" $((SECONDS - t)))"); now=""; }
said() {
  echo "test.sh: phase times"; printf '  %s\n' "${times[@]}"
  [ -z "$now" ] || echo "  $now: stopped (failed)"
  echo "  total $((SECONDS - began)) s"
}
trap said EXIT
timed setup scripts/setup.sh
timed build swift build --build-tests
# The attack and fault suites (hostile web clients, an MQTT flood, snapshot loops, a full disk,
# kill -9, a wedged kiosk, 100 stops) measure CPU, memory and latency of a whole daemon: they run
# one at a time after the rest, each with the machine to itself.
# So do the camera driver tests (V4L2 and libcamera): the parallel phase's synchronous tests
# hold both threads of the cooperative pool for minutes, and a camera test's task, not resumed
# in time, saw its driver's reader give up after the 120 s stall timeout.
# And the daemons that decode every frame for seconds (continuous mode): a busy core beside the
# parallel phase starved its timed tests (33 failed).
alone="$(scripts/attack-suites.sh)|V4L2CameraTests|LibcameraCameraTests|ContinuousDaemonTests"
# Daemons a test runner left behind when it was killed (reparented to init, their config in a
# test's temporary folder) reopen their serial link when its pty number is reused: they would
# read the next tests' host lines. None should be there; any that are, go before each phase.
reap() { for p in $(pgrep -f 'scand run --config /tmp/scand-' || true); do [ "$(ps -o ppid= -p "$p" | tr -d ' ')" != 1 ] || kill "$p" 2>/dev/null || true; done; }
reap
# Each test phase has a bound (scripts/bounded.sh): a test that hangs stops its phase with the
# tests still running named, instead of holding CI until its own limit.
timed tests scripts/bounded.sh 20 swift test --skip-build --skip "$alone"
reap
timed "tests alone" scripts/bounded.sh 15 swift test --skip-build --filter "$alone" --no-parallel
reap
# The sanitizers' runs are long (scripts/sanitize.sh: 17 minutes for ThreadSanitizer alone) and
# run apart, before a change lands and weekly (.github/workflows/sanitizers.yml); here only their
# lock rules, which a build with the plain toolchain would not catch. AddressSanitizer still
# runs here, under the fuzz targets.
timed "lock rules" scripts/sanitize.sh --rules
# Every parser of outside input under libFuzzer + AddressSanitizer, briefly (long runs: --seconds 600):
# two fuzzing processes of 5 s per target, one on each core, run more inputs than one of 10 s
# (toml: 158,000 against 110,000) in half the time.
timed fuzz scripts/fuzz.sh --seconds 5 --jobs 2
timed package scripts/test-package.sh
timed lint scripts/lint-workflows.sh
timed cross scripts/cross-check.sh
# The real drivers against real kernel drivers (vivid, gpio-sim, 8250 UART) under qemu.
timed lab hil/lab.sh all
