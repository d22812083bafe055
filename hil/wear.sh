#!/usr/bin/env bash
# The outbox's wear, measured on the host: `scand run` of the demo board (config/demo.toml, its
# outbox in a fresh folder) under strace, first idle, then with a press every PRESS seconds;
# every write, fsync and rename on a file in the outbox folder is counted, and the results are
# counted from the log. The simulated serial port's host end is read by cat (as a host would).
#
# usage: hil/wear.sh [SECONDS [PRESS]]   (default 30 s each, a press every 0.5 s)
#        SCAND=path/to/scand (default .build/release/scand, else .build/debug/scand)
#        SET="key=value ..." extra --set overrides (e.g. SET='output.serial.ack=true output.serial.format="json"')
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-30}; PRESS=${2:-0.5}
SCAND=${SCAND:-$( [ -x .build/release/scand ] && echo .build/release/scand || echo .build/debug/scand )}
command -v strace >/dev/null || { echo "wear: needs strace (apt-get install strace)"; exit 1; }
D=$(mktemp -d /tmp/scand-wear.XXXXXX)
trap 'rm -rf "$D"' EXIT
sets=(--set "outbox.directory=\"$D/state\"" --set "control.socket=\"$D/control.sock\"" --set 'web.listen=""')
for s in ${SET:-}; do sets+=(--set "$s"); done

measure() { # measure LABEL [--press-every N]
  local label=$1; shift
  rm -f "$D"/trace* "$D/log"
  strace -f -ff -ttt -y -qq -e trace=openat,write,pwrite64,fsync,fdatasync,rename,renameat,renameat2 -o "$D/trace" \
    "$SCAND" run --config config/demo.toml "${sets[@]}" --no-stdin "$@" > "$D/log" 2>&1 &
  local pid=$!
  # The host end of the simulated serial port, read as a host would read it.
  local pty="" i=0
  while [ -z "$pty" ] && [ $i -lt 300 ]; do pty=$(sed -n 's/.*the host end is \(\/dev\/pts\/[0-9]*\).*/\1/p' "$D/log" | head -1); sleep 0.1; i=$((i + 1)); done
  [ -n "$pty" ] && { cat "$pty" > "$D/serial" 2>/dev/null & } ; local cat_pid=$!
  i=0; while ! grep -q "camera available" "$D/log" && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  # Start-up (reading and compacting the outbox) is left out: from here on.
  local from; from=$(date +%s.%N); local reads0; reads0=$(grep -c "\] read " "$D/log" || true)
  sleep "$SECONDS_EACH"
  local to; to=$(date +%s.%N); local reads1; reads1=$(grep -c "\] read " "$D/log" || true)
  # SIGTERM to scand itself (strace, its parent, ends with it).
  kill -TERM "$(pgrep -P $pid -x scand)"; wait $pid 2>/dev/null || true
  kill $cat_pid 2>/dev/null || true
  cat "$D"/trace.* | awk -v from="$from" -v to="$to" '$1 >= from && $1 < to' | awk -v dir="$D/state" -v label="$label" -v secs="$SECONDS_EACH" -v results=$((reads1 - reads0)) '
    index($0, dir) && /(write|pwrite64)\(/ { n = $0; sub(/.*= /, "", n); if (n + 0 > 0) { writes++; bytes += n } }
    index($0, dir) && /fsync\(|fdatasync\(/ { syncs++ }
    index($0, dir) && /rename/ { renames++ }
    index($0, dir) && /openat\(/ { opens++ }
    END {
      printf "%s, %d s: %d result(s); outbox folder: %d write(s), %d byte(s), %d fsync(s), %d open(s), %d rename(s)\n",
             label, secs, results, writes, bytes, syncs, opens, renames
      if (results > 0) printf "  per result: %.1f write(s), %.0f byte(s), %.2f fsync(s)\n", writes / results, bytes / results, syncs / results
    }'
}
measure idle
measure "scanning (a press every $PRESS s)" --press-every "$PRESS"
