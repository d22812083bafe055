#!/usr/bin/env bash
# Installs what scand needs to build and test on Debian 12 / Raspberry Pi OS 12 (run as root or
# with sudo). Idempotent.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
packages=(pkg-config g++ cmake python3-venv libzbar-dev libgpiod-dev libv4l-dev libpng-dev libjpeg62-turbo-dev zbar-tools zxing-cpp-tools socat strace systemd binutils python3-tomli libespeak-ng-dev espeak-ng-data libasound2-dev libmosquitto-dev mosquitto mosquitto-clients openssl libcurl4-openssl-dev chromium fonts-dejavu-core zint python3-numpy python3-pil)
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
command -v swift >/dev/null || { echo "setup: Swift 6 is not on PATH (see README)" >&2; exit 1; }
