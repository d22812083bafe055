#!/usr/bin/env bash
# Compiles every C/C++ shim target (Sources/C*) for aarch64, the Raspberry Pi's architecture, with
# Debian's cross compilers, into objects, and checks that each object is an ARM aarch64 ELF. No
# arm64 Swift toolchain is reachable from an x86_64 machine: this is the part of the arm64 build
# that can be proved here (the whole build runs on an arm64 runner: .github/workflows/release-arm64.yml).
#
# Per target: one C translation unit that includes the headers Swift imports (a system library's
# shim.h, a target's include/*.h), with -fkeep-inline-functions so that the static inline wrappers
# (CV4L2's ioctl and mmap calls) become aarch64 code too; then each .c and .cpp of the target with
# the flags Package.swift gives it. Prints OK or FAIL per target and a closing "N passed, N failed"
# line; exits 1 on any failure. Needs the cross compilers and zxing-cpp's headers: when they are
# missing it runs scripts/setup.sh, which installs both.
#
# Headers: glibc's and libstdc++'s come from the cross toolchain (/usr/aarch64-linux-gnu/include),
# which Debian's cross gcc searches before /usr/include, and it never searches
# /usr/include/x86_64-linux-gnu. The libraries' headers in /usr/include are those of Multi-Arch:
# same -dev packages (libzbar-dev, libgpiod-dev, libv4l-dev, libcamera-dev, libpng-dev,
# libespeak-ng-dev, libasound2-dev, libmosquitto-dev), whose files are identical for every
# architecture by Debian's rules. Every object's dependency list is checked for a header taken
# from the host's multiarch folder or the host's C++ library: that would fail the target.
# One exception, by name: libjpeg-turbo's jconfig.h lives in the multiarch folder. It holds the
# library's version and feature switches (arithmetic coding, in-memory source/destination, SIMD
# on), and Debian's arm64 and amd64 files of libjpeg62-turbo-dev 1:2.1.5-2 are byte-identical
# (compared through multiarch on 2026-11-27). Installing the arm64 package instead needs
# `dpkg --add-architecture arm64` and brings about 20 arm64 packages (libc6-dev, krb5, ...) that
# also move the host's own copies to the same versions: too much for one header, so the host's
# jconfig.h is copied alone into a folder of its own. A newer libjpeg-turbo must be compared again.
#
# On an arm64 machine (a Pi) the same check runs with the native compilers.
set -euo pipefail
cd "$(dirname "$0")/.."

multiarch=$(gcc -print-multiarch)
if [ "$(dpkg --print-architecture)" = arm64 ]; then
  cc=gcc cxx=g++
else
  cc=aarch64-linux-gnu-gcc cxx=aarch64-linux-gnu-g++
fi
if ! command -v "$cc" >/dev/null || ! command -v "$cxx" >/dev/null || [ ! -f /usr/local/include/ZXing/ReadBarcode.h ]; then
  echo "cross-check: installing the cross compilers and zxing-cpp (scripts/setup.sh)"
  scripts/setup.sh >&2
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
extra=()
if [ "$cc" != gcc ]; then
  mkdir -p "$work/jconfig"
  cp "/usr/include/$multiarch/jconfig.h" "$work/jconfig/jconfig.h"
  extra=(-I "$work/jconfig")
fi

# What Package.swift gives each shim target beyond its include/ folder (a system library: its
# pkg-config name, whose --cflags SwiftPM adds; a C/C++ target: its unsafeFlags). SwiftPM also
# passes the package's C++ standard (cxxLanguageStandard: .cxx17) before a target's own flags.
# A target missing here fails: add it.
flags_for() {
  case $1 in
    CZBar) pkg-config --cflags zbar ;;
    CGPIOD) pkg-config --cflags libgpiod ;;
    CV4L2) pkg-config --cflags libv4l2 ;;
    CEspeak) echo "" ;;
    CALSA) pkg-config --cflags alsa ;;
    CMosquitto) pkg-config --cflags libmosquitto ;;
    CStartup) echo "" ;;
    CImageCodecs) echo "" ;;
    CZXing) echo "-std=c++20 -I/usr/local/include" ;;
    CLibcamera) echo "-I/usr/include/libcamera" ;;
    *) return 1 ;;
  esac
}

# Prints the compiler's output and returns non-zero when the object is not aarch64 or took a
# header from the host's multiarch folder or C++ library.
compile() { # COMPILER SOURCE OBJECT FLAGS...
  local compiler=$1 src=$2 obj=$3
  shift 3
  "$compiler" -c -O2 -fPIC -DSWIFT_PACKAGE=1 "$@" "$src" -o "$obj" -MD -MF "$obj.d" || return 1
  file -b "$obj" | grep -q 'ARM aarch64' || { echo "$obj: $(file -b "$obj")"; return 1; }
  if [ "$cc" != gcc ] && grep -E "/usr/include/($multiarch|c\+\+)/" "$obj.d"; then
    echo "$src: took the host's headers above"
    return 1
  fi
}

pass=0 fail=0
for dir in Sources/C*/; do
  target=$(basename "$dir")
  out="$work/$target"
  mkdir -p "$out"
  log="$out/log"
  ok=1
  if ! flags=$(flags_for "$target"); then
    echo "cross-check: $target is a shim target this script does not know: add its flags" >"$log"
    ok=0
  else
    read -ra tflags <<<"$flags"
    inc=(-I "$dir")
    [ -d "$dir/include" ] && inc+=(-I "$dir/include")
    # The headers Swift imports, as C.
    for h in "$dir"shim.h "$dir"include/*.h; do
      [ -f "$h" ] && echo "#include \"$(realpath "$h")\""
    done >"$out/headers.c"
    cflags=("${inc[@]}" "${extra[@]}")
    for f in "${tflags[@]}"; do [[ $f == -std=c++* ]] || cflags+=("$f"); done
    compile "$cc" "$out/headers.c" "$out/headers.o" -fkeep-inline-functions "${cflags[@]}" >>"$log" 2>&1 || ok=0
    for src in "$dir"*.c; do
      [ -f "$src" ] || continue
      compile "$cc" "$src" "$out/$(basename "$src").o" "${cflags[@]}" >>"$log" 2>&1 || ok=0
    done
    for src in "$dir"*.cpp; do
      [ -f "$src" ] || continue
      compile "$cxx" "$src" "$out/$(basename "$src").o" -std=c++17 "${inc[@]}" "${extra[@]}" "${tflags[@]}" >>"$log" 2>&1 || ok=0
    done
  fi
  if [ "$ok" = 1 ]; then
    pass=$((pass + 1))
    objects=$(cd "$out" && printf '%s ' *.o)
    echo "cross-check: OK   $target (${objects% })"
  else
    fail=$((fail + 1))
    echo "cross-check: FAIL $target"
    sed 's/^/    /' "$log"
  fi
done
echo "cross-check ($cxx): $pass passed, $fail failed"
[ "$fail" = 0 ]
