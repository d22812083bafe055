#!/usr/bin/env python3
"""zxing-cpp from PyPI, in-process, over a corpus folder: the outside reference of
`scand bench decode` (issue 18). One JSON line per manifest record, in its order:
{"file", "ms", "results": [{"text", "hex"}]} or {"file", "error"}. The time is the decode call
alone (the image is loaded and made gray before the clock starts, as scand's bench does), with
zxing-cpp's defaults: every format, try_rotate, try_downscale, try_invert. With --repeat N each
image is decoded N times and the fastest time counts (as `scand bench decode --repeat N` does).
With --cpu the time is the process's CPU time instead of the elapsed time (`--clock cpu`).

usage: zxingcpp_reference.py CORPUS [--repeat N] [--cpu]   (bench/setup-zxing-cpp.sh installs it in a venv)
"""
import importlib.metadata
import json
import sys
import time

import zxingcpp
from PIL import Image


def main(corpus, repeat=1, timer=time.perf_counter):
    with open(corpus + "/manifest.json") as f:
        records = json.load(f)
    print(json.dumps({"version": importlib.metadata.version("zxing-cpp")}), flush=True)
    for record in records:
        path = corpus + "/" + record["file"]
        try:
            with Image.open(path) as image:
                gray = image.convert("L")
                gray.load()
        except Exception as error:  # an unreadable file is a miss, not the end of the run
            print(json.dumps({"file": record["file"], "error": str(error)}), flush=True)
            continue
        ms = float("inf")
        for _ in range(repeat):
            start = timer()
            found = zxingcpp.read_barcodes(gray, text_mode=zxingcpp.TextMode.Plain)
            ms = min(ms, (timer() - start) * 1000)
        results = [{"text": b.text, "hex": bytes(b.bytes).hex()} for b in found]
        print(json.dumps({"file": record["file"], "ms": ms, "results": results}), flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    timer = time.perf_counter
    if "--cpu" in args:
        args.remove("--cpu")
        timer = time.process_time
    repeat = 1
    if len(args) == 3 and args[1] == "--repeat" and args[2].isdigit() and 1 <= int(args[2]) <= 100:
        repeat = int(args[2])
        args = args[:1]
    if len(args) != 1:
        sys.exit(__doc__)
    main(args[0], repeat, timer)
