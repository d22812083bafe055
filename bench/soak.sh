#!/usr/bin/env bash
# A real-time soak of `scand run` on simulated hardware: the demo's camera, a press every 0.2 s,
# the serial port a socat pty pair whose host end sends a SET and a STATUS every second and
# reads the answers, an event-socket client, the outbox on disk. Samples the daemon's resident
# memory every INTERVAL seconds into OUT (CSV: seconds,rss_kb,good_reads) and prints the curve's
# summary. Usage: bench/soak.sh [SECONDS=3600] [INTERVAL=30] [OUT=soak-rss.csv]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-3600}; interval=${2:-30}; out=${3:-soak-rss.csv}
bin=${SCAND_BIN:-.build/release/scand}
[ -x "$bin" ] || swift build -c release --product scand
dir=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
socat pty,raw,echo=0,link="$dir/host" pty,raw,echo=0,link="$dir/tty" & pids+=($!)
for _ in $(seq 50); do [ -e "$dir/tty" ] && break; sleep 0.1; done
"$bin" run --config config/demo.toml --no-stdin --press-every 0.2 --set output.serial.device="$dir/tty" \
  --set outbox.directory="$dir" --set events.socket="$dir/events.sock" --set status.file="$dir/status.json" \
  --set log_level=warning 2>"$dir/log" & daemon=$!; pids+=($daemon)
sleep 2
socat -u UNIX-CONNECT:"$dir/events.sock" - >/dev/null 2>&1 & pids+=($!)
( i=0; while true; do printf 'SET scan.session_timeout_ms=%d\r\nSTATUS\r\n' $((5000 + i % 50)); i=$((i + 1)); sleep 1; done ) >"$dir/host" & pids+=($!)
cat "$dir/host" >/dev/null & pids+=($!)
echo "seconds,rss_kb,good_reads" >"$out"
start=$(date +%s)
while :; do
  now=$(( $(date +%s) - start ))
  kill -0 "$daemon" 2>/dev/null || { echo "soak: the daemon died after ${now}s"; tail -20 "$dir/log"; exit 1; }
  rss=$(awk '/VmRSS/ {print $2}' /proc/$daemon/status)
  reads=$(grep -o '"goodReads":[0-9]*' "$dir/status.json" 2>/dev/null | cut -d: -f2)
  echo "$now,$rss,${reads:-0}" >>"$out"
  [ "$now" -ge "$seconds" ] && break
  sleep "$interval"
done
awk -F, 'NR==2 {first=$2} NR>1 {if (min==""||$2<min) min=$2; if ($2>max) max=$2; last=$2; reads=$3; n++}
  END {printf "soak: %d samples; RSS first %d kB, min %d, max %d, last %d (%+d kB); %d good reads\n", n, first, min, max, last, last-first, reads}' "$out"
