#!/usr/bin/env python3
"""Labels over labels for issue 42, as a tryout of stop 58 made them: pairs of random EAN-13 and
UPC-A codes drawn by zint (modules of 2 to 4 px, bars 20-60 modules tall, digits shown or not,
one in five pairs with an EAN-2 or EAN-5 on one code), the lower code 0-20 px over the upper one
and up to 6 modules aside, overprinted (darkest of, 3 in 4) or pasted over as an opaque label;
then at random turned any way, in perspective, on a cluttered grey ground, blurred and shrunk.
Seed 5858 (320 images) held 4 pairs that the pipeline answered with an EAN/UPC of neither code
(0006, 0007, 0180, 0215: reads mixing one code's digits with bars where the two overlap), an
ITF 122544 read from two crossed codes (0064) and an add-on given to the other code (0211,
with addon=read). Needs zint, numpy and Pillow (scripts/setup.sh).

usage: make-stacked-labels.py OUT_DIR COUNT SEED
writes OUT_DIR/NNNN.png and OUT_DIR/manifest.json for `scand bench decode OUT_DIR` (add
`--set symbology.ean13.addon=read --set symbology.upca.addon=read` to judge the add-ons): each
record is the upper code (with its add-on, "" where it has none), the lower in `others` as
TEXT+ADDON, and `difficulty` says how the lower code lies (overprinted or pasted over) and
the module."""
import json, os, random, subprocess, sys, tempfile
import numpy as np
import imagewarp
from PIL import Image, ImageFilter, ImageDraw

if len(sys.argv) != 4 or sys.argv[1].startswith("-"):
    sys.exit(__doc__)
out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(out, exist_ok=True)
rnd = random.Random(seed)
tmp = tempfile.mkdtemp()


def check(d):  # GS1 mod-10 over the digits without check
    s = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(d)))
    return str((10 - s % 10) % 10)


def code():
    kind = rnd.choice(["EAN-13", "UPC-A"])
    n = 12 if kind == "EAN-13" else 11
    d = "".join(rnd.choice("0123456789") for _ in range(n))
    if kind == "EAN-13" and d[0] == "0":
        d = str(rnd.randint(1, 9)) + d[1:]  # keep EAN-13 distinct from UPC-A form
    return kind, d + check(d)


def addon_digits():
    return "".join(rnd.choice("0123456789") for _ in range(rnd.choice([2, 5])))


def render(kind, full, addon, scale, height, text):
    f = os.path.join(tmp, "z.png")
    data = full + ("+" + addon if addon else "")
    cmd = ["zint", "-b", "EANX" if kind == "EAN-13" else "UPCA", "-d", data,
           "--scale=%g" % scale, "--height=%d" % height, "-o", f]
    if not text:
        cmd.insert(1, "--notext")
    subprocess.run(cmd, check=True, capture_output=True)
    return np.array(Image.open(f).convert("L"))


def perspective(im):
    return imagewarp.perspective(im, lambda: rnd.uniform(-0.12, 0.12), 255)


def clutter(w, h):
    bg = Image.new("L", (w, h), rnd.randint(90, 180))
    d = ImageDraw.Draw(bg)
    for _ in range(rnd.randint(10, 40)):
        x0, y0 = rnd.randint(0, w), rnd.randint(0, h)
        x1, y1 = x0 + rnd.randint(-150, 150), y0 + rnd.randint(-150, 150)
        c = rnd.randint(0, 255)
        k = rnd.random()
        if k < 0.4:
            d.line([(x0, y0), (x1, y1)], fill=c, width=rnd.randint(1, 6))
        elif k < 0.7:
            d.rectangle([min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)], outline=c, width=rnd.randint(1, 4))
        else:
            d.text((x0, y0), "".join(rnd.choice("0123456789ABCXYZ|||") for _ in range(8)), fill=c)
    a = np.array(bg).astype(float) + np.random.default_rng(rnd.randint(0, 1 << 30)).normal(0, 8, (h, w))
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


manifest = []
for i in range(count):
    (k1, c1), (k2, c2) = code(), code()
    a1 = a2 = None
    if rnd.random() < 0.2:  # one of the two carries an add-on
        if rnd.random() < 0.5:
            a1 = addon_digits()
        else:
            a2 = addon_digits()
    scale = rnd.choice([1, 1, 1.5, 2])
    text1, text2 = rnd.random() < 0.5, rnd.random() < 0.5
    h1, h2 = rnd.randint(20, 60), rnd.randint(20, 60)
    up = render(k1, c1, a1, scale, h1, text1)
    lo = render(k2, c2, a2, scale, h2, text2)
    module = 2 * scale
    overlap = rnd.randint(0, 20)
    offset = int(round(rnd.randint(-6, 6) * module + rnd.choice([0, 0, rnd.uniform(-module, module)])))
    blend = "min" if rnd.random() < 0.75 else "paste"
    W = max(up.shape[1], lo.shape[1]) + abs(offset) + 20
    H = up.shape[0] + lo.shape[0] - overlap + 20
    canvas = np.full((H, W), 255, np.uint8)
    x1 = 10 + max(0, -offset)
    x2 = 10 + max(0, offset)
    canvas[10:10 + up.shape[0], x1:x1 + up.shape[1]] = up
    y2 = 10 + up.shape[0] - overlap
    region = canvas[y2:y2 + lo.shape[0], x2:x2 + lo.shape[1]]
    region[:] = np.minimum(region, lo) if blend == "min" else lo
    im = Image.fromarray(canvas)
    p = dict(angle=round(rnd.uniform(0, 360), 1), overlap=overlap, offset_px=offset, module_px=module,
             blend=blend, text_upper=text1, text_lower=text2, persp=False, blur=0.0, shrink=1.0, bg=False)
    if rnd.random() < 0.25:
        im = perspective(im)
        p["persp"] = True
    im = im.rotate(p["angle"], resample=Image.BICUBIC, expand=True, fillcolor=255)
    if rnd.random() < 0.3:
        bw, bh = im.size[0] + rnd.randint(40, 300), im.size[1] + rnd.randint(40, 300)
        bg = clutter(bw, bh)
        # paste only the label (non-white after rotate is still white fill: paste a rotated mask)
        mask = Image.new("L", canvas.shape[::-1], 255)
        mask = mask.rotate(p["angle"], expand=True, fillcolor=0) if not p["persp"] else None
        bg.paste(im, (rnd.randint(0, bw - im.size[0]), rnd.randint(0, bh - im.size[1])), mask)
        im = bg
        p["bg"] = True
    if rnd.random() < 0.35:
        p["blur"] = round(rnd.uniform(0.4, 2.0), 2)
        im = im.filter(ImageFilter.GaussianBlur(p["blur"]))
    if rnd.random() < 0.3:
        p["shrink"] = round(rnd.uniform(0.45, 0.9), 2)
        im = im.resize((max(1, int(im.size[0] * p["shrink"])), max(1, int(im.size[1] * p["shrink"]))), Image.BILINEAR)
    name = "%04d.png" % i
    im.save(os.path.join(out, name))
    how = "%s, %g px modules" % ("overprinted" if blend == "min" else "pasted over", module)
    manifest.append(dict(file=name, symbology=k1, text=c1, addon=a1 or "", others=[c2 + "+" + (a2 or "")], difficulty=how,
                         size=list(im.size)))

json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"), indent=1)
print(count, "images in", out)
