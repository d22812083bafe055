#!/usr/bin/env python3
"""Two generated sets for issue 42, made with zint (Debian's `zint`), numpy and Pillow (Debian's
python3-numpy and python3-pil, or the venv of bench/setup-zxing-cpp.sh). The same seed makes the
same set.

The misread set (default): camera-like frames made the way the misreads of unseen sets arose,
where a decoder must read the right code or nothing:
  crossed    an EAN-13 or UPC-A crossed by two or three clutter lines at a shallow angle to
             the bars' normal (a line along a scan line turns bars into other valid digits)
  side       two EAN-13 side by side, a few modules apart (either may be read, nothing else)
  addon      an EAN-13 or UPC-A with its EAN-2/EAN-5 add-on (read without it, the main code
             only; the add-on's bars must not become part of it)
  short      a long Code 128, Code 39 or ITF with blur, where a short Codabar, ITF or Code 39
             could be read out of its bars (with every symbology on, nothing but the long code)
  beside     a short Codabar, ITF or Code 39 printed beside a longer Code 128 (either)
  noise      an EAN-13 under heavy noise and blur, or a frame of noise and text-like marks
             with no code at all (nothing may be read)
  stacked    two EAN-13/UPC-A one over the other, the lower one's bars over the upper one's,
             turned any way (either may be read; half of each is a misread)
Records carry `others`: the other codes truly in the frame (often none); any other read is a
misread, even beside the right one.

The add-on set (--addons): EAN-13+2, EAN-13+5, UPC-A+5 and ISBN (978/979)+5, each clean, blurred
as print under a camera, skewed, in perspective and at low resolution; records carry `addon`,
the add-on's digits. Half the ISBNs have prices (5xxxx, US dollars), half 9xxxx.

The turns set (--turns): four codes with their add-ons as zint draws them (EAN-13+2, EAN-13+5,
UPC-A+5, ISBN+5; fixed data, no noise), turned every 8 degrees and at 1, 0.75 and 0.55 of their
size (modules of 2, 1.5 and 1.1 pixels): 540 images, the same for every seed. The finest
modules are where zxing's other thresholds read an EAN-13 with wrong digits and a valid check
digit; the turns are where a slanted scan line reads an add-on beside the code.

usage: make-misreads.py OUT_DIR [--seed N] [--count N] [--addons | --turns | --only KIND]
       writes the images (PNG and JPEG) and manifest.json:
       {file, symbology, text, difficulty, size, others?, addon?}
"""
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
_spec = importlib.util.spec_from_file_location("devset", os.path.join(HERE, "make-devset.py"))
devset = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(devset)
from gs1 import check_digit  # noqa: E402

SIZES = [(640, 480), (1280, 720)]


def digits(rng, n):
    return "".join(rng.choice("0123456789") for _ in range(n))


def render(barcode, data, tmp, height=30, addon_gap=None):
    """The code at one pixel per module with a quiet zone, as a gray array (0 and 255)."""
    path = os.path.join(tmp, "code.png")
    args = ["zint", "-b", barcode, "-d", data, "--scale=0.5", "--notext", "--height=%d" % height, "-o", path]
    if addon_gap is not None:
        args += ["--addongap=%d" % addon_gap]
    subprocess.run(args, check=True, capture_output=True)
    code = np.array(Image.open(path).convert("L"), dtype=np.float32)
    return np.pad(code, 10, constant_values=255)


def ean13(rng):
    body = rng.choice("123456789") + digits(rng, 11)
    return "EANX", body, body + check_digit(body)


def upca(rng):
    body = rng.choice("123456789") + digits(rng, 10)
    return "UPCA", body, body + check_digit(body)


def scene_for(code, rng, module=None, angle=None, persp=0.0, size=None):
    width, height = size or rng.choice(SIZES)
    scene = devset.clutter(width, height, rng)
    if module is None:
        module = rng.uniform(2.2, 3.4) * (width / 1280) ** 0.5
    module = min(module, 0.8 * min(width, height) / max(code.shape))
    angle = rng.uniform(-5, 5) if angle is None else angle
    scene, box = devset.place(scene, code, module, angle, persp, rng)
    return scene, box, module, (width, height)


def finish(scene, rng, blur=0.0, sigma=3.0):
    if blur > 0:
        scene = np.array(Image.fromarray(np.clip(scene, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(blur)), dtype=np.float32)
    scene = scene + np.random.default_rng(rng.randrange(1 << 30)).normal(0, sigma, scene.shape)
    return np.clip(scene, 0, 255).astype(np.uint8)


def make_crossed(rng, tmp):
    barcode, data, text = rng.choice([ean13, upca])(rng)
    code = render(barcode, data, tmp)
    scene, (x, y, w, h), module, size = scene_for(code, rng)
    image = Image.fromarray(np.clip(scene, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    for _ in range(rng.randint(2, 3)):
        # shallow: within 3-15 degrees of the rows, through the bars
        cx, cy = x + rng.uniform(0.2, 0.8) * w, y + rng.uniform(0.25, 0.75) * h
        theta = np.radians(rng.choice([-1, 1]) * rng.uniform(3, 15))
        reach = 2 * max(w, h)
        draw.line([(cx - reach * np.cos(theta), cy - reach * np.sin(theta)), (cx + reach * np.cos(theta), cy + reach * np.sin(theta))],
                  fill=int(rng.uniform(15, 80)), width=max(1, round(module * rng.uniform(0.4, 1.8))))
    scene = np.array(image, dtype=np.float32)
    return finish(scene, rng, blur=module * rng.uniform(0, 0.35)), "EAN-13" if barcode == "EANX" else "UPC-A", text, [], size


def make_side(rng, tmp):
    a, b = ean13(rng), ean13(rng)
    ca, cb = render(a[0], a[1], tmp), render(b[0], b[1], tmp)
    gap = rng.randint(-6, 2)  # the quiet zones (10 each) overlap: 14 to 22 modules apart
    h = max(ca.shape[0], cb.shape[0])
    both = np.full((h, ca.shape[1] + cb.shape[1] + gap), 255, dtype=np.float32)
    both[:ca.shape[0], :ca.shape[1]] = ca
    both[:cb.shape[0], ca.shape[1] + gap:] = np.minimum(both[:cb.shape[0], ca.shape[1] + gap:], cb)
    scene, _, module, size = scene_for(both, rng)
    return finish(scene, rng, blur=module * rng.uniform(0, 0.4)), "EAN-13", a[2], [b[2]], size


def make_addon_frame(rng, tmp, kind, blur, angle, persp, module, size):
    """An EAN/UPC with its add-on; (pixels, symbology, main text, add-on digits, size)."""
    if kind == "ISBN+5":
        body = rng.choice(["978", "979"]) + digits(rng, 9)
        main, barcode, symbology = body + check_digit(body), "ISBNX", "EAN-13"
        addon = rng.choice(["5", "9"]) + digits(rng, 4)
        data = main + "+" + addon
    else:
        barcode, data, main = (upca if kind.startswith("UPC") else ean13)(rng)
        symbology = "UPC-A" if kind.startswith("UPC") else "EAN-13"
        addon = digits(rng, 2 if kind.endswith("+2") else 5)
        data = data + "+" + addon
    code = render(barcode, data, tmp, height=40)
    scene, _, module, size = scene_for(code, rng, module=module, angle=angle, persp=persp, size=size)
    return finish(scene, rng, blur=blur * module), symbology, main, addon, size


def make_addon_misread(rng, tmp):
    kind = rng.choice(["EAN-13+2", "EAN-13+5", "UPC-A+5"])
    pixels, symbology, main, _, size = make_addon_frame(rng, tmp, kind, rng.uniform(0.2, 0.5), rng.uniform(-6, 6), 0.0, None, None)
    return pixels, symbology, main, [], size


def make_short(rng, tmp):
    kind = rng.choice(["CODE128", "CODE39", "C25INTER"])
    if kind == "CODE128":
        text = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789-/") for _ in range(rng.randint(14, 22)))
        symbology = "Code-128"
    elif kind == "CODE39":
        text = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(rng.randint(12, 16)))
        symbology = "Code-39"
    else:
        text = digits(rng, rng.choice([16, 18, 20]))
        symbology = "ITF"
    code = render(kind, text, tmp)
    scene, _, module, size = scene_for(code, rng, module=rng.uniform(1.6, 2.6))
    return finish(scene, rng, blur=module * rng.uniform(0.3, 0.6), sigma=rng.uniform(3, 8)), symbology, text, [], size


def make_beside(rng, tmp):
    long_text = "".join(rng.choice("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789") for _ in range(rng.randint(14, 20)))
    kind = rng.choice(["CODABAR", "C25INTER", "CODE39"])
    short = {"CODABAR": "A" + digits(rng, 4) + "B", "C25INTER": digits(rng, 6), "CODE39": "".join(rng.choice("ABCDEFGH0123456789") for _ in range(4))}[kind]
    cl, cs = render("CODE128", long_text, tmp), render(kind, short, tmp)
    h = max(cl.shape[0], cs.shape[0])
    both = np.full((h, cl.shape[1] + cs.shape[1]), 255, dtype=np.float32)
    both[:cl.shape[0], :cl.shape[1]] = cl
    both[:cs.shape[0], cl.shape[1]:] = cs
    scene, _, module, size = scene_for(both, rng)
    shown = short if kind != "CODABAR" else short  # zxing and zbar give Codabar with its start/stop
    return finish(scene, rng, blur=module * rng.uniform(0, 0.3)), "Code-128", long_text, [shown, shown[1:-1] if kind == "CODABAR" else shown], size


def make_stacked(rng, tmp):
    """Two EAN-13/UPC-A codes one over the other, the lower one's bars laid over the bottom of
    the upper one's (0 to 12 modules), a few modules to either side, turned any way: a scan line
    that leaves one code for the other where both have their guards in line meets half of each."""
    a, b = rng.choice([ean13, upca])(rng), rng.choice([ean13, upca])(rng)
    ca, cb = render(a[0], a[1], tmp, height=rng.randint(20, 40)), render(b[0], b[1], tmp, height=rng.randint(20, 40))
    top = ca.shape[0] - 20 - rng.randint(0, 12)  # each has 10 of white around its bars
    shift = rng.randint(-8, 8)
    left_a, left_b = max(0, -shift), max(0, shift)
    both = np.full((top + cb.shape[0], max(left_a + ca.shape[1], left_b + cb.shape[1])), 255, dtype=np.float32)
    both[:ca.shape[0], left_a:left_a + ca.shape[1]] = ca
    region = both[top:top + cb.shape[0], left_b:left_b + cb.shape[1]]
    np.minimum(region, cb, out=region)
    scene, _, module, size = scene_for(both, rng, angle=rng.uniform(0, 360), persp=rng.choice([0, 0, 0.06, 0.1]))
    return finish(scene, rng, blur=module * rng.uniform(0, 0.35)), "EAN-13" if a[0] == "EANX" else "UPC-A", a[2], [b[2]], size


def make_noise(rng, tmp):
    if rng.random() < 0.5:
        width, height = rng.choice(SIZES)
        scene = devset.clutter(width, height, rng)
        image = Image.fromarray(np.clip(scene, 0, 255).astype(np.uint8))
        draw = ImageDraw.Draw(image)
        for _ in range(rng.randint(20, 60)):  # bar-like strokes: fences, text, stripes
            x, y = rng.randrange(width), rng.randrange(height)
            draw.rectangle([x, y, x + rng.randint(1, 8), y + rng.randint(10, 80)], fill=int(rng.uniform(10, 90)))
        scene = np.array(image, dtype=np.float32)
        return finish(scene, rng, blur=rng.uniform(0, 1.5), sigma=rng.uniform(15, 35)), None, None, [], (width, height)
    barcode, data, text = ean13(rng)
    code = render(barcode, data, tmp)
    scene, _, module, size = scene_for(code, rng)
    return finish(scene, rng, blur=module * rng.uniform(0.3, 0.6), sigma=rng.uniform(20, 35)), "EAN-13", text, [], size


MISREAD_KINDS = [("crossed", make_crossed), ("side", make_side), ("addon", make_addon_misread), ("short", make_short),
                 ("beside", make_beside), ("noise", make_noise), ("stacked", make_stacked)]

ADDON_KINDS = ["EAN-13+2", "EAN-13+5", "UPC-A+5", "ISBN+5"]
ADDON_FAULTS = ["clean", "blur", "skew", "perspective", "lowres"]


def make_addon(rng, tmp, kind, fault):
    blur, angle, persp, module, size = rng.uniform(0, 0.2), rng.uniform(-3, 3), 0.0, None, None
    if fault == "blur":
        blur = rng.uniform(0.35, 0.6)  # ink spread and a lens a little out of focus
    if fault == "skew":
        angle = rng.choice([-1, 1]) * rng.uniform(10, 30)
    if fault == "perspective":
        persp = rng.uniform(0.05, 0.12)
    if fault == "lowres":
        module, size = rng.uniform(1.4, 1.9), (640, 480)
    return make_addon_frame(rng, tmp, kind, blur, angle, persp, module, size)


TURNS = [("EAN-13", "EANX", "590123412345+12", "5901234123457", "12"),
         ("EAN-13", "EANX", "400638133393+52495", "4006381333931", "52495"),
         ("UPC-A", "UPCA", "72527273070+51000", "725272730706", "51000"),
         ("EAN-13", "ISBNX", "9780306406157+52495", "9780306406157", "52495")]


def make_turns(out, tmp):
    """The turns set: each of TURNS on a 40 px white border, turned (bicubic) and scaled (bilinear)."""
    manifest = []
    for k, (symbology, barcode, data, text, addon) in enumerate(TURNS):
        path = os.path.join(tmp, "turn%d.png" % k)
        subprocess.run(["zint", "-b", barcode, "-d", data, "-o", path], check=True)
        code = Image.open(path).convert("L")
        base = Image.new("L", (code.size[0] + 80, code.size[1] + 80), 255)
        base.paste(code, (40, 40))
        for angle in range(0, 360, 8):
            for scale in (1.0, 0.75, 0.55):
                image = base.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=255)
                if scale != 1.0:
                    image = image.resize((int(image.size[0] * scale), int(image.size[1] * scale)), Image.BILINEAR)
                name = "k%d-a%03d-s%03d.png" % (k, angle, int(scale * 100))
                image.save(os.path.join(out, name))
                manifest.append({"file": name, "symbology": symbology, "text": text, "addon": addon,
                                 "difficulty": "turned %s" % symbology, "size": list(image.size)})
    return manifest


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    out = sys.argv[1]
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 4242
    count = int(sys.argv[sys.argv.index("--count") + 1]) if "--count" in sys.argv else 8
    os.makedirs(out, exist_ok=True)
    rng = random.Random(seed)
    manifest = []
    with tempfile.TemporaryDirectory() as tmp:
        if "--turns" in sys.argv:
            manifest = make_turns(out, tmp)
        elif "--addons" in sys.argv:
            for kind in ADDON_KINDS:
                for fault in ADDON_FAULTS:
                    for n in range(max(1, count // 2)):
                        pixels, symbology, main_text, addon, size = make_addon(rng, tmp, kind, fault)
                        name = f"{kind.replace('+', 'plus')}-{fault}-{n:02d}." + ("jpg" if rng.random() < 0.5 else "png")
                        devset.save(out, name, pixels, rng)
                        manifest.append({"file": name, "symbology": symbology, "text": main_text, "addon": addon,
                                         "difficulty": f"{kind} {fault}", "size": list(size)})
        else:
            only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
            for kind, make in MISREAD_KINDS:
                if only not in (None, kind):
                    continue
                for n in range(count):
                    pixels, symbology, text, others, size = make(rng, tmp)
                    name = f"{kind}-{n:02d}." + ("jpg" if rng.random() < 0.5 else "png")
                    devset.save(out, name, pixels, rng)
                    record = {"file": name, "symbology": symbology, "text": text, "difficulty": kind, "size": list(size),
                              "others": others}
                    manifest.append(record)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    print(f"{len(manifest)} images in {out} (seed {seed})")


if __name__ == "__main__":
    main()
