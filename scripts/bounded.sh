#!/usr/bin/env bash
# usage: scripts/bounded.sh MINUTES COMMAND...
# Runs a test phase line-buffered (a hang shows which test: a block buffer hid the last lines)
# and stops it, with everything it started, if it still runs after MINUTES. Then it says so and
# names the tests that had started and not ended, and exits 124.
set -uo pipefail
minutes=$1; shift
log=$(mktemp /tmp/scand-phase-XXXXXX.log)
trap 'rm -f "$log"' EXIT
timeout -k 30 "${minutes}m" stdbuf -oL -eL "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    # `swift test` runs the test bundle in a process group of its own, which timeout's signal
    # does not reach: a bundle left running took a core from every later phase.
    pkill -KILL -f -- '/scandPackageTests\.xctest( |$)' || true
    echo "bounded.sh: '$*' still ran after $minutes minutes and was stopped. Started and not ended:"
    # swift-testing prints '◇ Test NAME started.' and then a line with 'Test NAME' and passed/failed.
    sed -n 's/^◇ Test \(.*\) started\.$/\1/p' "$log" | grep -v '^case passing' | sort | uniq -c | while read -r n name; do
        ended=$(grep -cF "Test $name " "$log" | tr -d ' ')
        [ "$((ended - n))" -ge "$n" ] || echo "  $name"
    done
    exit 124
fi
exit "$rc"
