#!/usr/bin/env python3
"""Decodes a corpus folder with `scand decode --json` (one process) and with zbarimg (one process
per image, as people run it), in the same run, and prints correct reads, misreads and times.

usage: bench/scenes-vs-zbarimg.py [SCAND] [CORPUS_DIR]
"""
import json, statistics, subprocess, sys, time, os

from gs1 import upce_to_upca

scand = sys.argv[1] if len(sys.argv) > 1 else ".build/release/scand"
corpus = sys.argv[2] if len(sys.argv) > 2 else "../shared/corpus/scenes"
manifest = json.load(open(os.path.join(corpus, "manifest.json")))

def correct(record, symbology, text):
    want = record["text"]
    if want is None:
        return False
    if text == want:
        return True
    # UPC-A / UPC-E: the short form or the EAN-13 expansion both count.
    forms = {text, "0" + text}
    expanded = upce_to_upca(text)
    if expanded:
        forms |= {expanded, "0" + expanded}
    return record["symbology"] in ("UPC-A", "UPC-E") and (want in forms or "0" + want in forms)

files = [os.path.join(corpus, r["file"]) for r in manifest]
t0 = time.monotonic()
out = subprocess.run([scand, "decode", "--json", *files], capture_output=True, text=True).stdout
scand_wall = time.monotonic() - t0
lines = [json.loads(l) for l in out.splitlines()]
assert [l["file"] for l in lines] == files

def tally(results):
    ok = mis = 0
    for record, symbols in zip(manifest, results):
        hits = [correct(record, s, t) for s, t in symbols]
        if any(hits): ok += 1
        elif symbols: mis += 1
    return ok, mis

scand_results = [[(s["symbology"], s["text"]) for s in l["symbols"]] for l in lines]
scand_ms = [l["ms"] for l in lines]

zbar_results, zbar_ms = [], []
for f in files:
    t = time.monotonic()
    p = subprocess.run(["zbarimg", "--nodbus", "-q", "--raw", f], capture_output=True)
    zbar_ms.append((time.monotonic() - t) * 1000)
    text = p.stdout.decode("utf-8", "replace")
    zbar_results.append([("?", x) for x in text.split("\n") if x])

ok, mis = tally(scand_results)
zok, zmis = tally(zbar_results)
n = len(manifest)
print(f"corpus {corpus}: {n} images")
print(f"scand decode (one process): {ok}/{n} correct, {mis} misreads, median {statistics.median(scand_ms):.1f} ms/image decode, "
      f"{scand_wall * 1000 / n:.1f} ms/image wall incl. load")
print(f"zbarimg (process per image): {zok}/{n} correct, {zmis} misreads, median {statistics.median(zbar_ms):.1f} ms/image wall")
print(f"ratio zbarimg/scand wall per image: {statistics.median(zbar_ms) / (scand_wall * 1000 / n):.2f}x")
