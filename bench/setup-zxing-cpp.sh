#!/usr/bin/env bash
# zxing-cpp 3.1 from PyPI in a venv of its own (.build/zxing-cpp-venv), for `scand bench decode`'s
# in-process reference (bench/zxingcpp_reference.py), and Debian's zint, which bench/make-devset.py
# renders its codes with. Not needed by the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
V=.build/zxing-cpp-venv
command -v python3 >/dev/null || { apt-get update -qq && apt-get install -y -qq python3 python3-venv; }
[ -x "$V/bin/python" ] || python3 -m venv "$V" || { apt-get update -qq && apt-get install -y -qq python3-venv && python3 -m venv "$V"; }
command -v zint >/dev/null || { apt-get update -qq && apt-get install -y -qq zint; }
"$V/bin/pip" install -q "zxing-cpp==3.1.*" numpy pillow
"$V/bin/python" -c "import importlib.metadata, zxingcpp, PIL; print('zxing-cpp', importlib.metadata.version('zxing-cpp'), 'ready in $V')"
