#!/usr/bin/env bash
# Builds zxing-cpp 3.1.1 (the reader only, a static library) from its release sources and installs
# it under /usr/local (lib/libZXing.a, include/ZXing, lib/pkgconfig/zxing.pc). Debian 12 and
# Raspberry Pi OS 12 package zxing-cpp 1.4, which misses inverted codes, much Aztec and DataMatrix
# and trips its own assertions; scand links 3.1 statically, so the daemon needs nothing at run time.
#
# The sources come from PyPI (the zxing-cpp sdist carries the C++ core), checked against a pinned
# sha256. Idempotent: does nothing when 3.1.1 is installed. Needs cmake, g++ (C++20), python3-venv
# (scripts/setup.sh installs them) and about a minute on two cores.
set -euo pipefail
version=3.1.1
sha256=1051a521b21a9fe206702ad4186aeb195154e3e1badcd99576d030723f36382b
prefix=${ZXING_PREFIX:-/usr/local}
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

if grep -qx "Version: $version" "$prefix/lib/pkgconfig/zxing.pc" 2>/dev/null && [ -f "$prefix/lib/libZXing.a" ]; then
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "setup: building zxing-cpp $version into $prefix (about a minute)"
python3 -m venv "$work/venv"
# Reading the sdist's metadata needs its build backend; the build itself is cmake's.
"$work/venv/bin/pip" install -q scikit-build-core 'nanobind>=2.11.0'
"$work/venv/bin/pip" download -q --no-deps --no-binary :all: --no-build-isolation "zxing-cpp==$version" -d "$work"
sdist="$work/zxing_cpp-$version.tar.gz"
echo "$sha256  $sdist" | sha256sum -c --quiet - || { echo "setup: zxing-cpp sdist checksum mismatch" >&2; exit 1; }
tar -xzf "$sdist" -C "$work"
cmake -S "$work/zxing_cpp-$version/core" -B "$work/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
  -DZXING_READERS=ON -DZXING_WRITERS=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
  -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib >"$work/cmake.log" 2>&1 \
  || { cat "$work/cmake.log" >&2; exit 1; }
cmake --build "$work/build" -j"$(nproc)" >"$work/build.log" 2>&1 || { tail -40 "$work/build.log" >&2; exit 1; }
$SUDO cmake --install "$work/build" >/dev/null
grep -qx "Version: $version" "$prefix/lib/pkgconfig/zxing.pc" || { echo "setup: zxing-cpp $version did not install" >&2; exit 1; }
echo "setup: zxing-cpp $version installed in $prefix"
