#!/usr/bin/env bash
# Idle cost of `scand run` on the demo config: CPU seconds over SECONDS (default 60) with no
# press, and resident memory at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
bin=${SCAND:-.build/release/scand}
"$bin" run --config config/demo.toml --no-stdin 2>/dev/null &
pid=$!
sleep 2
read -r u0 s0 < <(awk '{print $14, $15}' /proc/$pid/stat)
sleep "$secs"
read -r u1 s1 < <(awk '{print $14, $15}' /proc/$pid/stat)
rss=$(awk '/VmRSS/ {print $2, $3}' /proc/$pid/status)
kill -TERM $pid; wait $pid || true
tick=$(getconf CLK_TCK)
echo "idle ${secs}s: cpu $(( (u1 - u0 + s1 - s0) * 1000 / tick )) ms (user $(( (u1-u0)*1000/tick )) ms, sys $(( (s1-s0)*1000/tick )) ms), rss $rss"
