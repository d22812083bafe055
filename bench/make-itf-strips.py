#!/usr/bin/env python3
"""Strips of Interleaved 2 of 5 bars 6-15 modules tall, turned up to 8 degrees (a tryout of
stop 63: a row across such a strip leaves it through its top or bottom, and the part it crossed
is a valid ITF of its own). 10, 12 or 14 digits, modules of 1.5-3 px, blur under 1 px, noise of
sigma 4. Needs zint, numpy and Pillow (scripts/setup.sh).

usage: make-itf-strips.py OUT_DIR COUNT SEED
Writes OUT_DIR/itf-NNNN.png and OUT_DIR/manifest.json for `scand bench decode OUT_DIR`
(difficulty: the bars' height in modules and the angle)."""
import json, os, random, subprocess, sys, tempfile
import numpy as np
from PIL import Image, ImageFilter


def main():
    if len(sys.argv) != 4 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    out, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    r = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    manifest = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(count):
            digits = "".join(r.choice("0123456789") for _ in range(r.choice([10, 12, 14])))
            height = r.randint(6, 15)
            bars = os.path.join(tmp, "bars.png")
            subprocess.run(["zint", "-b", "C25INTER", "-d", digits, "--height", str(height), "--notext", "--scale", "1", "-o", bars],
                           check=True)
            im = Image.open(bars).convert("L")
            scale = r.uniform(1.5, 3.0)
            im = im.resize((int(im.width * scale), int(im.height * scale)), Image.BILINEAR)
            canvas = Image.new("L", (im.width + 200, im.height + 200), 255)
            canvas.paste(im, (100, 100))
            angle = r.uniform(-8, 8)
            canvas = canvas.rotate(angle, resample=Image.BILINEAR, fillcolor=255, expand=True)
            canvas = canvas.filter(ImageFilter.GaussianBlur(r.uniform(0.3, 1.0)))
            noisy = np.asarray(canvas, np.float32) + np.random.default_rng(seed * 100003 + i).normal(0, 4, (canvas.height, canvas.width))
            name = f"itf-{i:04d}.png"
            Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8)).save(os.path.join(out, name))
            manifest.append(dict(file=name, symbology="ITF", text=digits, difficulty=f"{height} modules, {angle:.1f} deg"))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=0)


if __name__ == "__main__":
    main()
