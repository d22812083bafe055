#!/usr/bin/env bash
# Installs what the demo needs (scripts/setup.sh --demo: no browser, broker or test tools) and
# runs the demo: the scand daemon on simulated hardware. The camera plays samples/; press Enter
# to press the button; Ctrl-C stops. Extra arguments go to `scand run` (e.g. --press-every 2).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --demo
scripts/stamp-version.sh
swift build -c release --product scand
exec .build/release/scand run --config config/demo.toml "$@"
