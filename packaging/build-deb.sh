#!/usr/bin/env bash
# Builds the scand Debian package for this machine's architecture (amd64 here, arm64 on a Pi):
# a release binary with the Swift runtime linked in, the unit, udev rules, default config,
# board profiles, the manuals and the man pages. Usage: packaging/build-deb.sh [OUTDIR]
#   -> OUTDIR/scand_VERSION_ARCH.deb
# MAINTAINER overrides the Maintainer field (default: a placeholder address under example.org).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out}
# The release as `scand --version` names it (Version.release); the architecture is dpkg's for
# this machine, so the same script makes scand_VERSION_arm64.deb on an arm64 machine.
version=$(sed -n 's/^ *static let release = "\(.*\)"$/\1/p' Sources/scand/Version.swift)
arch=$(dpkg --print-architecture)
[ -n "$version" ] || { echo "build-deb: no 'static let release = \"...\"' in Sources/scand/Version.swift" >&2; exit 1; }
scripts/stamp-version.sh
swift build -c release --product scand --static-swift-stdlib
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
install -D -m 755 .build/release/scand "$root/usr/bin/scand"
strip --strip-unneeded "$root/usr/bin/scand"
install -D -m 644 config/scand.toml "$root/etc/scand/scand.toml"
for b in config/boards/*.toml; do install -D -m 644 "$b" "$root/usr/share/scand/boards/$(basename "$b")"; done
install -D -m 644 systemd/scand.service "$root/lib/systemd/system/scand.service"
install -D -m 644 systemd/network.conf "$root/usr/share/scand/systemd/network.conf"
install -D -m 644 systemd/99-scand.rules "$root/lib/udev/rules.d/99-scand.rules"
install -D -m 644 README.md "$root/usr/share/doc/scand/README.md"
install -D -m 644 hardware.md "$root/usr/share/doc/scand/hardware.md"
for d in docs/*.md; do install -D -m 644 "$d" "$root/usr/share/doc/scand/docs/$(basename "$d")"; done
install -D -m 644 docs/setup-page.png "$root/usr/share/doc/scand/docs/setup-page.png"
# Man pages, made from the argument parser's help (packaging/man-pages.sh), gzipped.
packaging/man-pages.sh .build/release/scand "$root/usr/share/man/man1"
gzip -9n "$root"/usr/share/man/man1/*.1
install -D -m 644 packaging/debian/copyright "$root/usr/share/doc/scand/copyright"
maintainer=${MAINTAINER:-scand maintainers <maintainers@scand.example.org>}
printf 'scand (%s) stable; urgency=medium\n\n  * Release %s.\n\n -- %s  %s\n' \
    "$version" "$version" "$maintainer" "$(date -R)" | gzip -9n > "$root/usr/share/doc/scand/changelog.gz"
install -d "$root/DEBIAN"
install -m 755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"
echo "/etc/scand/scand.toml" > "$root/DEBIAN/conffiles"
# Depends from the binary's libraries, as dpkg-shlibdeps computes them for any Debian package.
shlibs=$(mktemp -d)
mkdir -p "$shlibs/debian"
printf 'Source: scand\n\nPackage: scand\nArchitecture: any\n' > "$shlibs/debian/control"
libs=$(cd "$shlibs" && dpkg-shlibdeps -O "$root/usr/bin/scand" | sed -n 's/^shlibs:Depends=//p')
rm -rf "$shlibs"
[ -n "$libs" ] || { echo "build-deb: dpkg-shlibdeps found no libraries" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
cat > "$root/DEBIAN/control" <<CONTROL
Package: scand
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $libs, adduser, passwd
Recommends: libcamera-ipa
Section: misc
Priority: optional
Description: barcode and QR scanner daemon for kiosk boards
 scand reads barcodes and QR codes from a V4L2 or libcamera camera on a
 button press (GPIO through libgpiod), lights a torch LED, beeps, and sends
 each result over a serial port, a USB HID keyboard gadget, MQTT or stdout,
 with a durable outbox, host commands, a setup page and Prometheus metrics.
CONTROL
mkdir -p "$out"
dpkg-deb --root-owner-group --build "$root" "$out/scand_${version}_${arch}.deb" >/dev/null
echo "$out/scand_${version}_${arch}.deb"
