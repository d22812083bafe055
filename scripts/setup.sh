#!/usr/bin/env bash
# Installs what scand needs on Debian 12 / Raspberry Pi OS 12 (run as root or with sudo).
# Idempotent.
#   scripts/setup.sh --demo   what building scand and running the demo need (scripts/demo.sh)
#   scripts/setup.sh          that, and what the tests need (scripts/test.sh): reference decoders,
#                             a broker, a browser, lintian, ...
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
# Building scand: a C/C++ toolchain and the libraries it links (libcamera-dev: the CSI camera
# backend, camera.backend = "libcamera"; libcamera-ipa: the image processing modules libcamera
# loads when it opens a camera); cmake and python3-venv build zxing-cpp 3.1 (below).
build=(pkg-config g++ cmake python3-venv libzbar-dev libgpiod-dev libv4l-dev libcamera-dev libcamera-ipa libpng-dev libjpeg62-turbo-dev
       libespeak-ng-dev espeak-ng-data libasound2-dev libmosquitto-dev)
# The tests: reference decoders (zbarimg, ZXingReader), a TOML reference parser, a broker and
# its clients, TLS certificates, a headless browser for the setup page, tracing and ELF tools,
# systemd-analyze, the package's checks (lintian, man-db for `man scand`), and zint with numpy and
# Pillow for the generated misread and add-on sets.
tests=(zbar-tools zxing-cpp-tools socat strace systemd binutils python3-tomli mosquitto mosquitto-clients openssl
       chromium fonts-dejavu-core dpkg-dev lintian man-db zint python3-numpy python3-pil)
# The workflow and cross checks: shellcheck, through which actionlint checks the workflows' run:
# steps (scripts/lint-workflows.sh), and Debian's aarch64 cross compilers for the C shims
# (scripts/cross-check.sh; an arm64 machine compiles them natively).
tests+=(shellcheck)
[ "$(dpkg --print-architecture)" = arm64 ] || tests+=(gcc-aarch64-linux-gnu g++-aarch64-linux-gnu)
packages=("${build[@]}")
[ "${1:-}" = "--demo" ] || packages+=("${tests[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# zxing-cpp 3.1 (Debian ships 1.4): built from its release sources into /usr/local.
bash "$(dirname "$0")/setup-zxing.sh"
# The GS1 oracle test (Tests/ScanCoreTests/GS1OracleTests.swift, bench/gs1-oracle.py): biip from
# PyPI, pinned by version and hash, in a virtual environment of its own (the system's Python
# stays untouched); the test finds it at /opt/scand-tests/venv (or $SCAND_BIIP_PYTHON).
if [ "${1:-}" != "--demo" ]; then
  venv=/opt/scand-tests/venv
  if ! "$venv/bin/python3" -c 'import importlib.metadata as m, sys; sys.exit(m.version("biip") != "5.2.0")' 2>/dev/null; then
    $SUDO rm -rf "$venv"
    $SUDO mkdir -p "$(dirname "$venv")"
    $SUDO python3 -m venv "$venv"
    $SUDO "$venv/bin/pip" install -q --disable-pip-version-check --only-binary :all: --require-hashes -r /dev/stdin <<REQ
biip==5.2.0 --hash=sha256:a7d6e236c29c3fb9672ed9339e2cb1ca4dbba358a75417414005e3a2abfe542c
REQ
  fi
fi
command -v swift >/dev/null || { echo "setup: Swift 6 is not on PATH (see README)" >&2; exit 1; }
