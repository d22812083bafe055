#!/usr/bin/env python3
"""Retail-kiosk layouts where a decoder must read a printed code or nothing, for issue 42 (a
tryout of stop 59 made them: with seeds 5959, 6060, 7070, 8181 and 9292 scand answered 20 of 300
`tornjoin` images with a code of both labels' halves, zxing-cpp alone 12). Needs zint, numpy and
Pillow (scripts/setup.sh).

usage: make-retail-layouts.py OUT_DIR COUNT_PER_FAMILY SEED [family,family,...]

families:
  tiltstack   two EAN-13/UPC-A labels, the second turned 2-15 deg relative to the first and laid
              over it along the bar direction (up to 60% of its height), pasted or overprinted
  sideover    second label overlapping the first's end across the bars (0-25 modules), shifted
              along the bars by up to 70% of the height, turned 0-6 deg
  torn        a label torn/cut (jagged cut across or along the bars); under it white, carton,
              or another code shifted a little (label over label, the under one showing)
  tornjoin    label over label in line (same module, dx within 8 modules), the top one torn along
              a jagged line at 30-70% of its length: its left or right part (with add-on) stays
  carton      EAN-13/UPC-A label on kraft beside an ITF-14 (bearer bars) and/or GS1-128/Code 128
  crossed     code crossed by printed lines, large text over the bars, a sticker over part
  price       code beside a shelf price label (big price digits, small text, maybe an EAN-8)
  ean8pair    EAN-8 (maybe +2) beside EAN-13 (maybe +5), or UPC-E beside UPC-A, -4..30 px apart
  lowres      one of the layouts above with 1.5-2 px modules, blur, perspective, glare, JPEG
Writes OUT_DIR/<family>-NNNN.png|jpg and OUT_DIR/manifest.json for `scand bench decode OUT_DIR`
(add `--set symbology.ean13.addon=read` and the like to judge add-ons): per file the first printed
code as symbology, text and addon, the others in `others` as TEXT+ADDON, the family as
`difficulty`; OUT_DIR/layouts.json has every printed code and the layout's parameters."""
import json, math, os, random, string, subprocess, sys, tempfile
import numpy as np
import imagewarp
from PIL import Image, ImageDraw, ImageFilter, ImageFont

FAMILIES = ["tiltstack", "sideover", "torn", "tornjoin", "carton", "crossed", "price", "ean8pair", "lowres"]
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
# fonts-dejavu-core (scripts/setup.sh); the condensed face is fonts-dejavu-extra's, where it is.
FONT2 = "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf"
FONT2 = FONT2 if os.path.exists(FONT2) else FONT


def chk(d):
    s = sum(int(c) * (3 if i % 2 == 0 else 1) for i, c in enumerate(reversed(d)))
    return str((10 - s % 10) % 10)


def upce_expand(d6):
    d1, d2, d3, d4, d5, d6_ = d6
    if d6_ in "012":
        return "0" + d1 + d2 + d6_ + "0000" + d3 + d4 + d5
    if d6_ == "3":
        return "0" + d1 + d2 + d3 + "00000" + d4 + d5
    if d6_ == "4":
        return "0" + d1 + d2 + d3 + d4 + "00000" + d5
    return "0" + d1 + d2 + d3 + d4 + d5 + "0000" + d6_


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.tmp = tempfile.mkdtemp()

    def digits(self, n):
        return "".join(self.r.choice("0123456789") for _ in range(n))

    def addon(self):
        return self.digits(self.r.choice([2, 5]))

    # ---- codes: (zint barcode, zint data, symbology, text, addon)
    def ean13(self, addon_p=0.3):
        b = self.r.choice("123456789") + self.digits(11)
        a = self.addon() if self.r.random() < addon_p else ""
        return dict(z="EANX", data=b + ("+" + a if a else ""), sym="EAN-13", text=b + chk(b), addon=a)

    def isbn(self):
        b = self.r.choice(["978", "979"]) + self.digits(9)
        a = self.r.choice(["5", "9"]) + self.digits(4)
        return dict(z="EANX", data=b + "+" + a, sym="EAN-13", text=b + chk(b), addon=a)

    def upca(self, addon_p=0.3):
        b = self.r.choice("123456789") + self.digits(10)
        a = self.addon() if self.r.random() < addon_p else ""
        return dict(z="UPCA", data=b + ("+" + a if a else ""), sym="UPC-A", text=b + chk(b), addon=a)

    def ean8(self, addon_p=0.25):
        b = self.digits(7)
        a = self.addon() if self.r.random() < addon_p else ""
        return dict(z="EANX", data=b + ("+" + a if a else ""), sym="EAN-8", text=b + chk(b), addon=a)

    def upce(self, addon_p=0.2):
        while True:  # zint refuses forms the shorter ones would write (X3 with d3<3, X4 with d4=0, X5-9 with d5=0)
            d6 = self.digits(6)
            if (d6[5] == "3" and d6[2] in "012") or (d6[5] == "4" and d6[3] == "0") or (d6[5] in "56789" and d6[4] == "0"):
                continue
            break
        a = self.addon() if self.r.random() < addon_p else ""
        full = upce_expand(d6)
        return dict(z="UPCE", data="0" + d6 + ("+" + a if a else ""), sym="UPC-E", text="0" + d6 + chk(full), addon=a)

    def itf14_of(self, ean):
        body = self.r.choice("12345678") + ("0" + ean["text"][:-1] if len(ean["text"]) == 12 else ean["text"][:-1])
        return dict(z="ITF14", data=body, sym="ITF-14", text=body + chk(body), addon="")

    def gs1_128(self, gtin14):
        lot = "".join(self.r.choice(string.ascii_uppercase + string.digits) for _ in range(self.r.randint(3, 8)))
        if self.r.random() < 0.5:
            date = "%02d%02d%02d" % (self.r.randint(24, 30), self.r.randint(1, 12), self.r.randint(1, 28))
            data = "[01]%s[17]%s[10]%s" % (gtin14, date, lot)
            text = "01%s17%s10%s" % (gtin14, date, lot)
        else:
            data = "[01]%s[10]%s" % (gtin14, lot)
            text = "01%s10%s" % (gtin14, lot)
        return dict(z="GS1_128", data=data, sym="Code-128", text=text, addon="")

    def code128(self):
        t = "".join(self.r.choice(string.ascii_uppercase + string.digits + "-") for _ in range(self.r.randint(6, 14)))
        return dict(z="CODE128", data=t, sym="Code-128", text=t, addon="")

    def main_code(self):
        k = self.r.random()
        if k < 0.5:
            return self.ean13()
        if k < 0.8:
            return self.upca()
        if k < 0.9:
            return self.isbn()
        return self.ean13(addon_p=0)

    # ---- render one code at `module` px per module, gray float array
    def render(self, c, module, height=None, text=True):
        f = os.path.join(self.tmp, "z.png")
        cmd = ["zint", "-b", c["z"], "-d", c["data"], "--scale=2", "-o", f]
        if c["z"] == "GS1_128":
            cmd.insert(1, "--gs1")
        if height:
            cmd += ["--height=%d" % height]
        if not text:
            cmd.insert(1, "--notext")
        subprocess.run(cmd, check=True, capture_output=True)
        im = Image.open(f).convert("L")
        w, h = im.size
        im = im.resize((max(1, round(w * module / 4)), max(1, round(h * module / 4))), Image.LANCZOS)
        a = np.asarray(im, np.float32)
        return np.pad(a, max(2, int(2 * module)), constant_values=255)


def rotate_arr(a, angle, fill=255.0):
    im = Image.fromarray(a.astype(np.float32), mode="F")
    m = Image.fromarray(np.ones_like(a, np.float32), mode="F")
    im = im.rotate(angle, resample=Image.BICUBIC, expand=True, fillcolor=fill)
    m = m.rotate(angle, resample=Image.BILINEAR, expand=True, fillcolor=0)
    return np.clip(np.asarray(im), 0, 255), np.asarray(m)


class Canvas:
    def __init__(self, w, h, bg=255.0):
        self.a = np.full((h, w), bg, np.float32)

    def place(self, arr, x, y, mode="min", mask=None, ink=None):
        h, w = arr.shape
        H, W = self.a.shape
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(W, x + w), min(H, y + h)
        if x1 <= x0 or y1 <= y0:
            return
        sub = arr[y0 - y:y1 - y, x0 - x:x1 - x]
        reg = self.a[y0:y1, x0:x1]
        m = np.ones_like(sub) if mask is None else mask[y0 - y:y1 - y, x0 - x:x1 - x]
        if mode == "min":  # overprint: ink darkens (multiply)
            new = reg * (sub / 255.0)
        else:  # opaque paste
            new = sub
        reg[:] = reg * (1 - m) + new * m


def kraft(w, h, g):
    base = g.r.uniform(140, 195)
    a = np.full((h, w), base, np.float32)
    a += g.np.normal(0, 6, (h, w)).astype(np.float32)
    # fibres
    im = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    d = ImageDraw.Draw(im)
    for _ in range(int(w * h / 2000)):
        x, y = g.r.randint(0, w), g.r.randint(0, h)
        L = g.r.randint(3, 15)
        t = g.r.uniform(0, math.pi)
        d.line([(x, y), (x + L * math.cos(t), y + L * math.sin(t))], fill=int(base + g.r.uniform(-25, 15)), width=1)
    return np.asarray(im, np.float32)


def perspective(im, g, amt=0.12):
    return imagewarp.perspective(im, lambda: g.r.uniform(-amt, amt), 235)


def glare(a, g):
    h, w = a.shape
    cx, cy = g.r.uniform(0.2, 0.8) * w, g.r.uniform(0.2, 0.8) * h
    sx, sy = g.r.uniform(0.05, 0.3) * w, g.r.uniform(0.05, 0.3) * h
    yy, xx = np.mgrid[0:h, 0:w]
    blob = np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2) / 2)
    s = g.r.uniform(0.5, 0.95)
    return a + (255 - a) * blob * s


class Layouts:
    def __init__(self, g):
        self.g = g
        self.r = g.r

    def module(self):
        return self.r.choice([2, 2.5, 3, 3, 4])

    def tiltstack(self, m):
        g, r = self.g, self.r
        A, B = g.main_code(), g.main_code()
        ta, tb = r.random() < 0.7, r.random() < 0.7
        a = g.render(A, m, r.randint(25, 60), ta)
        b = g.render(B, m * r.uniform(0.85, 1.15), r.randint(25, 60), tb)
        rel = r.choice([-1, 1]) * r.uniform(2, 15)
        b, mb = rotate_arr(b, rel)
        ov = r.uniform(-0.05, 0.6) * b.shape[0]
        dx = r.uniform(-0.35, 0.35) * a.shape[1]
        below = r.random() < 0.5
        W = int(max(a.shape[1], b.shape[1]) + abs(dx) + 60)
        H = int(a.shape[0] + b.shape[0] - ov + 60)
        c = Canvas(W, H)
        xa = 30 + int(max(0, -dx)); xb = 30 + int(max(0, dx))
        mode = "paste" if r.random() < 0.5 else "min"
        if below:
            c.place(a, xa, 30)
            c.place(b, xb, int(30 + a.shape[0] - ov), mode, mb)
        else:
            c.place(b, xb, 30, "min", mb)
            c.place(a, xa, int(30 + b.shape[0] - ov), mode)
        return c.a, [A, B], dict(rel=round(rel, 1), overlap_px=int(ov), dx=int(dx), mode=mode, b_below=below)

    def sideover(self, m):
        g, r = self.g, self.r
        A, B = g.main_code(), g.main_code()
        a = g.render(A, m, r.randint(30, 70), r.random() < 0.7)
        b = g.render(B, m * r.uniform(0.8, 1.2), r.randint(30, 70), r.random() < 0.7)
        rel = r.choice([0, 0, r.uniform(-6, 6)])
        b, mb = rotate_arr(b, rel)
        ovx = int(r.uniform(0, 25) * m) + int(2 * m)  # past the quiet padding
        dy = int(r.uniform(-0.7, 0.7) * a.shape[0])
        W = a.shape[1] + b.shape[1] - ovx + 60
        H = max(a.shape[0], b.shape[0]) + abs(dy) + 60
        c = Canvas(W, H)
        ya = 30 + max(0, -dy); yb = 30 + max(0, dy)
        mode = "paste" if r.random() < 0.5 else "min"
        c.place(a, 30, ya)
        c.place(b, 30 + a.shape[1] - ovx, yb, mode, mb)
        return c.a, [A, B], dict(rel=round(rel, 1), overlap_modules=round(ovx / m, 1), dy=dy, mode=mode)

    def torn(self, m):
        g, r = self.g, self.r
        A = g.main_code()
        a = g.render(A, m, r.randint(30, 70), r.random() < 0.7)
        h, w = a.shape
        under = r.choice(["white", "kraft", "code", "code"])
        codes = [A]
        W, H = w + 80, h + 80
        if under == "kraft":
            c = Canvas(W, H); c.a = kraft(W, H, g)
        else:
            c = Canvas(W, H)
        p = {}
        if under == "code":
            B = g.main_code()
            b = g.render(B, m * r.uniform(0.95, 1.05), r.randint(30, 70), r.random() < 0.7)
            rel = r.uniform(-3, 3)
            b, mb = rotate_arr(b, rel)
            bx = 40 + int(r.uniform(-0.3, 0.3) * w); by = 40 + int(r.uniform(-0.3, 0.3) * h)
            c.place(b, bx, by, "paste", mb)
            codes.append(B)
            p.update(under_rel=round(rel, 1), under_dx=bx - 40, under_dy=by - 40)
        # torn mask: keep the part on one side of a jagged line
        side = r.choice(["right", "left", "top", "diag"])
        mask = Image.new("L", (w, h), 255)
        d = ImageDraw.Draw(mask)
        pts = []
        if side in ("right", "left"):
            x = r.uniform(0.35, 0.85) * w if side == "right" else r.uniform(0.15, 0.65) * w
            slope = r.uniform(-0.4, 0.4)
            for yy in range(0, h + 6, 6):
                pts.append((x + slope * (yy - h / 2) + r.uniform(-2, 2) * m, yy))
            poly = pts + ([(w, h), (w, 0)] if side == "right" else [(0, h), (0, 0)])
        elif side == "top":
            y = r.uniform(0.2, 0.6) * h
            for xx in range(0, w + 6, 6):
                pts.append((xx, y + r.uniform(-2, 2) * m))
            poly = pts + [(w, 0), (0, 0)]
        else:
            x0, x1 = r.uniform(0, 0.6) * w, r.uniform(0.4, 1.0) * w
            for k in range(0, 31):
                t = k / 30
                pts.append((x0 + (x1 - x0) * t + r.uniform(-2, 2) * m, h * t))
            poly = pts + [(w, h), (w, 0)]
        d.polygon(poly, fill=0)
        mk = np.asarray(mask.filter(ImageFilter.GaussianBlur(0.6)), np.float32) / 255.0
        c.place(a, 40, 40, "paste", mk)
        p.update(under=under, cut=side)
        return c.a, codes, p

    def tornjoin(self, m):
        """label over label, same module and height, rows in line; the top label torn away
        past a jagged near-vertical line so that its left part and the under label's right part
        share rows (a joined-halves trap), or its right part (with its add-on) stays over the
        under code's left part."""
        g, r = self.g, self.r
        A = g.main_code(); B = g.main_code() if r.random() < 0.7 else dict(g.main_code(), addon="")
        if B["addon"] == "" and "+" in B["data"]:
            B["data"] = B["data"].split("+")[0]
        ht = r.randint(30, 70)
        a = g.render(A, m, ht, r.random() < 0.6)
        b = g.render(B, m, ht + r.randint(-5, 5), r.random() < 0.6)
        rel = r.uniform(-1.5, 1.5)
        b, mb = rotate_arr(b, rel)
        h, w = a.shape
        W, H = max(w, b.shape[1]) + 160, max(h, b.shape[0]) + 160
        c = Canvas(W, H)
        dx = int(round(r.uniform(-8, 8) * m)); dy = int(r.uniform(-0.25, 0.25) * h)
        c.place(b, 80 + dx, 80 + dy, "paste", mb)
        keep = r.choice(["left", "right"])
        x = r.uniform(0.3, 0.7) * w
        slope = r.uniform(-0.25, 0.25)
        pts = [(x + slope * (yy - h / 2) + r.uniform(-1.5, 1.5) * m, yy) for yy in range(0, h + 5, 5)]
        mask = Image.new("L", (w, h), 255)
        ImageDraw.Draw(mask).polygon(pts + ([(w, h), (w, 0)] if keep == "left" else [(0, h), (0, 0)]), fill=0)
        mk = np.asarray(mask.filter(ImageFilter.GaussianBlur(0.6)), np.float32) / 255.0
        c.place(a, 80, 80, "paste", mk)
        return c.a, [A, B], dict(keep=keep, cut_frac=round(x / w, 2), dx=dx, dy=dy, rel=round(rel, 2))

    def carton(self, m):
        g, r = self.g, self.r
        A = g.main_code() if r.random() < 0.5 else g.ean13(addon_p=0)
        A["addon"] = A["addon"]
        codes = [A]
        a = g.render(A, m, r.randint(40, 70), True)
        others = []
        k = r.random()
        itf = g.itf14_of(A)
        if k < 0.45:
            others.append(itf)
        elif k < 0.75:
            others.append(g.gs1_128(itf["text"]))
        else:
            others += [itf, g.gs1_128(itf["text"]) if r.random() < 0.6 else g.code128()]
        arrs = []
        for o in others:
            mo = m * r.uniform(0.6, 1.1)
            arrs.append(g.render(o, mo, r.randint(20, 50) if o["sym"] != "ITF-14" else None, True))
        codes += others
        layout = r.choice(["row", "column"])
        gap = int(r.uniform(0, 40) * m / 2) - int(2 * m)
        items = [(a, "paste")] + [(x, "min") for x in arrs]
        r.shuffle(items)
        if layout == "row":
            W = sum(x.shape[1] for x, _ in items) + gap * (len(items) - 1) + 80
            H = max(x.shape[0] for x, _ in items) + 80
        else:
            W = max(x.shape[1] for x, _ in items) + 80
            H = sum(x.shape[0] for x, _ in items) + gap * (len(items) - 1) + 80
        c = Canvas(W, H); c.a = kraft(W, H, g)
        x, y = 40, 40
        for arr, mode in items:
            rel = r.uniform(-4, 4) if r.random() < 0.4 else 0
            arr2, mk = rotate_arr(arr, rel) if rel else (arr, None)
            jit = int(r.uniform(-0.2, 0.2) * (arr.shape[0] if layout == "row" else arr.shape[1]))
            if layout == "row":
                c.place(arr2, x, y + max(0, jit), mode, mk); x += arr.shape[1] + gap
            else:
                c.place(arr2, x + max(0, jit), y, mode, mk); y += arr.shape[0] + gap
        return c.a, codes, dict(layout=layout, gap_px=gap, n=len(items))

    def crossed(self, m):
        g, r = self.g, self.r
        k = r.random()
        A = g.main_code() if k < 0.8 else (g.ean8() if k < 0.9 else g.upce())
        a = g.render(A, m, r.randint(30, 70), r.random() < 0.7)
        h, w = a.shape
        im = Image.fromarray(a.astype(np.uint8))
        d = ImageDraw.Draw(im)
        what = []
        for _ in range(r.randint(1, 4)):
            t = r.random()
            col = r.randint(0, 90)
            if t < 0.4:
                ang = r.choice([r.uniform(-15, 15), r.uniform(0, 180)])
                cx, cy = r.uniform(0, w), r.uniform(0, h)
                L = max(w, h)
                dx, dy = L * math.cos(math.radians(ang)), L * math.sin(math.radians(ang))
                d.line([(cx - dx, cy - dy), (cx + dx, cy + dy)], fill=col, width=r.randint(1, max(1, int(1.5 * m))))
                what.append("line%.0f" % ang)
            elif t < 0.75:
                s = r.choice(["SALE", "-30%", "2 FOR $5", "BEST BEFORE 12/25", "LOT A1234", "0123456789",
                              "||| ||", "NEW", "EUR 3,99"])
                size = int(r.uniform(0.15, 0.5) * h)
                f = ImageFont.truetype(r.choice([FONT, FONT2]), max(8, size))
                d.text((r.uniform(0, w * 0.7), r.uniform(0, h * 0.8)), s, fill=col, font=f)
                what.append("text")
            else:
                sw, sh = r.uniform(0.1, 0.35) * w, r.uniform(0.2, 0.6) * h
                sx, sy = r.uniform(0, w - sw), r.uniform(0, h - sh)
                fillc = r.choice([255, r.randint(150, 230), r.randint(20, 80)])
                d.rectangle([sx, sy, sx + sw, sy + sh], fill=fillc, outline=0)
                f = ImageFont.truetype(FONT, max(8, int(sh * 0.35)))
                d.text((sx + 3, sy + 3), r.choice(["%d%%" % r.randint(10, 50), "SALE", "$%d" % r.randint(1, 9)]),
                       fill=255 - fillc if fillc != 255 else 0, font=f)
                what.append("sticker")
        a = np.asarray(im, np.float32)
        c = Canvas(w + 60, h + 60)
        c.place(a, 30, 30)
        return c.a, [A], dict(marks=what)

    def price(self, m):
        g, r = self.g, self.r
        A = g.main_code()
        a = g.render(A, m, r.randint(30, 60), True)
        h, w = a.shape
        codes = [A]
        lw, lh = int(w * r.uniform(0.6, 1.1)), int(h * r.uniform(0.6, 1.2))
        lab = Image.new("L", (lw, lh), r.choice([255, 245, 230]))
        d = ImageDraw.Draw(lab)
        d.rectangle([0, 0, lw - 1, lh - 1], outline=0, width=max(1, int(m / 2)))
        price = "%d.%02d" % (r.randint(0, 99), r.choice([99, 49, 95, 0, 29]))
        f = ImageFont.truetype(FONT, max(10, int(lh * 0.4)))
        d.text((lw * 0.1, lh * 0.08), price, fill=0, font=f)
        f2 = ImageFont.truetype(FONT2, max(8, int(lh * 0.09)))
        d.text((lw * 0.05, lh * 0.58), "ART %s  %s/kg" % (g.digits(6), price), fill=0, font=f2)
        labarr = np.asarray(lab, np.float32).copy()
        if r.random() < 0.5:
            E = g.ean8(addon_p=0) if r.random() < 0.6 else g.code128()
            e = g.render(E, m * r.uniform(0.5, 0.8), r.randint(12, 20), r.random() < 0.5)
            eh, ew = e.shape
            if eh < lh * 0.4 + 2 or True:
                ex, ey = int(lw * 0.05), int(lh * 0.68)
                sub = labarr[ey:ey + eh, ex:ex + ew]
                sub[:] = np.minimum(sub, e[:sub.shape[0], :sub.shape[1]])
                if sub.shape[0] >= eh * 0.8 and sub.shape[1] >= ew:
                    codes.append(E)
                else:
                    codes.append(dict(E, partial=True))
        side = r.choice(["right", "left", "below", "over"])
        gap = int(r.uniform(-4, 30))
        if side in ("right", "left"):
            W, H = w + lw + gap + 80, max(h, lh) + 80
        else:
            W, H = max(w, lw) + 80, h + lh + gap + 80
        c = Canvas(W, H, r.choice([255, r.uniform(120, 220)]))
        dy = int(r.uniform(-0.2, 0.2) * h)
        if side == "right":
            c.place(a, 40, 40); c.place(labarr, 40 + w + gap, 40 + max(0, dy), "paste")
        elif side == "left":
            c.place(labarr, 40, 40 + max(0, dy), "paste"); c.place(a, 40 + lw + gap, 40)
        elif side == "below":
            c.place(a, 40, 40); c.place(labarr, 40 + int(r.uniform(0, max(1, w - lw))), 40 + h + gap, "paste")
        else:  # price sticker pasted over part of the code's end (covers bars or add-on)
            c.place(a, 40, 40)
            c.place(labarr, 40 + int(w * r.uniform(0.7, 0.95)), 40 + int(r.uniform(-0.3, 0.5) * h), "paste")
        return c.a, codes, dict(side=side, gap=gap, price=price)

    def ean8pair(self, m):
        g, r = self.g, self.r
        if r.random() < 0.7:
            A, B = g.ean13(addon_p=0.3) if r.random() < 0.7 else g.isbn(), g.ean8(addon_p=0.3)
        else:
            A, B = g.upca(addon_p=0.3), g.upce(addon_p=0.3)
        a = g.render(A, m, r.randint(30, 70), r.random() < 0.7)
        b = g.render(B, m * r.uniform(0.7, 1.05), r.randint(25, 60), r.random() < 0.7)
        rel = r.choice([0, 0, r.uniform(-5, 5)])
        b, mb = rotate_arr(b, rel)
        side = r.choice(["right", "right", "left", "above", "below"])
        gap = int(r.uniform(-4, 30)) - int(2 * m)  # the pads are 2m each
        dy = int(r.uniform(-0.4, 0.4) * a.shape[0])
        if side in ("right", "left"):
            W, H = a.shape[1] + b.shape[1] + max(gap, 0) + 80, max(a.shape[0], b.shape[0]) + abs(dy) + 80
        else:
            W, H = max(a.shape[1], b.shape[1]) + abs(dy) + 80, a.shape[0] + b.shape[0] + max(gap, 0) + 80
        c = Canvas(W, H)
        mode = "min"
        if side == "right":
            c.place(a, 40, 40 + max(0, -dy)); c.place(b, 40 + a.shape[1] + gap, 40 + max(0, dy), mode, mb)
        elif side == "left":
            c.place(b, 40, 40 + max(0, dy), mode, mb); c.place(a, 40 + b.shape[1] + gap, 40 + max(0, -dy), mode)
        elif side == "above":
            c.place(b, 40 + max(0, dy), 40, mode, mb); c.place(a, 40, 40 + b.shape[0] + gap, mode)
        else:
            c.place(a, 40, 40); c.place(b, 40 + max(0, dy), 40 + a.shape[0] + gap, mode, mb)
        return c.a, [A, B], dict(side=side, gap=gap, dy=dy, rel=round(rel, 1))


def finish(arr, g, p, force_degrade=False):
    r = g.r
    im = Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8))
    if r.random() < (0.6 if force_degrade else 0.25):
        im = perspective(im, g, 0.15 if force_degrade else 0.1); p["persp"] = True
    ang = r.uniform(0, 360) if r.random() < 0.6 else r.uniform(-10, 10)
    p["angle"] = round(ang, 1)
    im = im.rotate(ang, resample=Image.BICUBIC, expand=True, fillcolor=int(r.uniform(200, 255)))
    a = np.asarray(im, np.float32)
    if r.random() < (0.5 if force_degrade else 0.2):
        a = glare(a, g); p["glare"] = True
    # light gradient + noise
    h, w = a.shape
    a = a * (1 - r.uniform(0, 0.25) * np.linspace(0, 1, w)[None, :])
    a = a + g.np.normal(0, r.uniform(1, 8 if force_degrade else 5), a.shape)
    im = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if r.random() < (0.9 if force_degrade else 0.3):
        p["blur"] = round(r.uniform(0.6, 1.8 if force_degrade else 1.4), 2)
        im = im.filter(ImageFilter.GaussianBlur(p["blur"]))
    if max(im.size) > 1400:
        s = 1400 / max(im.size)
        im = im.resize((int(im.size[0] * s), int(im.size[1] * s)), Image.BILINEAR); p["fit"] = round(s, 2)
    jpeg = r.random() < (0.6 if force_degrade else 0.2)
    if jpeg:
        p["jpeg"] = r.randint(25, 60) if force_degrade else r.randint(40, 80)
    return im, jpeg


def main():
    if len(sys.argv) < 4 or sys.argv[1].startswith("-"):
        sys.exit(__doc__)
    out, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    fams = sys.argv[4].split(",") if len(sys.argv) > 4 else FAMILIES
    os.makedirs(out, exist_ok=True)
    g = Gen(seed)
    L = Layouts(g)
    manifest, layouts = [], []
    for fam in fams:
        for i in range(n):
            if fam == "lowres":
                base = g.r.choice(FAMILIES[:-1])
                m = g.r.uniform(1.5, 2.0)
                arr, codes, p = getattr(L, base)(m)
                p["base"] = base
            else:
                m = L.module()
                arr, codes, p = getattr(L, fam)(m)
            p["module"] = round(m, 2)
            im, jpeg = finish(arr, g, p, fam == "lowres")
            name = "%s-%04d.%s" % (fam, i, "jpg" if jpeg else "png")
            path = os.path.join(out, name)
            if jpeg:
                im.save(path, quality=p["jpeg"])
            else:
                im.save(path)
            first = codes[0]
            manifest.append(dict(file=name, symbology=first["sym"], text=first["text"], addon=first["addon"],
                                 others=["%s+%s" % (c["text"], c["addon"]) for c in codes[1:]], difficulty=fam,
                                 size=list(im.size)))
            layouts.append(dict(file=name, family=fam, codes=[dict(symbology=c["sym"], text=c["text"], addon=c["addon"],
                                                                   **({"partial": True} if c.get("partial") else {}))
                                                            for c in codes], params=p))
    json.dump(layouts, open(os.path.join(out, "layouts.json"), "w"), indent=1)
    json.dump(manifest, open(os.path.join(out, "manifest.json"), "w"), indent=1)
    print(len(manifest), "images in", out)


if __name__ == "__main__":
    main()
