#!/usr/bin/env bash
# Sets up the machine and runs the demo: scand decoding the sample images.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product scand
.build/release/scand decode samples/*
