#!/usr/bin/env bash
# A simulated fleet on one broker (issue 17): N `scand run` processes on simulated hardware (the
# demo config: its sample images at 15 fps, a press every 200 ms each) publishing to one local
# mosquitto; a subscriber with a persistent session counts per kiosk. Halfway through, the broker
# is restarted once. At the end the daemons are stopped (SIGTERM), their results counted from
# their status files, and what arrived compared.
#   bench/fleet.sh N SECONDS      e.g. bench/fleet.sh 50 60
# IMAGES and FPS change what the simulated cameras play (default: the demo's samples/ at 15 fps);
# on a 2-core machine 50 and more daemons decoding the demo's images at 15 fps saturate the
# CPU, so that a press every 200 ms cancels each session before it reads: use e.g.
# IMAGES=Tests/Fixtures/qr.png FPS=5 to load the broker path rather than the decoders.
# Prints results per second received, loss (must be 0), duplicates, and the CPU (% of one core
# over the run) and memory (RSS at the end) of the broker and of the daemons.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:?usage: bench/fleet.sh N SECONDS}
seconds=${2:?usage: bench/fleet.sh N SECONDS}
scand=${SCAND:-.build/release/scand}
[ -x "$scand" ] || swift build -c release --product scand >/dev/null
command -v mosquitto >/dev/null || scripts/setup.sh
images=$(realpath "${IMAGES:-samples/}")
[ -d "$images" ] && images="$images/"
fps=${FPS:-15}
work=$(mktemp -d /tmp/scand-fleet.XXXXXX)
chmod 777 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  [ -n "${broker:-}" ] && kill "$broker" 2>/dev/null || true
  [ -n "${sub:-}" ] && kill "$sub" 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > "$work/mosquitto.conf" <<EOF
listener $port 127.0.0.1
allow_anonymous true
persistence true
persistence_location $work/
autosave_interval 1
max_queued_messages 100000
EOF
ticks=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
start_broker() {
  mosquitto -c "$work/mosquitto.conf" >/dev/null 2>&1 &
  broker=$!
  for _ in $(seq 200); do (echo > /dev/tcp/127.0.0.1/$port) 2>/dev/null && return; sleep 0.05; done
  echo "fleet: mosquitto did not start" >&2; exit 1
}
start_broker
mosquitto_sub -h 127.0.0.1 -p "$port" -t 'fleet/+/result' -v -q 1 -c -i fleet-counter > "$work/received.txt" 2>/dev/null &
sub=$!
sleep 0.3
for i in $(seq "$n"); do
  mkdir -p "$work/k$i"
  "$scand" run --config config/demo.toml --no-stdin --press-every 0.2 \
    --set "camera.images=[\"$images\"]" --set "camera.fps=$fps" --set 'output.serial.device=""' --set log_level=${LOG:-error} \
    --set "outbox.directory=$work/k$i/outbox" --set "status.file=$work/k$i/status.json" \
    --set "output.mqtt.url=mqtt://127.0.0.1:$port" --set "output.mqtt.client_id=k$i" --set "output.mqtt.topic_prefix=fleet/k$i" \
    2> "$work/k$i/log" &
  pids+=($!)
done
start=$(date +%s.%N)
half=$(python3 -c "print($seconds / 2)")
sleep "$half"
broker_cpu_1=$(cpu "$broker")
kill "$broker"; wait "$broker" 2>/dev/null || true
sleep 2   # the broker away for 2 s: results wait in the outboxes
start_broker
sleep "$(python3 -c "print(max(1, $seconds / 2 - 2))")"
broker_rss=$(rss "$broker")
daemon_cpu=(); daemon_rss=()
elapsed=$(python3 -c "import time; print(time.time() - $start)")
for p in "${pids[@]}"; do daemon_cpu+=("$(cpu "$p")"); daemon_rss+=("$(rss "$p")"); done
for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
# What was kept when the daemons stopped is sent by the next start: start each once more,
# without presses, until its outbox is empty (a restart loses nothing either).
pending=0
for i in $(seq "$n"); do
  left=$(python3 -c "import json; print(json.load(open('$work/k$i/status.json')).get('pendingResults', 0))" 2>/dev/null || echo 0)
  pending=$((pending + left))
done
if [ "$pending" -gt 0 ]; then
  echo "fleet: $pending result(s) were still in outboxes at the stop; restarting those daemons to send them"
  for i in $(seq "$n"); do
    cp "$work/k$i/status.json" "$work/k$i/status-run.json"
    "$scand" run --config config/demo.toml --no-stdin --set "camera.images=[\"$images\"]" --set 'output.serial.device=""' \
      --set log_level=error --set "outbox.directory=$work/k$i/outbox" --set "status.file=$work/k$i/status-drain.json" \
      --set "output.mqtt.url=mqtt://127.0.0.1:$port" --set "output.mqtt.client_id=k$i" --set "output.mqtt.topic_prefix=fleet/k$i" \
      2>> "$work/k$i/log" &
    pids+=($!)
  done
  sleep 5
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  for i in $(seq "$n"); do mv "$work/k$i/status-run.json" "$work/k$i/status.json"; done
fi
sleep 2
broker_cpu_2=$(cpu "$broker")
python3 - "$work" "$n" "$elapsed" "$ticks" "$broker_cpu_1" "$broker_cpu_2" "$broker_rss" "${daemon_cpu[*]}" "${daemon_rss[*]}" "$images at $fps fps" <<'EOF'
import json, sys, collections
work, n, elapsed, ticks = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
b1, b2, brss = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
dcpu = [int(x) for x in sys.argv[8].split()]
drss = [int(x) for x in sys.argv[9].split()]
got = collections.defaultdict(list)
for line in open(f"{work}/received.txt", errors="replace"):
    topic, _, payload = line.partition(" ")
    try: got[topic.split("/")[1]].append(json.loads(payload)["seq"])
    except Exception: pass
sent = lost = dupes = received = disorder = 0
for i in range(1, n + 1):
    k = f"k{i}"
    reads = json.load(open(f"{work}/{k}/status.json"))["goodReads"]
    seqs = got.get(k, [])
    unique = set(seqs)
    sent += reads
    received += len(unique)
    lost += len(set(range(1, reads + 1)) - unique)
    dupes += len(seqs) - len(unique)
    firsts = []
    seen = set()
    for s in seqs:
        if s not in seen: seen.add(s); firsts.append(s)
    disorder += sum(1 for a, b in zip(firsts, firsts[1:]) if b < a)
print(f"fleet of {n} kiosks, {elapsed:.1f} s, broker restarted once (2 s away) halfway; cameras: {sys.argv[10]}")
print(f"results: {sent} read, {received} received = {received / elapsed:.1f}/s; lost {lost}; duplicates {dupes}; out of order {disorder}")
print(f"broker: CPU {100 * (b1 + b2) / ticks / elapsed:.1f} % of one core, RSS {brss / 1024:.1f} MiB (after its restart)")
avg = sum(dcpu) / len(dcpu)
print(f"daemons: CPU {100 * avg / ticks / elapsed:.1f} % of one core each on average (max {100 * max(dcpu) / ticks / elapsed:.1f} %), "
      f"RSS {sum(drss) / len(drss) / 1024:.1f} MiB average (max {max(drss) / 1024:.1f} MiB); machine: 2 cores")
sys.exit(1 if lost else 0)
EOF
