#!/usr/bin/env bash
# Builds the scand Debian package for this machine's architecture (amd64 here, arm64 on a Pi):
# a release binary with the Swift runtime linked in, the unit, udev rules, default config,
# board profiles and the manuals. Usage: packaging/build-deb.sh [OUTDIR]  -> OUTDIR/scand_VERSION_ARCH.deb
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out}
version=$(sed -n 's/.*version: "\(.*\)",/\1/p' Sources/scand/Scand.swift)
arch=$(dpkg --print-architecture)
swift build -c release --product scand --static-swift-stdlib
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
install -D -m 755 .build/release/scand "$root/usr/bin/scand"
strip --strip-unneeded "$root/usr/bin/scand"
install -D -m 644 config/scand.toml "$root/etc/scand/scand.toml"
for b in config/boards/*.toml; do install -D -m 644 "$b" "$root/usr/share/scand/boards/$(basename "$b")"; done
install -D -m 644 systemd/scand.service "$root/lib/systemd/system/scand.service"
install -D -m 644 systemd/99-scand.rules "$root/lib/udev/rules.d/99-scand.rules"
install -D -m 644 README.md "$root/usr/share/doc/scand/README.md"
install -D -m 644 hardware.md "$root/usr/share/doc/scand/hardware.md"
install -D -m 644 packaging/debian/copyright "$root/usr/share/doc/scand/copyright"
printf 'scand (%s) stable; urgency=medium\n\n  * Release %s.\n\n -- scand developers <scand@localhost>  %s\n' \
    "$version" "$version" "$(date -R)" | gzip -9n > "$root/usr/share/doc/scand/changelog.gz"
install -d "$root/DEBIAN"
install -m 755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"
echo "/etc/scand/scand.toml" > "$root/DEBIAN/conffiles"
size=$(du -sk "$root" | cut -f1)
cat > "$root/DEBIAN/control" <<CONTROL
Package: scand
Version: $version
Architecture: $arch
Maintainer: scand developers <scand@localhost>
Installed-Size: $size
Depends: libzbar0, libgpiod2, libv4l-0, libpng16-16, libjpeg62-turbo, libespeak-ng1, libasound2, libmosquitto1, libcurl4, adduser, passwd
Section: misc
Priority: optional
Homepage: https://localhost/scand
Description: barcode and QR scanner daemon for kiosk boards
 scand reads barcodes and QR codes from a V4L2 camera on a button press (GPIO through
 libgpiod), lights a torch LED, beeps, and sends each result over a serial port, a USB HID
 keyboard gadget or stdout, with a durable outbox, host commands and Prometheus metrics.
CONTROL
mkdir -p "$out"
dpkg-deb --root-owner-group --build "$root" "$out/scand_${version}_${arch}.deb" >/dev/null
echo "$out/scand_${version}_${arch}.deb"
