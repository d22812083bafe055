#!/usr/bin/env bash
# Builds scand's fuzz targets (libFuzzer + AddressSanitizer, from Tests/Fuzz/FuzzTargets.swift
# and the modules they reach) and runs each for a while over its committed seed corpus.
#   scripts/fuzz.sh [--seconds N] [--targets toml,config,...] [--jobs J]
# Prints per target the executions and crashes, then `fuzz: T targets, E executions, C crashes`;
# exits 1 when anything crashed (the input is kept in .build-fuzz/artifacts/). Findings worth
# keeping go into Tests/Fuzz/corpus/<target>/ and a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=30
targets="toml config set host payload gs1 format outbox image frame json mqtturl web httphead httpreq"
jobs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --targets) targets=${2//,/ }; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "usage: scripts/fuzz.sh [--seconds N] [--targets a,b] [--jobs J]" >&2; exit 64 ;;
  esac
done

B=.build-fuzz
mkdir -p "$B/mod" "$B/cmod" "$B/artifacts"
# -j 2: the driver compiles a module's files in two frontend jobs (the build: 210 -> about 150 s).
san=(-sanitize=fuzzer,address -parse-as-library -O -g -j 2 -I "$B/mod" -I "$B/cmod")
stamp="$B/stamp"
# Delivery's pure parts (formats, the HID tables, the outbox reader) as a module of their own:
# the rest of Delivery needs swift-log, which these targets do without.
delivery="Sources/Delivery/OutputFormat.swift Sources/Delivery/PayloadLogging.swift Sources/Delivery/HIDKeyboard.swift Sources/Delivery/OutboxLog.swift Sources/Delivery/AckWindow.swift"
sources=$(ls Sources/POSIX/*.swift Sources/ScanCore/*.swift Sources/ScanHardware/*.swift Sources/ScanConfig/*.swift Sources/ImageLoading/*.swift $delivery Sources/SetupPage/WebRules.swift Sources/SetupPage/RequestHeadLimits.swift \
  Sources/CImageCodecs/*.c Sources/CImageCodecs/include/*.h Sources/Decoding/ContrastGate.swift Sources/Decoding/RegionFinder.swift Sources/Decoding/EdgeCells.swift Sources/Decoding/IntegralImage.swift \
  Sources/Decoding/AztecGrid.swift Sources/Decoding/AztecRune.swift Sources/Decoding/DataMatrixGrid.swift Sources/Decoding/DataMatrixGeometry.swift Sources/Decoding/BarRun.swift Sources/Decoding/BarcodeDecoder.swift \
  Sources/Decoding/EdgeSpread.swift Sources/Decoding/FrameCondition.swift Sources/Decoding/PlaneDeconvolution.swift Tests/Fuzz/*.swift scripts/fuzz.sh)
if [ ! -x "$B/scand-fuzz" ] || [ -n "$(find $sources -newer "$stamp" 2>/dev/null | head -1)" ]; then
  echo "fuzz: building the targets"
  module() {
    local name=$1; shift
    local files=("$@")
    [ ${#files[@]} -gt 0 ] || files=(Sources/"$name"/*.swift)
    swiftc "${san[@]}" -module-name "$name" -emit-module -emit-module-path "$B/mod/$name.swiftmodule" \
      -emit-library -static -o "$B/lib$name.a" "${files[@]}" 2> >(grep -v "Cannot export local symbol" >&2)
  }
  cat > "$B/cmod/module.modulemap" <<MAP
module CImageCodecs {
    header "$PWD/Sources/CImageCodecs/include/scand_codecs.h"
    export *
}
MAP
  clang -O1 -g -fsanitize=fuzzer-no-link,address -I Sources/CImageCodecs/include -c Sources/CImageCodecs/codecs.c -o "$B/codecs.o"
  module POSIX
  module ScanHardware
  module ScanCore
  module Delivery $delivery
  module ScanConfig
  module ImageLoading
  swiftc "${san[@]}" -module-name ScanFuzz Tests/Fuzz/FuzzTargets.swift Sources/SetupPage/WebRules.swift Sources/SetupPage/RequestHeadLimits.swift Sources/Decoding/ContrastGate.swift Sources/Decoding/RegionFinder.swift Sources/Decoding/EdgeCells.swift \
    Sources/Decoding/IntegralImage.swift Sources/Decoding/AztecGrid.swift Sources/Decoding/AztecRune.swift Sources/Decoding/DataMatrixGrid.swift Sources/Decoding/DataMatrixGeometry.swift Sources/Decoding/BarRun.swift \
    Sources/Decoding/BarcodeDecoder.swift Sources/Decoding/EdgeSpread.swift Sources/Decoding/FrameCondition.swift Sources/Decoding/PlaneDeconvolution.swift -L "$B" \
    -lImageLoading -lScanConfig -lDelivery -lScanCore -lScanHardware -lPOSIX "$B/codecs.o" -lpng16 -ljpeg -o "$B/scand-fuzz" \
    2> >(grep -v "Cannot export local symbol" >&2)
  touch "$stamp"
fi

total_runs=0; total_crashes=0; count=0
for t in $targets; do
  seeds="Tests/Fuzz/corpus/$t"
  [ -d "$seeds" ] || { echo "fuzz: no seed corpus $seeds" >&2; exit 1; }
  work="$B/corpus/$t"
  mkdir -p "$work"
  max_len=4096
  [ "$t" = image ] && max_len=200000
  log="$B/$t.log"
  parallel=()
  # libFuzzer's -jobs mode writes fuzz-N.log into the current folder: run it from $B.
  [ "$jobs" -gt 1 ] && parallel=(-jobs="$jobs" -workers="$jobs")
  set +e
  (cd "$B" && SCAND_FUZZ_TARGET=$t ASAN_OPTIONS=detect_leaks=0 ./scand-fuzz -max_total_time="$seconds" -max_len=$max_len \
    -timeout=10 -rss_limit_mb=3072 "${parallel[@]}" -print_final_stats=1 \
    -artifact_prefix="artifacts/$t-" "corpus/$t" "../$seeds" >"$t.log" 2>&1)
  rc=$?
  set -e
  runs=$({ cat "$log"; cat "$B"/fuzz-*.log 2>/dev/null || true; } | awk '/stat::number_of_executed_units/ {s+=$2} END {print s+0}')
  rm -f "$B"/fuzz-*.log
  crashes=0
  if [ $rc -ne 0 ]; then crashes=1; echo "fuzz: $t CRASHED (exit $rc), see $log and $B/artifacts/"; grep -m3 -E "ERROR|invariant|Fatal" "$log" || true; fi
  echo "fuzz: $t: $runs executions in ${seconds}s, corpus $(ls "$work" | wc -l) inputs, $crashes crashes"
  total_runs=$((total_runs + runs)); total_crashes=$((total_crashes + crashes)); count=$((count + 1))
done
echo "fuzz: $count targets, $total_runs executions, $total_crashes crashes"
[ "$total_crashes" -eq 0 ]
