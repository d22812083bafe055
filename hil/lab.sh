#!/usr/bin/env bash
# scand's hardware lab: the real `scand run` inside Debian's own kernel under qemu (software
# emulation), against real kernel drivers: vivid (V4L2 capture, its output looped back to the
# capture), gpio-sim (built out of tree: Debian's kernel does not enable it) and the 8250 UART,
# whose second port qemu writes to a host file. Each scenario is asserted from outside scand:
# gpio-sim line values in sysfs, the bytes on the UART, the frames written into vivid.
#
# The power cut: scand's outbox on a virtio disk (ext4), the power cut at random moments by killing
# qemu and, inside a boot, by dm-flakey; the host plays the ACKing host on the UART and checks that
# every result shown as stored comes out after the cut (hil/powercut.py says exactly what).
#
# usage: hil/lab.sh [all|prepare|run]     LAB_DIR (default .build-lab) caches downloads.
#        hil/lab.sh powercut [BOOTS [CUTS [--wear]]]   BOOTS qemu kills, CUTS dm-flakey cuts in each
#        (all runs 1 and 4: 5 cuts; the long run: hil/lab.sh powercut 10 20 = 210 cuts)
# Prints "N passed, N failed" and exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
W=${LAB_DIR:-$REPO/.build-lab}
STEP=${1:-all}
mkdir -p "$W"/debs "$W"/x "$W"/share "$W"/guest

[ "$(uname -m)" = x86_64 ] || { echo "hardware lab: needs an x86_64 host (it boots Debian's amd64 kernel)"; exit 1; }
apt-cache policy linux-image-amd64 2>/dev/null | grep -q "Candidate: [0-9]" || apt-get update -qq
K=$(apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: linux-image-\(.*\)$/\1/p' | head -1)
KV=${K%-amd64}

fetch() {
  command -v qemu-system-x86_64 >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-system-x86 >/dev/null
  if [ ! -f "$W/x/boot/vmlinuz-$K" ]; then
    (cd "$W/debs" && apt-get -qq -o APT::Sandbox::User=root download \
      linux-image-$K linux-headers-$K linux-headers-$KV-common linux-kbuild-6.1 \
      busybox-static v4l-utils libv4l-0 libv4lconvert0 libjpeg62-turbo gpiod libgpiod2 kmod)
    for p in linux-image-$K busybox-static v4l-utils libv4l-0 libv4lconvert0 libjpeg62-turbo gpiod libgpiod2; do
      dpkg -x "$W"/debs/${p}_*.deb "$W/x"
    done
    mkdir -p "$W/kmodx" "$W/hdr" "$W/src"
    dpkg -x "$W"/debs/kmod_*.deb "$W/kmodx" && ln -sf kmod "$W/kmodx/bin/depmod"
    for p in linux-headers-$K linux-headers-$KV-common linux-kbuild-6.1; do dpkg -x "$W"/debs/${p}_*.deb "$W/hdr"; done
    sed -i "s#include /usr/src/#include $W/hdr/usr/src/#" "$W/hdr/usr/src/linux-headers-$K/Makefile"
    "$W/kmodx/bin/depmod" -b "$W/x" "$K"
  fi
  # The kernel sources the lab builds out of tree: gpio-sim (+ irq_sim) and vimc.
  if [ ! -f "$W/src/linux-source-6.1/drivers/media/test-drivers/vimc/vimc-core.c" ]; then
    (cd "$W/debs" && apt-get -qq -o APT::Sandbox::User=root download linux-source-6.1)
    dpkg-deb --fsys-tarfile "$W"/debs/linux-source-6.1_*.deb | tar -x -C "$W/src" ./usr/src/linux-source-6.1.tar.xz
    tar -xJf "$W/src/usr/src/linux-source-6.1.tar.xz" -C "$W/src" linux-source-6.1/drivers/gpio/gpio-sim.c \
      linux-source-6.1/drivers/gpio/gpiolib.h linux-source-6.1/kernel/irq/irq_sim.c linux-source-6.1/drivers/media/test-drivers/vimc
    rm -f "$W/src/usr/src/linux-source-6.1.tar.xz" "$W"/debs/linux-source-6.1_*.deb
  fi
  if [ ! -x "$W/udevx/bin/udevadm" ]; then
    (cd "$W/debs" && apt-get -qq -o APT::Sandbox::User=root download udev)
    dpkg -x "$W"/debs/udev_*.deb "$W/udevx"
  fi
  # dmsetup for the power cut's dm-flakey table (libdevmapper; the rest comes from the host).
  if [ ! -x "$W/x/sbin/dmsetup" ]; then
    (cd "$W/debs" && apt-get -qq -o APT::Sandbox::User=root download dmsetup libdevmapper1.02.1)
    for p in dmsetup libdevmapper1.02.1; do dpkg -x "$W"/debs/${p}_*.deb "$W/x"; done
  fi
}

build_gpiosim() {
  # gpio-sim.c + irq_sim.c as one module; irq_to_desc() is not exported, so irq_sim's
  # handle_simple_irq(irq_to_desc(n)) becomes generic_handle_irq(n).
  [ -f "$W/gpiosim/gpio-sim.ko" ] && return
  S=$W/src/linux-source-6.1; O=$W/gpiosim
  rm -rf "$O"; mkdir -p "$O"
  cp "$S/drivers/gpio/gpio-sim.c" "$O/gpio-sim-main.c"
  cp "$S/drivers/gpio/gpiolib.h" "$S/kernel/irq/irq_sim.c" "$O/"
  sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$O/irq_sim.c"
  grep -q 'generic_handle_irq(irqnum)' "$O/irq_sim.c"
  printf 'obj-m := gpio-sim.o\ngpio-sim-y := gpio-sim-main.o irq_sim.o\n' > "$O/Kbuild"
  make -s -C "$W/hdr/usr/src/linux-headers-$K" M="$O" modules
}

build_vimc() {
  # vimc (media controller test driver: sensor, debayer, scaler, capture) as Debian would build
  # it; it needs the media controller and the subdev API (built in) and videobuf2-vmalloc and
  # v4l2-tpg (modules, vivid's too).
  [ -f "$W/vimc/vimc.ko" ] && return
  O=$W/vimc
  rm -rf "$O"; mkdir -p "$O"
  cp "$W"/src/linux-source-6.1/drivers/media/test-drivers/vimc/*.[ch] "$O/"
  sed 's/$(CONFIG_VIDEO_VIMC)/m/' "$W/src/linux-source-6.1/drivers/media/test-drivers/vimc/Makefile" > "$O/Kbuild"
  make -s -C "$W/hdr/usr/src/linux-headers-$K" M="$O" modules
}

build_scand() {
  scripts/stamp-version.sh
  swift build -c release --product scand --static-swift-stdlib 2>&1 | grep -E "error|warning: unre" || true
  rm -rf "$W/share/lib"; mkdir -p "$W/share/lib"
  cp .build/release/scand "$W/share/scand"
  for lib in $(ldd .build/release/scand | awk '/=> \//{print $3}'); do cp -L "$lib" "$W/share/lib/"; done
  .build/release/scand bench frame Tests/Fixtures/qr.png "$W/share/qr.yuyv"
  .build/release/scand bench frame --format NV12 Tests/Fixtures/qr.png "$W/share/qr.nv12"
  .build/release/scand bench frame Tests/Fixtures/no-code.png "$W/share/blank.yuyv"
  cp hil/scenarios.sh "$W/share/test.sh"
  cp hil/powercut.sh "$W/share/powercut.sh"
  rm -rf "$W/share/samples"; cp -r samples "$W/share/samples"
}

build_initramfs() {
  X=$W/x; R=$W/rootfs
  rm -rf "$R"; mkdir -p "$R"/{bin,sbin,dev,proc,sys,tmp,mnt,etc,lib64,lib/x86_64-linux-gnu,usr/bin}
  cp "$X/bin/busybox" "$R/bin/busybox"
  cp hil/init "$R/init"; chmod +x "$R/init"
  export LD_LIBRARY_PATH=$X/usr/lib/x86_64-linux-gnu
  for b in v4l2-ctl gpiodetect gpioinfo gpioget gpioset; do
    cp "$X/usr/bin/$b" "$R/usr/bin/"
    for lib in $(ldd "$X/usr/bin/$b" | awk '/=> \//{print $3}'); do cp -L "$lib" "$R/lib/x86_64-linux-gnu/"; done
  done
  # udevd: libcamera finds cameras through udev's database and learns of a camera unplugged or
  # plugged from udev's events, as on a booted system.
  mkdir -p "$R/lib/systemd"
  cp "$W/udevx/bin/udevadm" "$R/bin/"; ln -sf /bin/udevadm "$R/lib/systemd/systemd-udevd"
  for lib in $(ldd "$W/udevx/bin/udevadm" | awk '/=> \//{print $3}'); do cp -L "$lib" "$R/lib/x86_64-linux-gnu/"; done
  export LD_LIBRARY_PATH=$X/lib/x86_64-linux-gnu
  cp "$X/sbin/dmsetup" "$R/sbin/"
  for lib in $(ldd "$X/sbin/dmsetup" | awk '/=> \//{print $3}'); do cp -L "$lib" "$R/lib/x86_64-linux-gnu/"; done
  unset LD_LIBRARY_PATH
  cp -L /lib64/ld-linux-x86-64.so.2 "$R/lib64/"
  M=$X/lib/modules/$K; RM=$R/lib/modules/$K; mkdir -p "$RM/extra"
  cp "$M/modules.order" "$M/modules.builtin" "$M/modules.builtin.modinfo" "$RM/"
  for m in vivid videobuf2-vmalloc v4l2-tpg configfs 9p 9pnet_virtio virtio_pci virtio_blk dm-flakey ext4 crc32c_generic; do
    for ko in $(grep -E "/$m\.ko:" "$M/modules.dep" | tr -d ':'); do mkdir -p "$RM/$(dirname "$ko")"; cp "$M/$ko" "$RM/$ko"; done
  done
  cp "$W/gpiosim/gpio-sim.ko" "$W/vimc/vimc.ko" "$RM/extra/"
  # libcamera's pieces beside the library scand links (its libraries come with scand's): the
  # vimc IPA module with its signature, its isolating proxy and its configuration, at the paths
  # the library was built with.
  for f in /usr/lib/x86_64-linux-gnu/libcamera/ipa_vimc.so /usr/lib/x86_64-linux-gnu/libcamera/ipa_vimc.so.sign \
           /usr/lib/x86_64-linux-gnu/libcamera/vimc_ipa_proxy /usr/share/libcamera/ipa/vimc/vimc.conf; do
    [ -f "$f" ] || { echo "hardware lab: $f is missing (apt-get install libcamera-ipa)"; exit 1; }
    mkdir -p "$R$(dirname "$f")"; cp "$f" "$R$f"
  done
  "$W/kmodx/bin/depmod" -b "$R" "$K"
  (cd "$R" && find . | "$X/bin/busybox" cpio -o -H newc 2>/dev/null | gzip -1) > "$W/initramfs.gz"
}

run_vm() {
  rm -f "$W/uart1.out" "$W/share/result.txt" "$W/share/scand.log"
  set +e
  timeout 600 qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 1024 \
    -kernel "$W/x/boot/vmlinuz-$K" -initrd "$W/initramfs.gz" \
    -append "console=ttyS0 quiet panic=-1" -nographic -no-reboot -nodefaults \
    -serial stdio -serial file:"$W/uart1.out" \
    -device isa-debug-exit,iobase=0xf4,iosize=0x04 \
    -virtfs local,path="$W/share",mount_tag=hostshare,security_model=none,id=hs > "$W/console.log" 2>&1
  set -e
  # The guest writes its verdicts to the share (the console interleaves kernel messages).
  R=$W/share/result.txt
  cat "$R" 2>/dev/null || true
  pass=$(grep -c "^PASS" "$R" 2>/dev/null || true); fail=$(grep -c "^FAIL" "$R" 2>/dev/null || true)
  [ "$fail" -eq 0 ] || { echo "---- scand's log in the guest"; cat "$W/share/scand.log" 2>/dev/null; }
  # Asserted on the host side of the UART: the framed text arrived.
  if grep -q "$(printf '\002')https://example.org/kiosk?id=42$(printf '\003')" "$W/uart1.out" 2>/dev/null; then
    echo "PASS host: the UART carried the framed result"; pass=$((pass + 1))
  else
    echo "FAIL host: no framed result on the UART"; fail=$((fail + 1))
  fi
  grep -q "^DONE" "$R" 2>/dev/null || { echo "FAIL the guest did not finish (see $W/console.log)"; fail=$((fail + 1)); }
  echo "hardware-lab: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}

# The power cut (hil/powercut.py): BOOTS boots each ended by killing qemu, CUTS dm-flakey cuts
# inside each boot, then a last boot that sends what is owed.
powercut() {
  command -v mkfs.ext4 >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq e2fsprogs >/dev/null
  # The kernel without its xz wrapper, booted directly (PVH): its own decompressor takes ~20 s
  # under emulation, paid at every boot.
  [ -f "$W/vmlinux-$K" ] || python3 -c 'import lzma, sys
d = open(sys.argv[1], "rb").read()
open(sys.argv[2], "wb").write(lzma.LZMADecompressor().decompress(d[d.find(b"\xfd7zXZ\x00"):]))' "$W/x/boot/vmlinuz-$K" "$W/vmlinux-$K"
  if python3 hil/powercut.py --lab "$W" --kernel "$K" --boots "${1:-1}" --cuts "${2:-4}" ${3:-}; then
    echo "PASS power cut: every result shown as stored was delivered after the cuts"; return 0
  else
    echo "FAIL power cut (see $W/powercut/ and $W/share/pc/)"; return 1
  fi
}

case $STEP in
  prepare) fetch; build_gpiosim; build_vimc; build_scand; build_initramfs ;;
  run) run_vm ;;
  powercut) shift; powercut "$@" ;;
  all) fetch; build_gpiosim; build_vimc; build_scand; build_initramfs
       rc=0; run_vm || rc=1; powercut 1 4 || rc=1; exit $rc ;;
esac
