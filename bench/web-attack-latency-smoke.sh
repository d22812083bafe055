#!/usr/bin/env bash
# Sanity check of bench/web-attack-latency.py (not a test, not timed): one run with 3 sessions
# a phase against a built scand; passes when it exits 0, reports every phase and each phase read.
# Usage: bench/web-attack-latency-smoke.sh [SCAND] [more arguments for the bench]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-.build/debug/scand}
shift || true
out=$(mktemp)
trap 'rm -f "$out"' EXIT
python3 bench/web-attack-latency.py --scand "$bin" --sessions 3 --json "$@" >"$out"
python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
names = [p["phase"] for p in r["phases"]]
want = ["baseline", "huge-lines", "half-open", "warm-baseline", "stalled-viewers", "header-flood", "baseline-end"]
assert names == want, "phases: %s" % names
for p in r["phases"]:
    assert p["reads"] > 0 and p["median_ms"] is not None, "%s read nothing" % p["phase"]
    assert p["daemon_cpu_s"] is not None and p["rss_kb"]["max"], "%s: no CPU or RSS figures" % p["phase"]
    assert p["attack"] is None or p["attacker"], "%s: no attack counts" % p["phase"]
print("web-attack-latency smoke: ok, %d phases, medians %s ms" % (
    len(names), " ".join("%.0f" % p["median_ms"] for p in r["phases"])))
PY
