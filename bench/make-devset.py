#!/usr/bin/env python3
"""A second development set for the decoders (issue 18), made the way ../shared/corpus/scenes
was: each of the 13 seed symbologies rendered by zint (Debian's `zint`), put into a camera-like
frame with clutter, under one of 12 faults. 13 x 12 = 156 images, 12 per symbology and 13 per
fault; payloads, placement and fault strengths come from the seed, so a run makes the same set.

  faults: clean, rotated, upsidedown, perspective, blur, lowcontrast, noisy, dark, small,
          inverted (light modules on a dark ground), glare, hard (perspective + blur + noise +
          a shadow at once)

The misread set (--crossed N): N images of each linear symbology, each crossed by a dark pen
stroke (a line 0.5 to 2.5 modules wide, at any angle, through the bars), otherwise lightly
faulted; a decoder should read them right or not at all.

usage: make-devset.py OUT_DIR [--seed N] [--crossed N]     (needs zint, and numpy and Pillow: the venv of
       bench/setup-zxing-cpp.sh has them). Writes the images and manifest.json like the
       shared corpora's: {file, symbology, text, difficulty, size}.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from gs1 import check_digit, upce_body

FAULTS = ["clean", "rotated", "upsidedown", "perspective", "blur", "lowcontrast", "noisy", "dark",
          "small", "inverted", "glare", "hard"]
SIZES = [(640, 480), (1280, 720), (1920, 1080)]
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def payload(symbology, rng):
    """(zint barcode name, data given to zint, the text a decoder should return)."""
    digits = lambda n: "".join(rng.choice("0123456789") for _ in range(n))
    if symbology == "EAN-13":
        body = rng.choice("123456789") + digits(11)
        return "EANX", body, body + check_digit(body)
    if symbology == "EAN-8":
        body = digits(7)
        return "EANX", body, body + check_digit(body)
    if symbology == "UPC-A":
        body = rng.choice("123456789") + digits(10)
        return "UPCA", body, body + check_digit(body)
    if symbology == "UPC-E":
        six = digits(4) + rng.choice("123456789") + rng.choice("56789")  # a valid UPC-E: the 5th digit not 0
        full = "0" + six
        return "UPCE", six, full + check_digit(upce_body(full))
    if symbology == "ITF":
        body = digits(rng.choice([6, 8, 10, 12]))
        return "C25INTER", body, body
    if symbology == "ITF-14":
        body = digits(13)
        return "ITF14", body, body + check_digit(body)
    if symbology == "Code-39":
        text = "".join(rng.choice(ALNUM) for _ in range(rng.randint(5, 9)))
        return "CODE39", text, text
    if symbology == "Code-93":
        text = "".join(rng.choice(ALNUM) for _ in range(rng.randint(5, 10)))
        return "CODE93", text, text
    if symbology == "Code-128":
        text = "".join(rng.choice(ALNUM + "abcdefghijklmnopqrstuvwxyz-/") for _ in range(rng.randint(6, 14)))
        return "CODE128", text, text
    words = ["kiosk", "scand", "ticket", "order", "locker", "parcel", "room", "gate"]
    text = rng.choice(["https://example.org/", "ID:", "REF-", ""]) + rng.choice(words) + "-" + digits(rng.randint(4, 12))
    return {"QR-Code": "QRCODE", "PDF417": "PDF417", "DataMatrix": "DATAMATRIX", "Aztec": "AZTEC"}[symbology], text, text


SYMBOLOGIES = ["QR-Code", "EAN-13", "EAN-8", "UPC-A", "UPC-E", "Code-39", "Code-93", "Code-128", "ITF",
               "ITF-14", "PDF417", "DataMatrix", "Aztec"]
LINEAR = {"EAN-13", "EAN-8", "UPC-A", "UPC-E", "Code-39", "Code-93", "Code-128", "ITF", "ITF-14"}


def render(barcode, data, tmp):
    """The code at one pixel per module (with its quiet zone), as a gray array of 0 and 255."""
    path = os.path.join(tmp, "code.png")
    args = ["zint", "-b", barcode, "-d", data, "--scale=0.5", "--notext", "-o", path]
    if barcode in ("EANX", "UPCA", "UPCE", "C25INTER", "ITF14", "CODE39", "CODE93", "CODE128"):
        args += ["--height=30"]
    if barcode == "ITF14":
        args += ["--box", "--border=0"]
    subprocess.run(args, check=True, capture_output=True)
    code = np.array(Image.open(path).convert("L"), dtype=np.float32)
    quiet = 10
    return np.pad(code, quiet, constant_values=255)


def clutter(width, height, rng):
    """A light counter top with a few printed shapes and lines of text-like marks."""
    base = rng.uniform(170, 225)
    img = Image.new("L", (width, height), int(base))
    draw = ImageDraw.Draw(img)
    for _ in range(rng.randint(4, 10)):
        x, y = rng.randrange(width), rng.randrange(height)
        w, h = rng.randint(width // 20, width // 4), rng.randint(height // 20, height // 4)
        draw.rectangle([x, y, x + w, y + h], fill=int(rng.uniform(60, 240)))
    for _ in range(rng.randint(3, 8)):
        x, y = rng.randrange(width), rng.randrange(height)
        for k in range(rng.randint(8, 30)):  # text-like marks
            draw.rectangle([x + k * 9, y, x + k * 9 + rng.randint(3, 7), y + rng.randint(6, 12)], fill=int(rng.uniform(20, 90)))
    arr = np.array(img, dtype=np.float32)
    # light falling off across the frame
    yy, xx = np.mgrid[0:height, 0:width]
    arr *= 1 - 0.25 * ((xx - rng.uniform(0, width)) ** 2 + (yy - rng.uniform(0, height)) ** 2) / (width ** 2 + height ** 2)
    return arr


def place(scene, code, module, angle, persp, rng):
    """`code` scaled to `module` px per module, rotated by `angle` degrees and warped by up to
    `persp` of its size, pasted at a random spot of `scene` (its white ground kept opaque)."""
    h, w = code.shape
    img = Image.fromarray(code.astype(np.uint8)).resize((max(1, round(w * module)), max(1, round(h * module))), Image.BILINEAR)
    img = img.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)
    mask = Image.new("L", img.size, 255)
    if persp > 0:
        W, H = img.size
        j = lambda: rng.uniform(-persp, persp)
        quad = [W * j(), H * j(), W * j(), H * (1 + j()), W * (1 + j()), H * (1 + j()), W * (1 + j()), H * j()]
        img = img.transform(img.size, Image.QUAD, quad, resample=Image.BICUBIC, fillcolor=255)
        mask = mask.transform(mask.size, Image.QUAD, quad, resample=Image.BILINEAR, fillcolor=0)
    H, W = scene.shape
    if img.size[0] >= W or img.size[1] >= H:
        scale = 0.9 * min(W / img.size[0], H / img.size[1])
        img = img.resize((int(img.size[0] * scale), int(img.size[1] * scale)), Image.BILINEAR)
        mask = mask.resize(img.size, Image.BILINEAR)
    x = rng.randint(0, W - img.size[0])
    y = rng.randint(0, H - img.size[1])
    base = Image.fromarray(np.clip(scene, 0, 255).astype(np.uint8))
    base.paste(img, (x, y), mask)
    return np.array(base, dtype=np.float32), (x, y, img.size[0], img.size[1])


def make(symbology, fault, rng, tmp):
    barcode, data, text = payload(symbology, rng)
    code = render(barcode, data, tmp)
    width, height = rng.choice(SIZES)
    scene = clutter(width, height, rng)
    longest = max(code.shape)
    module = rng.uniform(2.2, 4.0) * (width / 1280) ** 0.5
    module = min(module, 0.7 * min(width, height) / longest)
    angle, persp = rng.uniform(-4, 4), 0.0
    if fault == "inverted":
        code = 255 - code  # light modules on a dark ground, quiet zone included
    if fault == "rotated":
        angle = rng.choice([-1, 1]) * rng.uniform(12, 40)
    if fault == "upsidedown":
        angle = 180 + rng.uniform(-6, 6)
    if fault in ("perspective", "hard"):
        persp = rng.uniform(0.08, 0.16)
    if fault == "small":
        module = rng.uniform(1.25, 1.7)
    scene, (x, y, w, h) = place(scene, code, module, angle, persp, rng)
    if fault in ("blur", "hard"):
        radius = module * (rng.uniform(0.45, 0.7) if fault == "blur" else rng.uniform(0.3, 0.45))
        scene = np.array(Image.fromarray(scene.astype(np.uint8)).filter(ImageFilter.GaussianBlur(radius)), dtype=np.float32)
    if fault == "lowcontrast":
        mid, span = rng.uniform(110, 150), rng.uniform(0.18, 0.28)
        scene = mid + (scene - 128) * span
    if fault == "dark":
        scene = scene * rng.uniform(0.1, 0.2)
    if fault == "glare":
        yy, xx = np.mgrid[0:height, 0:width]
        cx, cy = x + rng.uniform(0.2, 0.8) * w, y + rng.uniform(0.2, 0.8) * h
        r = rng.uniform(0.15, 0.3) * max(w, h)
        scene = scene + 200 * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r))
    if fault == "hard":
        yy, xx = np.mgrid[0:height, 0:width]
        shadow = np.where(xx * rng.uniform(0.5, 1.5) + yy > x + y + (w + h) * rng.uniform(0.3, 0.7), 0.55, 1.0)
        scene = scene * shadow
    sigma = {"noisy": rng.uniform(18, 28), "hard": rng.uniform(8, 14), "dark": 2.5}.get(fault, 3.0)
    scene = scene + np.random.default_rng(rng.randrange(1 << 30)).normal(0, sigma, scene.shape)
    return np.clip(scene, 0, 255).astype(np.uint8), text, (width, height)


def make_crossed(symbology, rng, tmp):
    """A linear code in a mildly faulted frame, crossed by a dark stroke through its bars."""
    barcode, data, text = payload(symbology, rng)
    code = render(barcode, data, tmp)
    width, height = rng.choice(SIZES)
    scene = clutter(width, height, rng)
    module = rng.uniform(2.0, 3.6) * (width / 1280) ** 0.5
    module = min(module, 0.7 * min(width, height) / max(code.shape))
    angle = rng.uniform(-8, 8) + (180 if rng.random() < 0.3 else 0)
    scene, (x, y, w, h) = place(scene, code, module, angle, rng.uniform(0, 0.06), rng)
    # the stroke: through a point inside the bars, at any angle
    cx, cy = x + rng.uniform(0.25, 0.75) * w, y + rng.uniform(0.3, 0.7) * h
    theta = rng.uniform(0, np.pi)
    reach = 2 * max(w, h)
    image = Image.fromarray(np.clip(scene, 0, 255).astype(np.uint8))
    ImageDraw.Draw(image).line([(cx - reach * np.cos(theta), cy - reach * np.sin(theta)),
                                (cx + reach * np.cos(theta), cy + reach * np.sin(theta))],
                               fill=int(rng.uniform(15, 70)), width=max(1, round(module * rng.uniform(0.5, 2.5))))
    scene = np.array(image, dtype=np.float32)
    if rng.random() < 0.4:
        scene = np.array(image.filter(ImageFilter.GaussianBlur(module * rng.uniform(0.2, 0.4))), dtype=np.float32)
    scene = scene + np.random.default_rng(rng.randrange(1 << 30)).normal(0, rng.uniform(2, 8), scene.shape)
    return np.clip(scene, 0, 255).astype(np.uint8), text, (width, height)


def save(out, name, pixels, rng):
    image = Image.fromarray(pixels)
    if name.endswith(".jpg"):
        image.save(os.path.join(out, name), quality=rng.randint(75, 92))
    else:
        image.save(os.path.join(out, name))


def main():
    # An option where OUT_DIR goes (--help) is not a folder to fill.
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    out = sys.argv[1]
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1818
    os.makedirs(out, exist_ok=True)
    crossed = int(sys.argv[sys.argv.index("--crossed") + 1]) if "--crossed" in sys.argv else 0
    rng = random.Random(seed)
    manifest = []
    with tempfile.TemporaryDirectory() as tmp:
        for symbology in SYMBOLOGIES:
            for n in range(crossed if symbology in LINEAR else 0):
                pixels, text, size = make_crossed(symbology, rng, tmp)
                name = f"{symbology}-{n:02d}-crossed." + ("jpg" if rng.random() < 0.5 else "png")
                save(out, name, pixels, rng)
                manifest.append({"file": name, "symbology": symbology, "text": text, "difficulty": "crossed", "size": list(size)})
            for n, fault in enumerate(FAULTS if not crossed else []):
                pixels, text, size = make(symbology, fault, rng, tmp)
                name = f"{symbology}-{n:02d}-{fault}." + ("jpg" if rng.random() < 0.5 else "png")
                save(out, name, pixels, rng)
                manifest.append({"file": name, "symbology": symbology, "text": text, "difficulty": fault, "size": list(size)})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(manifest)} images in {out} (seed {seed})")


if __name__ == "__main__":
    main()
