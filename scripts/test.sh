#!/usr/bin/env bash
# Sets up the machine and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test
# The suite again under AddressSanitizer and ThreadSanitizer.
scripts/sanitize.sh
# Every parser of outside input under libFuzzer + AddressSanitizer, briefly (long runs: --seconds 600).
scripts/fuzz.sh --seconds 10
scripts/test-package.sh
# The real drivers against real kernel drivers (vivid, gpio-sim, 8250 UART) under qemu.
hil/lab.sh all
