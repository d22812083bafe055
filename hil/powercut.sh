# The power-cut scenario, run inside the guest (busybox sh) by hil/init when the kernel command
# line says lab=powercut. The host side (hil/powercut.py) boots the guest again and again, reads
# the second UART and acknowledges every result on it (ACK n), kills qemu at random moments and
# judges what came out. This script only makes the power cuts inside one boot and marks them on
# the UART; it asserts nothing itself.
#
# The outbox lives on /dev/vda (ext4, made on the host), reached through a device-mapper device:
# linear while the power is on; for a cut inside the guest scand is frozen (SIGSTOP), the table
# is switched to dm-flakey dropping every write (what the disk had is all there is), scand is
# killed, the filesystem unmounted (its cache is gone) and mounted again from what reached the
# disk: the journal is replayed as after a real power cut. Between the boots, the host kills
# qemu itself (kill -9): the guest's page cache is lost, the image keeps what qemu wrote to it.
#
# Kernel command line: boot=B (the boot's number), cuts=M (in-guest cuts in this boot before
# running until the host kills qemu), press=S (seconds between presses), mode=cut|final|wear.
set -u
SCAND="env LD_LIBRARY_PATH=/tmp/lib /tmp/scand"
arg() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
BOOT=$(arg boot); CUTS=$(arg cuts); PRESS=$(arg press); MODE=$(arg mode)
: "${BOOT:=0}" "${CUTS:=0}" "${PRESS:=0.5}" "${MODE:=cut}"
OUT=/mnt/pc; mkdir -p $OUT
LOG=$OUT/guest.log
say() { echo "$*"; echo "boot $BOOT: $*" >> $LOG; }
# Markers on the result UART, between scand's runs: the host splits its stream into epochs.
mark() { echo "#$*" > /dev/ttyS1; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }

modprobe virtio_blk; modprobe dm-flakey; modprobe crc32c_generic; modprobe ext4
i=0; while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda ] || { say "FAIL no /dev/vda"; exit 1; }
export DM_DISABLE_UDEV=1
SECT=$(blockdev --getsz /dev/vda)
LINEAR="0 $SECT linear /dev/vda 0"
DROP="0 $SECT flakey /dev/vda 0 0 3600 1 drop_writes"
dmsetup create pc --table "$LINEAR" || { say "FAIL dmsetup create"; exit 1; }
mkdir -p /data
mount_data() { mount -t ext4 -o rw /dev/mapper/pc /data || { say "FAIL mount"; exit 1; }; mkdir -p /data/outbox; }
mount_data
# The binary and its libraries on tmpfs: started many times, never read again from the share.
cp /mnt/scand /tmp/scand; cp -r /mnt/lib /tmp/lib
cp -r /mnt/samples /tmp/samples

cat > /tmp/pc.toml <<CONFIG
hardware = "simulated"
log_level = "info"
[camera]
images = ["/tmp/samples/"]
fps = 15
[scan]
viewport = [0.0, 0.0, 1.0, 1.0]
session_timeout_ms = 5000
same_symbol_timeout_ms = 0
[gpio]
board = "simulated"
button = { pin = "GPIO17" }
[output.serial]
device = "/dev/ttyS1"
format = "json"
ack = true
[outbox]
directory = "/data/outbox"
CONFIG

PID=
start() { # start TAG [press seconds]
  mark "START $1"
  RUNLOG=$OUT/scand-$1.log
  if [ -n "${2:-}" ]; then
    $SCAND run --config /tmp/pc.toml --no-stdin --press-every "$2" > $RUNLOG 2>&1 &
  else
    $SCAND run --config /tmp/pc.toml --no-stdin > $RUNLOG 2>&1 &
  fi
  PID=$!
}
# sleep_ms N; busybox's $RANDOM is 0..32767.
sleep_ms() { sleep "$(($1 / 1000)).$(printf %03d $(($1 % 1000)))"; }
# ready TENTHS: scand's camera is up (it has read its outbox and opened the port).
ready() { i=0; while [ $i -lt $1 ]; do grep -q "camera available" $RUNLOG 2>/dev/null && return 0; sleep 0.1; i=$((i + 1)); done; return 1; }
# When to cut: one time in five at a random moment of the start-up (0 to 3 s after the start:
# reading and compacting the outbox), else at a random moment 0.2 to 6 s after scand is up
# (scanning; start-up takes 1 to 10 s under emulation on a loaded machine).
cut_moment() {
  if [ $((RANDOM % 5)) = 0 ]; then sleep_ms $((RANDOM % 3000)); return; fi
  ready 300 || say "scand not up after 30 s"
  sleep_ms $((RANDOM % 5800 + 200))
}

stat_vda() { cat /sys/block/vda/stat; }
# Results so far in this boot: scand logs each one ("read qr: ...").
reads() { grep -c "\] read " $RUNLOG; }

case $MODE in
cut)
  k=1
  while [ $k -le $CUTS ]; do
    start "$BOOT.$k" "$PRESS"
    cut_moment
    # The cut: freeze scand, then from this instant no write reaches the disk.
    kill -STOP $PID
    dmsetup suspend --nolockfs pc && dmsetup load pc --table "$DROP" && dmsetup resume pc || say "FAIL flakey table"
    kill -9 $PID; wait $PID 2>/dev/null
    mark "CUT $BOOT.$k"
    umount /data || say "FAIL umount"
    dmsetup suspend pc; dmsetup load pc --table "$LINEAR"; dmsetup resume pc
    echo 3 > /proc/sys/vm/drop_caches
    mount_data
    k=$((k + 1))
  done
  # The last run of this boot ends when the host kills qemu (it waits for the mark "UP").
  start "$BOOT.$k" "$PRESS"
  ready 300; mark "UP $BOOT.$k"
  say "waiting for the host to cut the power (uptime $(uptime_s) s)"
  while :; do sleep 60; done
  ;;
final)
  # No presses: what was pending from before the cut goes out and is acknowledged; then a clean
  # stop and the outbox as it is on the disk for the host to read.
  start "$BOOT.final"
  ready 600 || say "scand not up after 60 s"
  sleep 10
  kill $PID; wait $PID; rc=$?
  mark "END rc=$rc"
  cp /data/outbox/serial.outbox $OUT/final.outbox 2>/dev/null || : > $OUT/final.outbox
  umount /data && say "unmounted cleanly"
  ;;
wear)
  # Wear: the disk's own counters (/sys/block/vda/stat: field 5 writes, 7 sectors written,
  # 15 flushes) over an idle minute and over a minute of presses, with scand running.
  start "$BOOT.wear-idle"
  ready 600; sleep 5
  sync; a=$(stat_vda); sleep 60; sync; b=$(stat_vda)
  echo "idle 60 s: before $a" > $OUT/wear.txt; echo "idle 60 s: after  $b" >> $OUT/wear.txt
  kill $PID; wait $PID
  mark "END wear-idle"
  start "$BOOT.wear-scan" "$PRESS"
  ready 600; sleep 5
  sync; a=$(stat_vda); n0=$(reads); sleep 60; sync; b=$(stat_vda); n1=$(reads)
  echo "scanning 60 s: before $a" >> $OUT/wear.txt; echo "scanning 60 s: after  $b" >> $OUT/wear.txt
  echo "scanning 60 s: results $((n1 - n0))" >> $OUT/wear.txt
  kill $PID; wait $PID
  mark "END wear-scan"
  umount /data
  ;;
esac
exit 0
