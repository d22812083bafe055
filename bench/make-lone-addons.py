#!/usr/bin/env python3
"""Lone add-ons for issue 42: an EAN-13, EAN-8 or UPC-A (zint, default options) with a lone EAN-5
(77777) or EAN-2 (12) printed just past its end but 80-110 px higher or lower, so that the two
share few of their rows or none; a code with no add-on of its own, which a read must not give one
(bench/make-addon-traps.py R4 and R5 are two such images). 96 images: each code with each add-on
at offsets of -110, -100, -90, -80, 80, 90, 100 and 110 px, twice; the add-on 6-18 px into the
code's image (zint's quiet zone), turned -6 to 6 degrees (bicubic) and scaled 0.7-1.0 (bilinear).
The same seed makes the same set. Needs zint, numpy and Pillow.

With --turned, 144 images turned all the way round instead (a tryout of stop 56 found lone
add-ons attached there): each code with each add-on, 12 px into the code's image and 80 or 90 px
higher or lower, at every 30 degrees from 0 to 330, scaled 0.7-1.0.

usage: make-lone-addons.py OUT_DIR [--seed N] [--turned]   (default seed 7)

OUT_DIR/manifest.json ("addon": "" on every record) judges them with `scand bench decode OUT_DIR
--set symbology.ean13.addon=read` (and upca, ean8)."""
import json, os, random, subprocess, sys, tempfile
import numpy as np
from PIL import Image
args = sys.argv[1:]
TURNED = "--turned" in args
if TURNED:
    args.remove("--turned")
if len(args) not in (1, 3) or args[0].startswith("-") or (len(args) == 3 and args[1] != "--seed"):
    sys.exit(__doc__)
OUT = args[0]
os.makedirs(OUT, exist_ok=True)
rnd = random.Random(int(args[2]) if len(args) == 3 else 7)
CODES = {"ean": ("EANX", "590123412345", "EAN-13", "5901234123457"), "ean8": ("EANX", "1234567", "EAN-8", "12345670"),
         "upca": ("UPCA", "72527273070", "UPC-A", "725272730706")}
ADDONS = {"e5": "77777", "e2": "12"}
images = {}
with tempfile.TemporaryDirectory() as tmp:
    for key, (barcode, data) in [(k, v[:2]) for k, v in CODES.items()] + [(k, ("EANX", v)) for k, v in ADDONS.items()]:
        path = os.path.join(tmp, key + ".png")
        subprocess.run(["zint", "-b", barcode, "-d", data, "-o", path], check=True)
        images[key] = Image.open(path).convert("L")
manifest, n = [], 0
for code in CODES:
    for addon in ADDONS:
        layouts = ([(dy, turn) for turn in range(0, 360, 30) for dy in (rnd.choice((-90, -80)), rnd.choice((80, 90)))]
                   if TURNED else [(dy, None) for dy in (-110, -100, -90, -80, 80, 90, 100, 110) for _ in range(2)])
        for dy, turn in layouts:
            main, lone = images[code], images[addon]
            x = main.size[0] + (-12 if TURNED else rnd.randint(-18, -6))
            pastes = [(main, 0, -dy), (lone, x, 0)] if dy < 0 else [(main, 0, 0), (lone, x, dy)]
            w = max(px + im.size[0] for im, px, py in pastes); h = max(py + im.size[1] for im, px, py in pastes)
            canvas = np.full((h + 80, w + 80), 255, np.uint8)
            for im, px, py in pastes:
                a = np.array(im); r = canvas[py + 40:py + 40 + a.shape[0], px + 40:px + 40 + a.shape[1]]; np.minimum(r, a, out=r)
            angle, scale = (turn if TURNED else rnd.uniform(-6, 6)), rnd.choice([0.7, 0.8, 0.9, 1.0])
            image = Image.fromarray(canvas).rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)
            if scale != 1:
                image = image.resize((int(image.size[0] * scale), int(image.size[1] * scale)), Image.BILINEAR)
            name = "lone%03d-%s-%s-dy%d%s.png" % (n, code, addon, dy, "" if turn is None else "-a%03d" % turn)
            n += 1
            image.save(os.path.join(OUT, name))
            manifest.append({"file": name, "symbology": CODES[code][2], "text": CODES[code][3], "addon": "",
                             "difficulty": "lone %s, %d px" % (addon, abs(dy)) + ("" if turn is None else ", %d deg" % turn), "size": list(image.size)})
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
print(n, "images in", OUT)
