# scand: build, test, install.
PREFIX ?= /usr
DESTDIR ?=

.PHONY: build test install uninstall deb demo hardware-test

build:
	scripts/stamp-version.sh
	swift build -c release --product scand --static-swift-stdlib

test:
	scripts/test.sh

demo:
	scripts/demo.sh

# Installs the binary, unit (and its network drop-in, not enabled), udev rules, default config
# (kept if present), board profiles, man pages and the scand user. Run as root; running it
# again changes nothing that is already right.
install: build
	install -D -m 755 .build/release/scand $(DESTDIR)$(PREFIX)/bin/scand
	install -d $(DESTDIR)/etc/scand
	[ -f $(DESTDIR)/etc/scand/scand.toml ] || install -m 644 config/scand.toml $(DESTDIR)/etc/scand/scand.toml
	install -d $(DESTDIR)$(PREFIX)/share/scand/boards
	install -m 644 config/boards/*.toml $(DESTDIR)$(PREFIX)/share/scand/boards/
	install -D -m 644 systemd/scand.service $(DESTDIR)/lib/systemd/system/scand.service
	sed -i 's|/usr/bin/scand|$(PREFIX)/bin/scand|g' $(DESTDIR)/lib/systemd/system/scand.service
	install -D -m 644 systemd/network.conf $(DESTDIR)$(PREFIX)/share/scand/systemd/network.conf
	install -D -m 644 systemd/99-scand.rules $(DESTDIR)/etc/udev/rules.d/99-scand.rules
	packaging/man-pages.sh .build/release/scand $(DESTDIR)$(PREFIX)/share/man/man1
	[ -n "$(DESTDIR)" ] || DPKG_MAINTSCRIPT_NAME=postinst sh packaging/debian/postinst configure

uninstall:
	-systemctl disable --now scand.service
	rm -f $(DESTDIR)$(PREFIX)/bin/scand $(DESTDIR)/lib/systemd/system/scand.service $(DESTDIR)/etc/udev/rules.d/99-scand.rules
	rm -rf $(DESTDIR)$(PREFIX)/share/scand
	rm -f $(DESTDIR)$(PREFIX)/share/man/man1/scand.1 $(DESTDIR)$(PREFIX)/share/man/man1/scand.*.1

deb:
	packaging/build-deb.sh out

# The hardware lab: scand against vivid, gpio-sim and a real UART under qemu (hil/lab.sh).
hardware-test:
	hil/lab.sh all
