#!/usr/bin/env bash
# Builds the Debian package and checks it: file list, control fields, conffiles, maintainer
# scripts, lintian, the unit inside it and its exposure, the man pages. As root it also installs
# the package (apt), reads `man scand`, checks that an admin's `disable` survives an upgrade and
# that purge keeps the system user, then purges it again. Prints a closing "N passed, N failed"
# line.
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
         ./usr/share/doc/scand/copyright ./usr/share/doc/scand/hardware.md ./usr/share/doc/scand/docs/configuration.md \
         ./usr/share/scand/systemd/network.conf ./usr/share/man/man1/scand.1.gz ./usr/share/man/man1/scand-run.1.gz \
         ./usr/share/man/man1/scand-decode.1.gz ./usr/share/man/man1/scand-check-config.1.gz; do
  check "contains $f" 'grep -qx "$f" <<<"$files"'
done
check "control names the libraries" '( for l in libc6 libstdc++6 libgcc-s1 libzbar0 libespeak-ng1 libmosquitto1 libcamera0; do dpkg-deb --field "$deb" Depends | grep -q "$l" || exit 1; done )'
check "maintainer scripts call no systemctl but daemon-reload" '! dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst ./prerm ./postrm | grep -v "^ *#" | grep "systemctl" | grep -qv daemon-reload'
check "purge keeps the system user" '! dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postrm | grep -q deluser'
# lintian: no error and no warning; a tag the package overrides must say why (a comment above it).
lintian_out=$(lintian --tag-display-limit 0 "$deb" 2>&1)
echo "$lintian_out" | sed 's/^/lintian: /'
check "lintian reports no error or warning" '! grep -qE "^[EW]: " <<<"$lintian_out"'
check "every lintian override has a reason" '( dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/lintian/overrides/scand 2>/dev/null || true ) | awk "/^#/ {r=1; next} /^[^#]/ {if (!r) exit 1; r=0}"'
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
check "unit verifies" 'systemd-analyze verify --man=no "$out/scand.service"'
check "unit pulls in no udev-settle" '! grep -q "systemd-udev-settle" "$root/lib/systemd/system/scand.service"'
exposure=$(systemd-analyze security --offline=yes "$out/scand.service" 2>/dev/null | sed -n 's/.*Overall exposure level for scand.service: \([0-9.]*\).*/\1/p')
mkdir -p "$out/net"
# The unit with the network drop-in applied (systemd merges RestrictAddressFamilies= lists and
# takes the last PrivateNetwork= and IPAddressDeny=).
awk -v dropin="$root/usr/share/scand/systemd/network.conf" '
    /^RestrictAddressFamilies=|^PrivateNetwork=|^IPAddressDeny=/ { next }
    /^\[Install\]/ { while ((getline line < dropin) > 0) if (line ~ /^[A-Za-z]+=/) print line; print "" }
    { print }' "$out/scand.service" > "$out/net/scand.service"
net_exposure=$(systemd-analyze security --offline=yes "$out/net/scand.service" 2>/dev/null | sed -n 's/.*Overall exposure level for scand.service: \([0-9.]*\).*/\1/p')
echo "package: systemd-analyze security: ${exposure:-?} (default unit), ${net_exposure:-?} (with the network drop-in)"
check "default unit exposure at most 1.0" 'awk -v e="${exposure:-9}" "BEGIN { exit !(e <= 1.0) }"'
check "the docs state the measured exposure" 'tr "\n" " " < docs/deploying.md | grep -q "rates it \*\*${exposure} " && tr "\n" " " < docs/deploying.md | grep -q "rated \*\*${net_exposure} "'
check "man page scand.1 renders from the package" 'MANPAGER=cat man -l "$root/usr/share/man/man1/scand.1.gz" 2>/dev/null | grep -q "scand-run(1)"'
if [ "$(id -u)" -eq 0 ]; then
  # Installed as an admin would: man, enable on the first install only, disable respected,
  # purge keeps the user. Leaves the machine without the package.
  apt=(apt-get -o DPkg::Lock::Timeout=300 -y -qq)
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" install "$deb" >/dev/null 2>&1
  check "the package installs" 'dpkg-query -W -f="\${Status}" scand | grep -q "install ok installed"'
  check "man scand works after installing" 'MANPAGER=cat man scand 2>/dev/null | grep -q "scand-run(1)" && MANPAGER=cat man scand-run 2>/dev/null | grep -q -- "--config"'
  wants=/etc/systemd/system/multi-user.target.wants/scand.service
  check "enabled on the first install" '[ -L "$wants" ]'
  systemctl disable scand.service >/dev/null 2>&1 || rm -f "$wants"
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" install --reinstall "$deb" >/dev/null 2>&1
  check "an admin's disable survives an upgrade" '[ ! -e "$wants" ]'
  DEBIAN_FRONTEND=noninteractive "${apt[@]}" purge scand >/dev/null 2>&1
  check "purged" '! dpkg-query -W -f="\${Status}" scand 2>/dev/null | grep -q "install ok installed"'
  check "purge keeps the system user scand" 'getent passwd scand >/dev/null'
else
  echo "package: not root: the install checks (man scand, enable/disable, purge) are skipped"
fi
echo "package: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
