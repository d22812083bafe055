#!/usr/bin/env bash
# Sets up the machine and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
# The attack and fault suites (hostile web clients, an MQTT flood, snapshot loops, a full disk,
# kill -9, a wedged kiosk, 100 stops) measure CPU, memory and latency of a whole daemon: they run
# one at a time after the rest, each with the machine to itself.
attacks="$(scripts/attack-suites.sh)"
swift test --skip-build --skip "$attacks"
swift test --skip-build --filter "$attacks" --no-parallel
# The suite again under AddressSanitizer and ThreadSanitizer.
scripts/sanitize.sh
# Every parser of outside input under libFuzzer + AddressSanitizer, briefly (long runs: --seconds 600).
scripts/fuzz.sh --seconds 10
scripts/test-package.sh
# The real drivers against real kernel drivers (vivid, gpio-sim, 8250 UART) under qemu.
hil/lab.sh all
