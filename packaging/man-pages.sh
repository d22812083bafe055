#!/usr/bin/env bash
# Man pages for scand and each subcommand, made from the argument parser's own description of
# the CLI (`scand --experimental-dump-help`) by swift-argument-parser's generate-manual tool, the
# tool behind `swift package plugin generate-manual`, built offline from the resolved checkout.
# Usage: packaging/man-pages.sh SCAND_BINARY OUTDIR   -> OUTDIR/scand.1, scand.run.1, ...
set -euo pipefail
cd "$(dirname "$0")/.."
scand=$1 out=$2
swift build -c release --product generate-manual >/dev/null
mkdir -p "$out"
# The date of the last commit, so that a rebuild of the same source makes the same pages.
date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
.build/release/generate-manual "$scand" --multi-page --section 1 --date "$date" \
    --authors "scand maintainers<maintainers@scand.example.org>" --output-directory "$out"
[ -f "$out/scand.1" ] || { echo "man-pages: no scand.1 in $out" >&2; exit 1; }
