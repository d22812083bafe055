# The lab's scenarios, run inside the guest (busybox sh). Each prints PASS or FAIL; the host
# counts them. scand runs as the real binary from the host share with its libraries.
set -u
SCAND="env LD_LIBRARY_PATH=/mnt/lib /mnt/scand"
fails=0
# Verdicts also go to a file on the host share: the serial console interleaves kernel messages.
: > /mnt/result.txt
pass() { echo "PASS $1"; echo "PASS $1" >> /mnt/result.txt; }
# A failure carries the end of scand's log with it (the host prints the whole log only after all
# the verdicts, where a CI excerpt may cut it).
fail() { echo "FAIL $1"; echo "FAIL $1" >> /mnt/result.txt; fails=$((fails + 1))
         { tail -n 15 /tmp/scand.log; echo "status: $(cat /tmp/status.json)"; } 2>/dev/null | sed 's/^/  | /' >> /mnt/result.txt; }
# waitfor CONDITION TENTHS: bounded polling, never a fixed sleep for a result.
waitfor() { i=0; while [ $i -lt $2 ]; do eval "$1" && return 0; sleep 0.1; i=$((i + 1)); done; return 1; }
status() { cat /tmp/status.json 2>/dev/null; }

# vivid: one capture (video0) and one output (video1), the output looped to the capture; and a
# second device, a webcam-like capture (video2), whose frame rate can change while it streams.
modprobe vivid n_devs=2 node_types=0x101,0x1 num_inputs=1,1 input_types=0x3,0x0 num_outputs=1,0 output_types=0x1,0x0
CAP=/dev/video0; OUT=/dev/video1; WEB=/dev/video2
v4l2-ctl -d $CAP --set-dv-bt-timings index=0 >/dev/null
v4l2-ctl -d $OUT --set-dv-bt-timings index=0 >/dev/null
v4l2-ctl -d $CAP -c loop_video=1 -c osd_text_mode=2
# gpio-sim: button 0, torch 1, buzzer 2, status LED 3.
modprobe gpio-sim; mount -t configfs none /sys/kernel/config
C=/sys/kernel/config/gpio-sim/scand
mkdir $C $C/bank0; for i in 0 1 2 3; do mkdir $C/bank0/line$i; done
echo 4 > $C/bank0/num_lines; echo scand-sim > $C/bank0/label; echo 1 > $C/live
CHIP=$(cat $C/bank0/chip_name); S=/sys/devices/platform/$(cat $C/dev_name)/$CHIP
line() { cat $S/sim_gpio$1/value; }
press() { echo pull-down > $S/sim_gpio0/pull; sleep 0.1; echo pull-up > $S/sim_gpio0/pull; }
# A press, and again as a person would if no session starts within 5 s, said in a NOTE: a press
# right after start-up was lost twice under emulation (scenario 8), cause not proven (see 2b).
press_seen() { for a in 1 2 3; do press
    waitfor 'status | grep -q -E "\"phase\":\"scanning\"|\"goodReads\":1,"' 50 && return 0
    echo "NOTE $1: press $a not seen by scand, pressed again" | tee -a /mnt/result.txt; done; return 1; }

mkdir -p /tmp/boards
printf 'name = "lab"\nchip = "scand-sim"\n[pins]\n' > /tmp/boards/lab.toml
cat > /tmp/scand.toml <<CONFIG
hardware = "linux"
log_level = "debug"   # the feedback and the watch rate are logged at debug
[camera]
device = "$CAP"
width = 640
height = 480
fps = 30
formats = ["YUYV"]
[scan]
viewport = [0.0, 0.0, 1.0, 1.0]
session_timeout_ms = 15000
same_symbol_timeout_ms = 0
[gpio]
board = "lab"
button = { pin = 0, bias = "pull-up", active_low = true }
torch = { pin = 1 }
buzzer = { pin = 2 }
status_led = { pin = 3 }
[output.serial]
device = "/dev/ttyS1"
prefix = '\x02'
suffix = '\x03\r\n'
[status]
file = "/tmp/status.json"
CONFIG

start_scand() { rm -f /tmp/status.json; $SCAND run --config /tmp/scand.toml --no-stdin "$@" >> /tmp/scand.log 2>&1 & SCAND_PID=$!; }
stop_scand() { kill $SCAND_PID 2>/dev/null; wait $SCAND_PID 2>/dev/null; }
loop_frame() { v4l2-ctl -d $OUT --set-fmt-video-out=width=640,height=480,pixelformat=$1 >/dev/null
               v4l2-ctl -d $OUT --stream-out-mmap=3 --stream-from=$2 --stream-loop --stream-count=100000000 2>/dev/null & LOOP_PID=$!; }
stop_loop() { kill $LOOP_PID 2>/dev/null; wait $LOOP_PID 2>/dev/null; }

########## 7. probe lists the vivid device with its formats and the gpio-sim chip with its lines
$SCAND probe > /tmp/probe.txt 2>&1
if grep -q "$CAP: vivid" /tmp/probe.txt && grep -q "format YUYV" /tmp/probe.txt && grep -q "scand-sim" /tmp/probe.txt; then
  pass "7 probe lists vivid and gpio-sim"; else fail "7 probe"; cat /tmp/probe.txt; fi

########## 1. press -> torch on -> QR read from vivid -> framed text on the UART -> buzzer -> torch off
start_scand
waitfor 'status | grep -q "\"camera\":\"available\""' 300 || fail "1 camera available"
loop_frame YUYV /mnt/qr.yuyv
sleep 0.5
echo pull-up > $S/sim_gpio0/pull; sleep 0.2
t0=$(cut -d' ' -f1 /proc/uptime)
press
waitfor '[ "$(line 1)" = 1 ] || status | grep -q "\"goodReads\":1,"' 300 && pass "1 torch on after the press" || fail "1 torch on"
if waitfor 'status | grep -q "\"goodReads\":1,"' 400; then
  t1=$(cut -d' ' -f1 /proc/uptime)
  pass "1 code read"; echo "LATENCY press-to-read ${t0}..${t1} s (guest uptime)" | tee -a /mnt/result.txt
else fail "1 code read"; fi
waitfor '[ "$(line 1)" = 0 ]' 300 && pass "1 torch back to inactive" || fail "1 torch off"
status | grep -q '"torchOn":1' && pass "1 torch was lit once" || fail "1 torch count"
stop_loop

########## 2. a press with no code in view: timeout, torch off, the no-read pattern
stop_scand
start_scand --set scan.session_timeout_ms=2000
waitfor 'status | grep -q "\"camera\":\"available\""' 300
# A frame without a code looped in: once the output stops, vivid's capture may still show the
# last frame looped to it (scenario 1's QR), which the press would read.
loop_frame YUYV /mnt/blank.yuyv
sleep 0.5
press
waitfor 'status | grep -q "\"closedWithoutScan\":1"' 300 && pass "2 session timed out" || fail "2 timeout"
waitfor '[ "$(line 1)" = 0 ]' 300 && pass "2 torch off" || fail "2 torch off"
grep -q "feedback no-read" /tmp/scand.log && pass "2 no-read feedback" || fail "2 no-read"
stop_scand; stop_loop

########## 2b. a tap of a few milliseconds: for a both-edge line Linux reads the level when its
# interrupt thread runs, so both edges of a short tap may say "released" (a press lost twice
# under emulation, scenario 8 in CI and a rehearsal). It is a press all the same.
rm -f /tmp/status.json
start_scand --set scan.session_timeout_ms=2000
waitfor 'status | grep -q "\"camera\":\"available\""' 300
loop_frame YUYV /mnt/blank.yuyv
sleep 0.5
echo pull-down > $S/sim_gpio0/pull; echo pull-up > $S/sim_gpio0/pull
waitfor 'status | grep -q "\"closedWithoutScan\":1"' 300 && pass "2 a tap of a few milliseconds is a press" || fail "2 tap"
stop_scand; stop_loop

########## 4. unplug: vivid's device unbound mid-session, bound again; scand recovers by itself
rm -f /tmp/status.json
start_scand
waitfor 'status | grep -q "\"camera\":\"available\""' 300
press
waitfor 'status | grep -q "\"phase\":\"scanning\""' 300
echo vivid.0 > /sys/bus/platform/drivers/vivid/unbind
waitfor 'status | grep -q -E "\"camera\":\"(disconnected|unavailable)\""' 300 && pass "4 camera reported disconnected" || fail "4 disconnect"
waitfor '[ "$(line 1)" = 0 ]' 300 && pass "4 torch off on disconnect" || fail "4 torch off"
echo vivid.0 > /sys/bus/platform/drivers/vivid/bind
waitfor '[ -e $CAP ] && [ -e $OUT ]' 300
v4l2-ctl -d $CAP --set-dv-bt-timings index=0 >/dev/null; v4l2-ctl -d $OUT --set-dv-bt-timings index=0 >/dev/null
v4l2-ctl -d $CAP -c loop_video=1 -c osd_text_mode=2
loop_frame YUYV /mnt/qr.yuyv
waitfor 'status | grep -q "\"camera\":\"available\""' 300 && pass "4 camera back without a restart" || fail "4 recover"
sleep 0.5
# As a person would: press again if the first session after the replug ends without a read
# (the looped frame may take a moment to reach the new capture queue under emulation).
read_after=0
for attempt in 1 2 3; do
  press
  if waitfor 'status | grep -q "\"goodReads\":1,"' 200; then read_after=1; break; fi
  waitfor 'status | grep -q "\"phase\":\"idle\""' 200
done
[ $read_after = 1 ] && pass "4 next press reads (attempt $attempt)" || fail "4 read after replug"
status | grep -q '"cameraReconnects":1' && pass "4 reconnect counted" || fail "4 reconnect count"
stop_scand; stop_loop

########## 5. camera busy: another program streams from the capture device
loop_frame YUYV /mnt/qr.yuyv
v4l2-ctl -d $CAP --set-fmt-video=width=640,height=480,pixelformat=YUYV >/dev/null
v4l2-ctl -d $CAP --stream-mmap=3 --stream-count=100000000 --stream-to=/dev/null 2>/dev/null & HOG=$!
sleep 0.5
start_scand
press
waitfor 'status | grep -q "\"camera\":\"in-use\""' 300 && pass "5 camera reported in use" || fail "5 busy"
kill $HOG; wait $HOG 2>/dev/null
stop_scand; stop_loop

########## 6. another raw format: NV12 looped and captured
rm -f /tmp/status.json
loop_frame NV12 /mnt/qr.nv12
start_scand --set 'camera.formats=["NV12"]'
waitfor 'status | grep -q "\"camera\":\"available\""' 300
press_seen 6
waitfor 'status | grep -q "\"goodReads\":1,"' 400 && pass "6 NV12 read" || fail "6 NV12"
stop_scand; stop_loop

########## 8. a camera with none of the configured formats: opened through libv4l2
# camera.formats names only MJPG, which vivid does not offer: scand opens the device again
# through libv4l2 and asks it for YU12 (planar YUV), looped here from the output.
rm -f /tmp/status.json
loop_frame YU12 /mnt/qr.nv12   # neutral chroma: the NV12 and YU12 bytes are the same
start_scand --set 'camera.formats=["MJPG"]'
waitfor 'status | grep -q "\"camera\":\"available\""' 300
grep -q "YU12 640x480 at 30 fps, converted by libv4l2" /tmp/scand.log && pass "8 opened through libv4l2" || fail "8 libv4l2 open"
press_seen 8
waitfor 'status | grep -q "\"goodReads\":1,"' 400 && pass "8 read through libv4l2" || fail "8 libv4l2 read"
# libv4l2 writes "error dequeuing buf" to stderr each time a dequeue finds nothing ready.
grep -q "error dequeuing buf" /tmp/scand.log && fail "8 libv4l2 wrote errors to the log" || pass "8 no libv4l2 error lines in the log"
stop_scand; stop_loop

########## 9. level trigger: scans while the button is held; a release without a code ends it
rm -f /tmp/status.json
loop_frame YUYV /mnt/blank.yuyv
start_scand --set 'scan.trigger="level"'
waitfor 'status | grep -q "\"camera\":\"available\""' 300
echo pull-down > $S/sim_gpio0/pull     # held
waitfor 'status | grep -q "\"phase\":\"scanning\""' 300 && pass "9 held: scanning" || fail "9 held"
sleep 1
status | grep -q '"phase":"scanning"' && [ "$(line 1)" = 1 ] && pass "9 still scanning while held, torch on" || fail "9 hold"
echo pull-up > $S/sim_gpio0/pull       # released
waitfor 'status | grep -q "\"closedWithoutScan\":1"' 300 && pass "9 release ends the session" || fail "9 release"
waitfor '[ "$(line 1)" = 0 ]' 300 && pass "9 torch off after the release" || fail "9 torch off"
stop_scand; stop_loop

########## 10. presentation: no press; the scene changes from blank to a code and is read
rm -f /tmp/status.json
loop_frame YUYV /mnt/blank.yuyv
start_scand --set 'scan.trigger="presentation"'
waitfor 'status | grep -q "\"phase\":\"watching\""' 300 && pass "10 watching" || fail "10 watching"
sleep 0.5
stop_loop; loop_frame YUYV /mnt/qr.yuyv
waitfor 'status | grep -q "\"goodReads\":1,"' 400 && pass "10 read on presentation" || fail "10 presentation read"
status | grep -q '"presses":0' && pass "10 without a press" || fail "10 presses"
# The code stays in view (same_symbol_timeout_ms is 0 here): it is reported once, not per frame.
sleep 3
status | grep -q '"goodReads":1,' && pass "10 a code left in view is read once" || { fail "10 read once"; status; }
stop_scand; stop_loop

########## 11. presentation watches at a lower rate (scan.presentation.watch_fps) where the driver
# takes a new rate while streaming (vivid's webcam input; uvcvideo would answer EBUSY)
v4l2-ctl -d $WEB -c osd_text_mode=2     # a still scene: no text that changes every frame
rm -f /tmp/status.json
start_scand --set "camera.device=\"$WEB\"" --set 'scan.trigger="presentation"' --set 'scan.presentation.watch_fps=5'
waitfor 'status | grep -q "\"phase\":\"watching\""' 300 && pass "11 watching" || fail "11 watching"
waitfor 'grep -q "5 fps while watching" /tmp/scand.log' 100 && pass "11 says it watches at 5 fps" || { fail "11 watch rate said"; tail -5 /tmp/scand.log; }
v4l2-ctl -d $WEB --get-parm > /tmp/parm.txt 2>&1
grep -q "Frames per second: 5.000" /tmp/parm.txt && pass "11 the driver streams at 5 fps while watching" || { fail "11 driver rate"; cat /tmp/parm.txt; }
stop_scand

########## 3. a line held by another program: reported clearly, scand keeps running
gpioset --mode=signal $CHIP 1=1 & HOLDER=$!
sleep 0.3
rm -f /tmp/status.json
start_scand
waitfor 'status | grep -q "\"camera\"" ' 300
if kill -0 $SCAND_PID 2>/dev/null && grep -q "torch line not available" /tmp/scand.log; then pass "3 held torch line reported, still running"; else fail "3 held line"; fi
status | grep -q '"torch":"unavailable"' && pass "3 torch shown unavailable" || fail "3 torch state"
stop_scand
kill $HOLDER; wait $HOLDER 2>/dev/null

########## 12. libcamera on vimc (built out of tree like gpio-sim): vimc's sensor, debayer and
# scaler through libcamera's vimc pipeline handler and IPA module, as camera.backend = "libcamera"
# takes a CSI camera. udevd runs as on a booted system: libcamera finds cameras in udev's
# database. vimc's test pattern has no code.
ifconfig lo 127.0.0.1 up
modprobe vimc
/lib/systemd/systemd-udevd --daemon 2>/dev/null
udevadm trigger --action=add --subsystem-match=media --subsystem-match=video4linux; udevadm settle -t 30
node() { for d in /sys/class/video4linux/*; do [ "$(cat $d/name)" = "$1" ] && echo /dev/${d##*/} && return; done; }
LC_ID="platform/vimc.0 Sensor B"
$SCAND probe --libcamera > /tmp/lcprobe.txt 2>&1
grep -q "^  $LC_ID" /tmp/lcprobe.txt && grep -q "control Brightness .*(camera.controls.brightness)" /tmp/lcprobe.txt \
  && pass "12 probe --libcamera lists vimc's Sensor B with its controls" || { fail "12 libcamera probe"; grep -v format /tmp/lcprobe.txt; }
rm -f /tmp/status.json
start_scand --set 'camera.backend="libcamera"' --set "camera.id=\"$LC_ID\"" --set camera.width=480 --set camera.height=360 \
  --set scan.session_timeout_ms=12000 --set 'web.listen="127.0.0.1:8080"'
waitfor 'status | grep -q "\"camera\":\"available\""' 600 && pass "12 libcamera camera available" || fail "12 libcamera camera"
api() { wget -q -O - "http://127.0.0.1:8080$1"; }
# POST name=value to /api/controls (stdin held open until the answer has come)
setcontrol() { (printf 'POST /api/controls HTTP/1.0\r\nHost: 127.0.0.1:8080\r\nContent-Length: %s\r\n\r\n%s' ${#1} "$1"; sleep 2) \
               | nc 127.0.0.1 8080; }
# Frames at the asked size: the frame scand took (the setup page's raw snapshot, a PNG: its
# IHDR gives 480 x 360), what libcamera set on vimc's capture node and its sensor (480 x 360 is
# the sensor's 160 x 120 scaled 3 times, as libcamera 0.0.3's vimc handler does).
api "/snapshot.png?raw=1" > /tmp/snap.png
[ "$(od -An -tx1 -j16 -N8 /tmp/snap.png | tr -d ' \n')" = 000001e000000168 ] && pass "12 a frame through libcamera is 480x360" \
  || { fail "12 frame size"; od -An -tx1 -N32 /tmp/snap.png; }
v4l2-ctl -d "$(node "RGB/YUV Capture")" --get-fmt-video > /tmp/lcfmt.txt 2>&1
v4l2-ctl -d "$(node "Sensor B")" --get-subdev-fmt pad=0 >> /tmp/lcfmt.txt 2>&1
grep -q "Width/Height *: 480/360" /tmp/lcfmt.txt && grep -q "'BGR3'" /tmp/lcfmt.txt && grep -q "Width/Height *: 160/120" /tmp/lcfmt.txt \
  && pass "12 vimc's capture streams BGR3 480x360 from its 160x120 sensor" || { fail "12 vimc formats"; cat /tmp/lcfmt.txt; }
# A press while libcamera streams: torch on, frames decoded, no code, the no-read outcome.
frames0=$(status | sed -n 's/.*"framesDecoded":\([0-9]*\).*/\1/p')
timeouts0=$(grep -c "timed out without a code" /tmp/scand.log)
press
waitfor '[ "$(line 1)" = 1 ]' 300 && status | grep -q '"phase":"scanning"' && pass "12 press: scanning, torch on" || fail "12 press"
# A control set while it streams, through the setup page's API: read back there and on the
# sensor (libcamera's Brightness 0.5 is vimc's V4L2 brightness 0.5 x 128 + 128).
setcontrol brightness=50 > /tmp/lcset.txt
grep -q '"value":50' /tmp/lcset.txt && pass "12 brightness set through libcamera" || { fail "12 control set"; cat /tmp/lcset.txt; }
api /api/controls | tr '{' '\n' | grep '"name":"brightness"' | grep -q '"value":50' \
  && pass "12 brightness read back" || { fail "12 control read back"; api /api/controls; }
waitfor '[ "$(v4l2-ctl -d "$(node "Sensor B")" -C brightness 2>/dev/null)" = "brightness: 192" ]' 50 \
  && pass "12 the sensor's brightness is 192" || { fail "12 sensor brightness"; v4l2-ctl -d "$(node "Sensor B")" -C brightness; }
waitfor 'status | grep -q "\"closedWithoutScan\":1"' 300 && pass "12 the session ends without a read" || fail "12 no-read"
waitfor '[ "$(line 1)" = 0 ]' 300 && status | grep -q '"phase":"idle"' && pass "12 torch off, idle again" || fail "12 after the session"
frames1=$(status | sed -n 's/.*"framesDecoded":\([0-9]*\).*/\1/p')
[ "${frames1:-0}" -gt "${frames0:-0}" ] && pass "12 the session decoded frames ($frames0 -> $frames1)" || fail "12 session frames ($frames0 -> $frames1)"
[ "$(grep -c "timed out without a code" /tmp/scand.log)" -gt "$timeouts0" ] && pass "12 the log says: timed out without a code" || fail "12 no-read log"
status | grep -q '"goodReads":0,' && pass "12 no code read from the test pattern" || fail "12 good reads"
# vimc taken away while libcamera streams (its driver unbound), and back. libcamera 0.0.3
# reports an unplugged camera only for UVC: vimc's frames just stop. scand finds the camera's
# device node removed, shows the camera disconnected, lives on (libcamera aborts in Camera::stop
# on requests a gone device never gave back: scand no longer calls it for a gone camera), and
# takes the camera again once vimc is bound.
press
waitfor 'status | grep -q "\"phase\":\"scanning\""' 300
echo vimc.0 > /sys/bus/platform/drivers/vimc/unbind
waitfor 'status | grep -q -E "\"camera\":\"(disconnected|unavailable)\""' 300 && pass "12 vimc unbound while streaming: camera disconnected" \
  || { fail "12 unbind"; status; }
waitfor '[ "$(line 1)" = 0 ]' 300 && pass "12 torch off on disconnect" || fail "12 torch off after unbind"
grep -q "was removed (driver unbound or unplugged)" /tmp/scand.log && pass "12 the log names the removed device node" \
  || { fail "12 unbind log"; tail -5 /tmp/scand.log; }
echo vimc.0 > /sys/bus/platform/drivers/vimc/bind
waitfor 'status | grep -q "\"camera\":\"available\""' 600 && kill -0 $SCAND_PID 2>/dev/null \
  && pass "12 vimc bound again: camera available, same process" || { fail "12 rebind"; status; tail -5 /tmp/scand.log; }
# A control set while idle reaches the sensor with the next start (vimc ignores the start's
# controls; the first request carries them): Brightness 0.25 is the sensor's 160.
setcontrol brightness=25 > /tmp/lcset2.txt
frames2=$(status | sed -n 's/.*"framesDecoded":\([0-9]*\).*/\1/p')
press
waitfor '[ "$(status | sed -n "s/.*\"framesDecoded\":\([0-9]*\).*/\1/p")" -gt "${frames2:-0}" ]' 300 \
  && pass "12 a press after the rebind decodes frames" || { fail "12 frames after rebind"; status; }
waitfor '[ "$(v4l2-ctl -d "$(node "Sensor B")" -C brightness 2>/dev/null)" = "brightness: 160" ]' 300 \
  && pass "12 a brightness set while idle is the sensor's 160 once streaming" || { fail "12 idle control"; v4l2-ctl -d "$(node "Sensor B")" -C brightness; cat /tmp/lcset2.txt; }
stop_scand
udevadm control --exit

cp /tmp/scand.log /mnt/scand.log
echo "DONE fails=$fails" >> /mnt/result.txt
exit $fails
