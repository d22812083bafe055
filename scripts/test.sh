#!/usr/bin/env bash
# Sets up the machine and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build --build-tests
swift test
scripts/test-package.sh
