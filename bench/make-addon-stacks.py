#!/usr/bin/env python3
"""Touching stacks for issue 42: two EAN/UPC codes printed one over the other with no white
between them (the lower code's top touches the upper code's digits), turned every 15 degrees.
A tryout of stop 56 found add-ons given to the neighbouring code in such stacks, and none with
8 px of white between them. Each image: zint PNGs (default options), the upper at (0, 0), the
lower at (0, upper's height + GAP; a negative GAP lays the lower code's top over the upper's
digits), darkest-of on a white canvas with 40 px of white on every
side; PIL rotate(angle, BICUBIC, expand=True, fillcolor=255); resize by the scale (BILINEAR);
GaussianBlur(blur) where blur > 0. Five pairs, 24 turns each: 120 images. The same seed makes
the same set. Needs zint, numpy and Pillow.

usage: make-addon-stacks.py OUT_DIR [--seed N] [--gap PX]   (default seed 11, gap 0)

OUT_DIR/manifest.json judges them with `scand bench decode OUT_DIR --set
symbology.ean13.addon=read` (and upca, upce, ean8): each record is the upper code with its own
add-on ("" where it has none), the lower code in `others` as TEXT+ADDON (TEXT+ where it has
none): a code sent with an add-on not its own is a misread."""
import json, os, random, subprocess, sys, tempfile
import numpy as np
from PIL import Image, ImageFilter
args = sys.argv[1:]
if not args or args[0].startswith("-") or len(args) % 2 != 1 or any(a not in ("--seed", "--gap") for a in args[1::2]):
    sys.exit(__doc__)
OUT = args[0]
options = dict(zip(args[1::2], map(int, args[2::2])))
rnd, GAP = random.Random(options.get("--seed", 11)), options.get("--gap", 0)
os.makedirs(OUT, exist_ok=True)
CODES = {  # key: zint symbology, zint data, symbology, text, add-on
    "isbn5": ("EANX", "9780306406157+52495", "EAN-13", "9780306406157", "52495"),
    "ean": ("EANX", "590123412345", "EAN-13", "5901234123457", ""),
    "ean2": ("EANX", "400638133393+47", "EAN-13", "4006381333931", "47"),
    "upca5": ("UPCA", "72527273070+51000", "UPC-A", "725272730706", "51000"),
    "ean8": ("EANX", "1234567", "EAN-8", "12345670", ""),
}
PAIRS = [("isbn5", "ean"), ("ean2", "ean"), ("isbn5", "ean2"), ("ean", "upca5"), ("ean8", "isbn5")]
images = {}
with tempfile.TemporaryDirectory() as tmp:
    for key, (barcode, data, *_) in CODES.items():
        path = os.path.join(tmp, key + ".png")
        subprocess.run(["zint", "-b", barcode, "-d", data, "-o", path], check=True)
        images[key] = Image.open(path).convert("L")
manifest = []
for upper, lower in PAIRS:
    for angle in range(0, 360, 15):
        a, b = np.array(images[upper]), np.array(images[lower])
        y = a.shape[0] + GAP
        canvas = np.full((y + b.shape[0] + 80, max(a.shape[1], b.shape[1]) + 80), 255, np.uint8)
        for im, top in ((a, 0), (b, y)):
            r = canvas[top + 40:top + 40 + im.shape[0], 40:40 + im.shape[1]]; np.minimum(r, im, out=r)
        scale, blur = rnd.choice([0.6, 0.7, 0.8, 1.0]), rnd.choice([0, 0, 0.7, 1.0])
        image = Image.fromarray(canvas).rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)
        if scale != 1:
            image = image.resize((int(image.size[0] * scale), int(image.size[1] * scale)), Image.BILINEAR)
        if blur:
            image = image.filter(ImageFilter.GaussianBlur(blur))
        name = "stack%03d-%s-over-%s-a%03d.png" % (len(manifest), upper, lower, angle)
        image.save(os.path.join(OUT, name))
        u, l = CODES[upper], CODES[lower]
        manifest.append({"file": name, "symbology": u[2], "text": u[3], "addon": u[4], "others": [l[3] + "+" + l[4]],
                         "difficulty": "%s over %s" % (upper, lower),
                         "size": list(image.size)})
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
print(len(manifest), "images in", OUT)
