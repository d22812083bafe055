#!/usr/bin/env bash
# Builds the Debian package and checks it: file list, control fields, conffiles, maintainer
# scripts, the unit inside it. Prints a closing "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pass=0; fail=0
check() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "package check failed: $1"; fi; }
deb=$(packaging/build-deb.sh "$out" | tail -1)
check "package built" '[ -f "$deb" ]'
files=$(dpkg-deb --contents "$deb" | awk '{print $6}')
for f in ./usr/bin/scand ./etc/scand/scand.toml ./lib/systemd/system/scand.service ./lib/udev/rules.d/99-scand.rules \
         ./usr/share/scand/boards/raspberry-pi-4.toml ./usr/share/scand/boards/raspberry-pi-5.toml \
         ./usr/share/doc/scand/copyright ./usr/share/doc/scand/hardware.md; do
  check "contains $f" 'grep -qx "$f" <<<"$files"'
done
check "control names the libraries" '( for l in libzbar0 libespeak-ng1 libmosquitto1 libcurl4; do dpkg-deb --field "$deb" Depends | grep -q "$l" || exit 1; done )'
check "config is a conffile" 'dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles | grep -qx /etc/scand/scand.toml'
for s in postinst prerm postrm; do
  check "$s parses" 'dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./'"$s"' | sh -n'
done
root="$out/root"
dpkg-deb --extract "$deb" "$root"
check "zxing-cpp 3.1 is linked in (Debian's 1.4 not needed)" '! dpkg-deb --field "$deb" Depends | grep -q libzxing && ! readelf -d "$root/usr/bin/scand" | grep -q libZXing'
check "binary runs without a Swift toolchain path" 'env -i LD_LIBRARY_PATH= "$root/usr/bin/scand" --version | grep -q .'
cp -r "$root/usr/share/scand/boards" "$root/etc/scand/boards"  # where /usr/share/scand/boards is found on a board
check "shipped config checks" '"$root/usr/bin/scand" check-config "$root/etc/scand/scand.toml" >/dev/null'
sed "s|/usr/bin/scand|$root/usr/bin/scand|g" "$root/lib/systemd/system/scand.service" > "$out/scand.service"
check "unit verifies" 'systemd-analyze verify "$out/scand.service"'
echo "package: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
