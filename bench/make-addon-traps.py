#!/usr/bin/env python3
"""Add-on traps for issue 42: images where scand gave, or gives, a code an add-on that is not its
own (a tryout of stop 50; docs/decoding.md says which are still misread). Each image: zint PNGs
(default options) pasted (darkest-of) at (x, y) onto a white canvas, the pastes' bounding box and
40 px of white on every side; then PIL rotate(angle, BICUBIC, expand=True, fillcolor=255); then,
if scale != 1, resize((int(w*scale), int(h*scale)), BILINEAR). Needs zint, numpy and Pillow.

usage: make-addon-traps.py OUT_DIR   (prints each image's name and what it holds)

OUT_DIR/manifest.json judges them with `scand bench decode OUT_DIR --set
symbology.ean13.addon=read` (and upca, upce, ean8): each record is the image's first code with its
add-on ("" where it has none: any add-on is a misread), the other codes in `others`, each as
TEXT+ADDON (TEXT+ where it has none): another code sent with an add-on not its own is a misread."""
import json, os, subprocess, sys, tempfile
import numpy as np
from PIL import Image
if len(sys.argv) != 2 or sys.argv[1].startswith("-"):
    sys.exit(__doc__)
OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
Z = {"ean2b": ("EANX", "400638133393+47"), "ean2": ("EANX", "590123412345+12"), "upce2": ("UPCE", "0123456+12"),
     "ean": ("EANX", "590123412345"), "e5x": ("EANX", "77777"), "e2": ("EANX", "12"), "ean8": ("EANX", "1234567"),
     "isbn5": ("EANX", "9780306406157+52495"), "isbnb": ("EANX", "978186197876+77777"), "upca5": ("UPCA", "72527273070+51000"),
     "ean_b": ("EANX", "400638133393")}
TMP = tempfile.mkdtemp()
def z(k):
    p = os.path.join(TMP, "z_%s.png" % k)
    subprocess.run(["zint", "-b", Z[k][0], "-d", Z[k][1], "-o", p], check=True)
    image = Image.open(p).convert("L")
    os.remove(p)
    return image
RECORDS = {  # name: symbology, text, add-on ("": none), the other codes
 "R1-ean13p2-47": ("EAN-13", "4006381333931", "47", None), "R2-ean13p2-12": ("EAN-13", "5901234123457", "12", None),
 "R3-upcep2-12": ("UPC-E", "01234565", "12", None), "R4-ean13-lone-ean5-above-right": ("EAN-13", "5901234123457", "", None),
 "R5-ean8-lone-ean2-below-right": ("EAN-8", "12345670", "", None),
 "R6-isbn-lone-ean5-below-addon": ("EAN-13", "9780306406157", "52495", None),
 "R7-two-isbn-stacked": ("EAN-13", "9780306406157", "52495", ["9781861978769+77777"]),
 "R8-isbn-over-upca5": ("EAN-13", "9780306406157", "52495", ["725272730706+51000"]),
 "R9-ean13p2-over-ean13": ("EAN-13", "5901234123457", "12", ["4006381333931+"]),
}
CASES = [  # name, pastes, angle, scale, expected
 ("R1-ean13p2-47", [("ean2b", 0, 0)], 0, 0.70, "EAN-13 4006381333931 + 47"),
 ("R2-ean13p2-12", [("ean2", 0, 0)], 7.0, 0.75, "EAN-13 5901234123457 + 12"),
 ("R3-upcep2-12", [("upce2", 0, 0)], 14, 0.70, "UPC-E 01234565 + 12"),
 ("R4-ean13-lone-ean5-above-right", [("ean", 0, 100), ("e5x", 212, 0)], 0, 1.0, "EAN-13 5901234123457, no add-on"),
 ("R5-ean8-lone-ean2-below-right", [("ean8", 0, 0), ("e2", 148, 105)], 0, 1.0, "EAN-8 12345670, no add-on"),
 ("R6-isbn-lone-ean5-below-addon", [("isbn5", 0, 0), ("e5x", 212, 112)], 150, 0.75, "ISBN 9780306406157 + 52495 (or none)"),
 ("R7-two-isbn-stacked", [("isbn5", 0, 0), ("isbnb", 0, 120)], 255, 0.75, "9780306406157+52495, 9781861978769+77777"),
 ("R8-isbn-over-upca5", [("isbn5", 0, 0), ("upca5", 0, 118)], 60, 1.0, "9780306406157+52495, UPC-A 725272730706+51000"),
 ("R9-ean13p2-over-ean13", [("ean2", 0, 0), ("ean_b", 0, 122)], 6, 0.75, "5901234123457+12, 4006381333931"),
]
for name, pastes, angle, scale, exp in CASES:
    ims = [(z(k), x, y) for k, x, y in pastes]
    W = max(x + im.size[0] for im, x, y in ims); H = max(y + im.size[1] for im, x, y in ims)
    c = np.full((H + 80, W + 80), 255, np.uint8)
    for im, x, y in ims:
        a = np.array(im); r = c[y + 40:y + 40 + a.shape[0], x + 40:x + 40 + a.shape[1]]; np.minimum(r, a, out=r)
    img = Image.fromarray(c).rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)
    if scale != 1.0:
        img = img.resize((int(img.size[0] * scale), int(img.size[1] * scale)), Image.BILINEAR)
    img.save(os.path.join(OUT, name + ".png")); print(name + ".png", "expected:", exp)
manifest = []
for name, _, _, _, _ in CASES:
    symbology, text, addon, others = RECORDS[name]
    record = {"file": name + ".png", "symbology": symbology, "text": text, "addon": addon, "difficulty": name.split("-")[0]}
    if others:
        record["others"] = others
    manifest.append(record)
with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(manifest, f, indent=1)
os.rmdir(TMP)
