#!/usr/bin/env bash
# Man pages for scand and each subcommand, made from the argument parser's own description of
# the CLI (`scand --experimental-dump-help`) by swift-argument-parser's generate-manual tool, the
# tool behind `swift package plugin generate-manual`, built offline from the resolved checkout.
# The tool names a subcommand's page `scand.run.1`, titled "scand run"; man-db's whatis and
# lintian want the title to be the page's name, so the pages become `scand-run.1` (as git's
# `git-commit.1`): `man scand-run`, and the synopsis still reads `scand run`.
# Usage: packaging/man-pages.sh SCAND_BINARY OUTDIR   -> OUTDIR/scand.1, scand-run.1, ...
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
for page in "$out"/scand.*.1; do
  base=$(basename "$page" .1)           # scand.bench.kiosk
  name=${base//./-}                     # scand-bench-kiosk
  words=${base//./ }                    # scand bench kiosk
  title=$(tr '[:lower:]' '[:upper:]' <<<"$name")
  awk -v name="$name" -v words="$words" -v title="$title" '
      /^\.Dt / { print ".Dt " title " 1"; next }
      /^\.Sh / { section = $0 }
      section == ".Sh NAME" && /^\.Nm / { print ".Nm " name; next }
      section == ".Sh SYNOPSIS" && $0 == ".Nm" { print ".Nm \"" words "\""; next }
      { print }' "$page" > "$out/$name.1"
  rm "$page"
done
# Cross references (SEE ALSO) by the new names; a blank line of a description (between its
# paragraphs) becomes a paragraph break (groff warns of an empty input line, and lintian with it).
for page in "$out"/*.1; do
  awk '/^\.Xr scand\./ { gsub(/\./, "-", $2) } /^[[:space:]]*$/ { print ".Pp"; next } { print }' "$page" > "$page.tmp" && mv "$page.tmp" "$page"
done
