#!/usr/bin/env bash
# How the decoder fixtures were made (Debian 12: zint 2.12, qrencode 4.1, imagemagick 6).
# They are committed; this script documents them and remakes them on demand.
set -euo pipefail
cd "$(dirname "$0")"
Z=(zint --scale=2 --height=30 --whitesp=10 --vwhitesp=10 --notext)
"${Z[@]}" --barcode=EANX -d 590123412345 -o ean13.png
"${Z[@]}" --barcode=EANX -d 9638507 -o ean8.png
"${Z[@]}" --barcode=UPCA -d 03600029145 -o upca.png
"${Z[@]}" --barcode=UPCE -d 0123456 -o upce.png
"${Z[@]}" --barcode=C25INTER -d 12345678 -o itf.png
"${Z[@]}" --barcode=ITF14 -d 1540014128876 --box --border=0 -o itf14.png
"${Z[@]}" --barcode=CODE39 -d "SCAND-39" -o code39.png
"${Z[@]}" --barcode=CODE93 -d "SCAND93" -o code93.png
"${Z[@]}" --barcode=CODE128 -d "scand-128/ok" -o code128.png
"${Z[@]}" --barcode=CODABAR -d "A40156B" -o codabar.png
"${Z[@]}" --barcode=DBAR_OMN -d 0950110153001 -o databar.png
qrencode -s 6 -m 4 -o qr.png "https://example.org/kiosk?id=42"
/usr/bin/convert qr.png -background white -rotate 33 -resize 90% rotated-qr.png
# Binary payload: bytes 0x00..0x0F, 0x80..0x8F, 0xFF.
printf '\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x80\x81\x82\x83\xfe\xff' > /tmp/scand-binary.bin
qrencode -8 -s 6 -m 4 -r /tmp/scand-binary.bin -o binary-qr.png
# Two codes side by side: a QR code on the left, a Code 128 on the right.
/usr/bin/convert qr.png -background white -gravity center -extent 300x300 +repage /tmp/left.png
/usr/bin/convert code128.png -background white -gravity center -extent "$(/usr/bin/identify -format %w code128.png)x300" +repage /tmp/right.png
/usr/bin/convert /tmp/left.png /tmp/right.png -background white +append +repage -colorspace Gray two-codes.png
# No code: a smooth gradient with noise.
/usr/bin/convert -size 320x240 gradient:gray20-gray80 +noise Gaussian -colorspace Gray no-code.png
/usr/bin/convert ean13.png -colorspace Gray ean13.jpg
/usr/bin/convert ean8.png -colorspace Gray pgm:ean8.pgm
head -c 600 ean13.jpg > truncated.jpg
printf 'this is not an image\n' > not-an-image.txt
/usr/bin/convert -size 16x8 xc:black -fill white -draw "rectangle 8,0 15,7" -colorspace Gray -quality 95 gradient-16x8.jpg
# The 2D seed symbologies zbar cannot read, and Code 39 with its mod 43 check character.
zint --barcode=PDF417 --scale=2 --whitesp=10 --vwhitesp=10 -d "scand PDF417 fixture" -o pdf417.png
zint --barcode=AZTEC --scale=4 --whitesp=8 --vwhitesp=8 -d "scand Aztec fixture" -o aztec.png
zint --barcode=AZRUNE -d 68 --scale=3 --whitesp=4 --vwhitesp=4 -o aztec-rune-68.png
zint --barcode=AZRUNE -d 201 --scale=2 -o aztec-rune-201.png  # no quiet zone
zint --barcode=DATAMATRIX --scale=4 --whitesp=8 --vwhitesp=8 -d "scand DataMatrix fixture" -o datamatrix.png
"${Z[@]}" --barcode=CODE39 --vers=1 -d "MOD43" -o code39-mod43.png
# Binary DataMatrix: bytes 0x00..0x07 and 0xF0..0xFF.
printf '\x00\x01\x02\x03\x04\x05\x06\x07\xf0\xf8\xff' > /tmp/scand-dm.bin
zint --barcode=DATAMATRIX --binary --scale=4 --whitesp=8 --vwhitesp=8 -i /tmp/scand-dm.bin -o binary-datamatrix.png
# Two samples from zxing-cpp's black-box tests (Apache License 2.0, github.com/zxing-cpp/zxing-cpp,
# test/samples; via ../shared/corpus/zxing-cpp): a blurred UPC-A zbar misreads, and a Code 32.
cp ../../../shared/corpus/zxing-cpp/upca-4/1.png blurred-upca.png
cp ../../../shared/corpus/zxing-cpp/code39-1/code32-1.png code32.png
# Decompression bombs (issue 12): headers that declare huge images in a few bytes. The PNG is an
# IHDR of 20000x20000 with one compressed row; the JPEG is gradient-16x8.jpg with its SOF size
# patched to 65000x65000; the PGM declares 4294967296x4294967296.
python3 -c '
import zlib, struct
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
open("bomb-20000x20000.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 20000, 20000, 8, 0, 0, 0, 0))
    + chunk(b"IDAT", zlib.compress(b"\x00" * 20001, 9)) + chunk(b"IEND", b""))
d = bytearray(open("gradient-16x8.jpg", "rb").read())
i = next(i for i in range(len(d) - 1) if d[i] == 0xFF and d[i + 1] in (0xC0, 0xC1, 0xC2))
d[i + 5:i + 9] = (65000).to_bytes(2, "big") * 2
open("bomb-65000x65000.jpg", "wb").write(d)'
printf 'P5\n4294967296 4294967296\n255\n' > huge-header.pgm
# An ITF-14 (12183637890192) crossed by a dark stroke near its middle, from the misread set of
# bench/make-devset.py (--seed 77 --crossed 12, ITF-14-06-crossed.jpg): engines read the digits
# right of the stroke as an ITF of 8 (issue 18).
# (cd ../../bench && ../.build/zxing-cpp-venv/bin/python make-devset.py /tmp/cross77 --seed 77 --crossed 12)
# cp /tmp/cross77/ITF-14-06-crossed.jpg itf14-crossed.jpg
# An ITF-14 (62818983471355) under a glare spot, cut from the held-out set of bench/make-devset.py
# (--seed 4242, ITF-14-10-glare.jpg, x 800-1560, y 480-720): zxing reads it, zbar does not, and
# zxing reads it again from the crop at 3/4 size but not at twice its size (issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev4242/ITF-14-10-glare.jpg").convert("L").crop((800, 480, 1560, 720)).save("glare-itf14.png")'
# A Code 128 (gCZSh4zlwH) half in a shadow, in perspective, blurred and noisy ("hard"), cut
# from bench/make-devset.py's set --seed 5151 (Code-128-11-hard.png, x 200-760, y 360-580): no
# threshold or pass reads it until the light is divided out (`ImagePass.flatField`; issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev5151/Code-128-11-hard.png").convert("L").crop((200, 360, 760, 580)).save("code128-shadow.png")'
# A Code 39 (T0QLMGE) under a glare spot that lifts its left bars towards the paper, cut from
# bench/make-devset.py's set --seed 4242 (Code-39-10-glare.jpg, x 540-1040, y 380-600): read
# only once each pixel is stretched between the dark and light levels near it
# (`ImagePass.localRange`; issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev4242/Code-39-10-glare.jpg").convert("L").crop((540, 380, 1040, 600)).save("code39-glare.png")'
# A PDF417 in a dark 1920x1080 frame (light at a tenth to a fifth), bench/make-devset.py's set
# --seed 5151 as it is (PDF417-07-dark.jpg): read only at half size, where averaging four pixels
# quiets the noise the dark brought up (`ImagePass.downscale`; issue 18).
# cp /tmp/dev5151/PDF417-07-dark.jpg pdf417-dark.jpg
# A 48x48 DataMatrix (four data regions, each with its own finder and clock tracks), 4 px a
# module, no quiet zone; and a close-up of it printed: seen at a slight slant through a blurred
# lens, with sensor noise, filling the image to its edges (zxing 1.4 and zxing-cpp 3.1 miss it;
# issue 18).
zint --barcode=DATAMATRIX --vers=14 --square -d "scand 48x48: four data regions, printed tight" --scale=2 -o datamatrix-48.png
../../.build/zxing-cpp-venv/bin/python -c '
import numpy as np
from PIL import Image, ImageFilter
im = Image.open("datamatrix-48.png").convert("L"); W, H = im.size; pad = 40
big = Image.new("L", (W + 2 * pad, H + 2 * pad), 255); big.paste(im, (pad, pad))
big = big.transform(big.size, Image.QUAD, [pad - 2, pad + 2, pad + 2, pad + H - 2, pad + W + 2, pad + H + 4, pad + W - 1, pad - 2],
                    resample=Image.BICUBIC, fillcolor=255)
a = np.array(big.filter(ImageFilter.GaussianBlur(1.0)), dtype=np.float32) * 0.7 + 40 + np.random.default_rng(7).normal(0, 8, big.size[::-1])
Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save("datamatrix-48-tight.png")'
# A photo of a full-range Aztec at a slant, from zxing-cpp's black-box tests (Apache License 2.0,
# test/samples/aztec-2/04.png, via ../shared/corpus/zxing-cpp): a window of 20 modules round its
# bullseye cuts its edges (issue 18).
cp ../../../shared/corpus/zxing-cpp/aztec-2/04.png aztec-photo.png
# A QR code of 25 modules about 28 pixels wide in a 1080p frame, cut from bench/make-devset.py's
# set --seed 4242 (QR-Code-08-small.jpg, x 56-204, y 174-322), and an upside-down Aztec in a
# 640x480 frame, --seed 5151 (Aztec-02-upsidedown.png, x 472-563, y 276-366): no pass reads
# them until the frame is enlarged 2.5 times with bicubic interpolation (`ImagePass.resampled`;
# issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev4242/QR-Code-08-small.jpg").convert("L").crop((56, 174, 204, 322)).save("qr-small.png")'
# python3 -c 'from PIL import Image; Image.open("/tmp/dev5151/Aztec-02-upsidedown.png").convert("L").crop((472, 276, 563, 366)).save("aztec-upsidedown-small.png")'
# A PDF417 of "locker-54037243476" in perspective, blurred, noisy and half in shadow, bench/
# make-devset.py's set --seed 7373 as it is (PDF417-11-hard.jpg): zxing-cpp 3.1 reads it as
# "VFXZXKR-@WHBI-TWQY" with all its error correction spent; cropped, it reads as nothing or as
# the right text (issue 18).
# cp /tmp/dev7373/PDF417-11-hard.jpg pdf417-miscorrected.jpg
# A QR code out of focus in a 640x480 frame, cut from bench/make-devset.py's set --seed 4242
# (QR-Code-04-blur.jpg, x 185-285, y 194-293): read only once the frame is sharpened and
# enlarged 2.5 times (`ImagePass.resampled`'s second image; issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev4242/QR-Code-04-blur.jpg").convert("L").crop((185, 194, 285, 293)).save("qr-blurred.png")'
# Codes under glare that clips the paper to white and lifts the bars to a light grey, cut from
# bench/make-devset.py's sets: a UPC-A of 725078102615, --seed 5151 (UPC-A-10-glare.png, x
# 180-560, y 60-300), and a DataMatrix of "scand-1590", --seed 1818 (DataMatrix-10-glare.png,
# x 310-440, y 150-280): read only once the brightest tones are spread over the whole range
# (`ImagePass.highlights`; issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev5151/UPC-A-10-glare.png").convert("L").crop((180, 60, 560, 300)).save("upca-glare.png")'
# python3 -c 'from PIL import Image; Image.open("/tmp/dev1818/DataMatrix-10-glare.png").convert("L").crop((310, 150, 440, 280)).save("datamatrix-glare.png")'
# The same DataMatrix under glare in its whole 640x480 frame, as it is: read by `ImagePass.regionLooks`
# (the code's small region under the highlights curve) before any whole-frame pass (issue 42).
# cp /tmp/dev1818/DataMatrix-10-glare.png datamatrix-glare-scene.png
# An Aztec of "gate-98472943" under glare, --seed 4242 (Aztec-10-glare.jpg, x 396-516, y 575-697):
# read only by the resampled look's third image, the enlarged frame under the highlights curve.
# python3 -c 'from PIL import Image; Image.open("/tmp/dev4242/Aztec-10-glare.jpg").convert("L").crop((396, 575, 516, 697)).save("aztec-glare.png")'
# A small Aztec (about 1.5 pixels a module) of "https://example.org/scand-7051027", --seed 5151
# (Aztec-08-small.jpg, x 300-390, y 110-198): read only by the resampled look's fourth image, the
# enlargement sharpened after it.
# python3 -c 'from PIL import Image; Image.open("/tmp/dev5151/Aztec-08-small.jpg").convert("L").crop((300, 110, 390, 198)).save("aztec-small-sharp.png")'
# A UPC-A of 739695422681 under glare, cut from bench/make-devset.py's set --seed 3579
# (UPC-A-10-glare.jpg, x 240-650, y 170-390): zbar and zxing both read it as 739695488687, a valid
# code whose bars fit the image; under the highlights curve zbar reads the code (issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev3579/UPC-A-10-glare.jpg").convert("L").crop((240, 170, 650, 390)).save("upca-glare-misread.png")'
# A UPC-E of 07249969 crossed by a dark line, cut from bench/make-devset.py's set --seed 4343
# --crossed 12 (UPC-E-07-crossed.png, x 100-380, y 100-300): zxing (fixed threshold) and zbar
# each read both the code and 07249949, along the line; zxing's misread fitted the checks and
# was the pipeline's answer. One engine's two different EAN/UPC reads in one place now count
# for neither (issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/cross4343/UPC-E-07-crossed.png").convert("L").crop((100, 100, 380, 300)).save("upce-crossed.png")'
# A Code 39 of H83UJ under glare that zxing reads and zbar does not, cut from bench/make-devset.py's
# set --seed 2468 (Code-39-10-glare.png, x 190-670, y 160-360): on several threads the first look
# accepts zxing's read on zxing's own reread from a resampled crop, without zbar's look at the
# whole region (issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev2468/Code-39-10-glare.png").convert("L").crop((190, 160, 670, 360)).save("code39-zxing-only.png")'
# A blurred Code 128 of U8b82T, bench/make-devset.py's set --seed 6262 as it is
# (Code-128-04-blur.jpg, 1920x1080): only zxing reads it, from the sharpened and from the
# deconvolved frame, and never again from a crop; two passes' images that agree now count for
# a code with a check character (issue 18). Cut out, the frame's passes read it differently.
# cp /tmp/dev6262/Code-128-04-blur.jpg code128-blur.jpg
# A clean ITF of 885877356459 turned 23° on a card, cut from bench/make-devset.py's set --seed 1357
# (ITF-01-rotated.png, x 880-1640, y 540-1060): the card's noise in the quiet zone, measured
# against its own narrow range, counted as bars, and the turned code's read was dropped as a
# part of a longer ITF (issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev1357/ITF-01-rotated.png").convert("L").crop((880, 540, 1640, 1060)).save("itf-turned.jpg", quality=90)'
# A Code 128 of iiWIO5TPV7PL2X turned 37° on a card, bench/make-devset.py's set --seed 2026 as it
# is (Code-128-01-rotated.png, 640x480): it fills a fifth of its upright box, and the region
# finder, asking for a third, passed it over; its extent along its own axes now counts (issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev2026/Code-128-01-rotated.png").convert("L").save("code128-turned.jpg", quality=90)'
# A Code 39 of HB01J blurred by 2.5-3 px, cut from bench/make-devset.py's set --seed 5151
# (Code-39-04-blur.jpg, x 1150-1790, y 60-540): deconvolved for the fixed lens blurs of 1.5 and
# 2 px it is read by nothing; for the frame's own blur (FrameCondition.fittedLensBlur(beyond:)), by zxing
# (issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev5151/Code-39-04-blur.jpg").convert("L").crop((1150, 60, 1790, 540)).save("code39-blur-wide.png")'

# aztec-blur-plane.png: an Aztec of REF-ticket-86397769608 blurred by about 1.6 px (its edge spread),
# cut from a 640x480 scene of bench/make-devset.py's set --seed 7373 (Aztec-04-blur.png). Deconvolved
# along rows and columns it is read by nothing; in two dimensions (PlaneDeconvolution), by zxing
# (issue 18).
# python3 -c 'from PIL import Image; Image.open("/tmp/dev7373/Aztec-04-blur.png").convert("L").crop((240, 110, 480, 320)).save("aztec-blur-plane.png", optimize=True)'
# A DataMatrix between two QR codes (scan.multiple): the second QR is nearer the middle.
qrencode -s 6 -m 4 -o /tmp/qr-second.png "scand second QR"
/usr/bin/convert qr.png \( datamatrix.png -bordercolor white -border 20 \) \( /tmp/qr-second.png -bordercolor white -border 30 \) \
  -background white -gravity center +append +repage -bordercolor white -border 30 three-codes.png
# Add-ons (issue 42): a book's ISBN with its EAN-5 price (US$24.95), a UPC-A with an EAN-2.
"${Z[@]}" --barcode=ISBNX -d "9780306406157+52495" -o isbn-price.png
"${Z[@]}" --barcode=UPCA -d "03600029145+07" -o upca-addon2.png
# A Code 39 (1HAH) beside a Code 128 that zxing-cpp 3.1 reads backwards as the EAN-13
# 4181222111111: bench/make-misreads.py OUT --count 20 --seed 777, beside-15.jpg, as made.
# GS1 (issue 42): element strings in GS1-128 and GS1 DataMatrix, one with a wrong GTIN check
# digit (zint checks GS1 data unless told not to), and a Digital Link in a plain QR code.
"${Z[@]}" --barcode=GS1_128 --gs1 -d "[01]09506000134352[3103]001250[15]261200[10]LOT7" -o gs1-128.png
"${Z[@]}" --barcode=GS1_128 --gs1 --gs1nocheck -d "[01]09506000134353[17]261231" -o gs1-128-bad-check.png
zint --barcode=DATAMATRIX --gs1 -d "[01]09506000134352[17]201231[10]ABC123[21]XYZ" --scale=4 --whitesp=8 --vwhitesp=8 -o gs1-datamatrix.png
zint --barcode=QRCODE -d "https://id.gs1.org/01/09506000134352/10/ABC?17=201231" --scale=4 --whitesp=8 --vwhitesp=8 -o gs1-digital-link.png
# A UPC-E or EAN-8 read from a part of a longer code (its ends have no quiet zone): an EAN-13 of
# 7674269897560+66 turned 27°, cut from bench/make-misreads.py's add-on set --seed 4242 --addons
# (EAN-13plus2-skew-03.png, x 590-930, y 270-530), where zxing asked for every code read the
# UPC-E 16742697 along a row across its left half; and a whole UPC-E with an EAN-2 7 modules
# past its end guard, which keeps its read.
# python3 -c 'from PIL import Image; Image.open("/tmp/add4242/EAN-13plus2-skew-03.png").convert("L").crop((590, 270, 930, 530)).save("ean13-addon-skew.png")'
"${Z[@]}" --barcode=UPCE -d "0123456+12" --addongap=7 -o upce-addon2.png
# A UPC-E with an EAN-5, its digits printed: the add-on reaches further past the code's end than
# the UPC-E is long (a tryout: read without its add-on where add-ons are read).
zint --scale=2 --height=30 --whitesp=10 --vwhitesp=10 --barcode=UPCE -d "0123456+12345" -o upce-addon5.png
# isbn-over-ean13-turned.png: an ISBN with its price (9780306406157+52495) stacked 10 px over a
# plain EAN-13 (5901234123457), both drawn by zint with their digits, turned 33° (a tryout's
# image: the plain EAN-13 got the ISBN's add-on, whose bars lay past its end beside its bars).
# isbn-over-ean13-turned66.png: the same two codes (zint -b EANX -d 9780306406157+52495 and
# -d 590123412345), the ISBN pasted 10 px over the EAN-13 on a 30 px white border, turned 66°: a
# slanted scan line crosses the EAN-13 and then the ISBN's price, a code's height to one side,
# and zxing read them as one code with an add-on in every look (a misread before
# AddOnReader.liesBeside):
# python3 -c 'from PIL import Image; a=Image.open("isbn.png").convert("L"); b=Image.open("ean.png").convert("L"); im=Image.new("L",(max(a.size[0],b.size[0])+60,a.size[1]+b.size[1]+70),255); im.paste(a,(30,30)); im.paste(b,(30,a.size[1]+40)); im.rotate(66,resample=Image.BICUBIC,expand=True,fillcolor=255).save("isbn-over-ean13-turned66.png")'
# isbn-price.png turned 30° (a tryout: EAN-13+5 turned 20-45°, read from the rotate pass's image,
# whose turn cut the add-on off, went out without it):
# python3 -c 'from PIL import Image; im=Image.open("isbn-price.png").convert("L"); w,h=im.size; b=Image.new("L",(w+60,h+60),255); b.paste(im,(30,30)); b.rotate(30,resample=Image.BICUBIC,expand=True,fillcolor=255).save("isbn-price-turned.png")'
# ean13-addon-turned.png: an EAN-13 with its add-on, turned 58° and shrunk to 0.8 (a tryout's image;
# read as UPC-E 16742697 from a tile at the accurate quality with UPC-E and EAN-8 alone enabled):
# zint -b EANX -d 7674269897560+66 -o a.png
# python3 -c 'from PIL import Image; im=Image.open("a.png").convert("L"); w,h=im.size; b=Image.new("L",(w+60,h+60),255); b.paste(im,(30,30)); r=b.rotate(58,expand=True,fillcolor=255,resample=Image.BICUBIC); r.resize((int(r.size[0]*0.8),int(r.size[1]*0.8)),Image.BILINEAR).save("ean13-addon-turned.png")'
# ean13-fine-turned.png: zint -b EANX -d 400638133393 (4006381333931) on a 40 px white border,
# turned 16° (PIL, bicubic, expand) and shrunk to 0.55 (bilinear): modules of 1.1 px, where
# zxing's other thresholds read 4018381333231 (bench/make-misreads.py --turns, k1-a016-s055.png).
# ean13-addon2-turned7.png and upce-addon2-turned14.png: bench/make-addon-traps.py's R2 and R3
# (zint -b EANX -d 590123412345+12 turned 7° at 0.75; zint -b UPCE -d 0123456+12 turned 14° at
# 0.70), whose EAN-2 zxing read as 72 in every look.
# ean13-lone-ean5-above.png and ean8-lone-ean2-below.png: bench/make-addon-traps.py's R4 and R5
# (an EAN-13 with a lone EAN-5 77777 past its end, 100 px higher; an EAN-8 with a lone EAN-2 12
# past its end, 105 px lower), whose lone add-on was attached sharing a few of the code's rows.
# upca-lone-ean2-90-below.png: bench/make-lone-addons.py /tmp/lone (seed 7), lone090-upca-e2-dy90.png
# as it is (a UPC-A with a lone EAN-2 12 past its end, 90 px lower, turned and at 0.7): read with
# the 12 from a place taken to span the code and an add-on (issue 42).
# cp /tmp/lone/lone090-upca-e2-dy90.png upca-lone-ean2-90-below.png
# isbn-lone-ean5-past-price.png: bench/make-addon-traps.py's R6 as it is (an ISBN with its price
# 52495 and a lone EAN-5 77777 printed past the price along its bars, turned 150° at 0.75): the
# fitted look read the lone 77777 as the price (issue 42).
# cp /tmp/traps/R6-isbn-lone-ean5-below-addon.png isbn-lone-ean5-past-price.png
# ean13-addon2-47.png: bench/make-addon-traps.py's R1 as it is (an EAN-13 4006381333931 with its
# EAN-2 47, at 0.7): zxing's rows across the code's middle read the add-on as 37, and a look that
# read every code (`scand decode`) sent 37 (issue 42).
# cp /tmp/traps/R1-ean13p2-47.png ean13-addon2-47.png
# isbn-beside-upca-turned60.png: bench/make-addon-traps.py's R8 as it is (an ISBN with its price
# 52495 beside a UPC-A with its own EAN-5 51000, turned 60°): on two threads zbar read the UPC-A
# first, and zxing read it on a line 35° off its axis with the ISBN's price (issue 42).
# cp /tmp/traps/R8-isbn-over-upca5.png isbn-beside-upca-turned60.png
# ean8-lone-ean2-90-below.png: bench/make-lone-addons.py /tmp/lone (seed 7), lone059, as it is (an EAN-8 with a lone
# EAN-2 12 past its end, 90 px lower): with `addon = "require"` the deep passes looked on and one
# read the code on its top rows, where the add-on's run of rows was cut by the rows' window and
# seemed in line; sent as 1234567012 (issue 42).
# cp /tmp/lone/lone059-ean8-e2-dy90.png ean8-lone-ean2-90-below.png
# ean13-addon2-touching-ean13.png: bench/make-addon-stacks.py /tmp/stacks (seed 11), stack024, as
# it is (an EAN-13 4006381333931 with its EAN-2 47 printed over a plain EAN-13 5901234123457, its
# digits touching the plain code's bars): the rows across bars past the plain code's end ran on
# into the upper code's, and the 47 beside those lay "in line"; sent as 5901234123457+47 (issue 42).
# cp /tmp/stacks/stack024-ean2-over-ean-a000.png ean13-addon2-touching-ean13.png
# isbn-touching-ean13-turned120.png: the same set's stack008 as it is (an ISBN with its price 52495
# over a plain EAN-13 5901234123457, touching, turned 120°): the plain code was sent with 52495.
# cp /tmp/stacks/stack008-isbn5-over-ean-a120.png isbn-touching-ean13-turned120.png
# isbn-over-ean13-addon2-gap8-turned180.png: bench/make-addon-stacks.py /tmp/stacks-gap8 --gap 8
# (seed 11), stack060, as it is (an ISBN with its price 52495, 8 px over an EAN-13 4006381333931
# with its EAN-2 47, turned 180°): the fitted look read the run of bars nearest the rows read,
# the ISBN's price, while the EAN-2 was the run in line; sent as 4006381333931+52495 (issue 42).
# cp /tmp/stacks-gap8/stack060-isbn5-over-ean2-a180.png isbn-over-ean13-addon2-gap8-turned180.png
# ean8-lone-ean2-90-below-turned150.png: bench/make-lone-addons.py /tmp/lone-turned --turned (seed
# 7), lone083, as it is (an EAN-8 with a lone EAN-2 12 past its end, 90 px lower, turned 150°):
# the code's rows and the EAN-2's both ran past the rows' window, and the part inside seemed all
# in line; sent as 1234567012 (issue 42).
# cp /tmp/lone-turned/lone083-ean8-e2-dy90-a150.png ean8-lone-ean2-90-below-turned150.png
# ean8-lone-ean5-80-below-turned270.png: the same set's lone067 as it is (an EAN-8 with a lone
# EAN-5 77777 past its end, 80 px lower, turned 270°): zxing read the code with the EAN-5 and
# placed it over both; the add-on was refused but the place kept, and a later pass's look, placed
# by it, found nothing to judge past the "end" and took zxing's 77777 (issue 42).
# cp /tmp/lone-turned/lone067-ean8-e5-dy80-a270.png ean8-lone-ean5-80-below-turned270.png
# stacked-joined.png: a UPC-A of 893791928154 with an EAN-13 of 5986804046688 printed over the
# bottom of its bars, turned about 20°, cut from bench/make-misreads.py --only stacked --count 200
# --seed 61 (stacked-09.png, x 170-460, y 130-390): zxing's first look reads a row that leaves
# the EAN-13 for the UPC-A as 5986804068154, valid and neither code (JoinedHalves):
# python3 -c 'from PIL import Image; Image.open("/tmp/stacked/stacked-09.png").convert("L").crop((170, 130, 460, 390)).save("stacked-joined.png")'
# stacked-codabar.png: a UPC-A of 287073396821 with an EAN-13 of 535131486701 over the bottom of
# its bars, cut from the same set (stacked-161.png, x 200-620, y 300-680): with every symbology
# on, zxing with one of its other thresholds reads a row through their bars as the Codabar C573A
# (BarRun.mostBars):
# python3 -c 'from PIL import Image; Image.open("/tmp/stacked/stacked-161.png").convert("L").crop((200, 300, 620, 680)).save("stacked-codabar.png")'
# stacked-mixed.png: bench/make-stacked-labels.py OUT 320 5858, image 0007.png as it is: a UPC-A
# of 038642869624 with one of 988339720199 overprinted 17 px over it, turned 98°; the pipeline
# answered 982739720100 (four digits from where the codes overlap), whose place's lines spell
# 988339720199 (JoinedHalves.Seen.contradicts).
# stacked-halves-misfit.png: bench/make-stacked-labels.py OUT 320 9393, image 0010.png as it is:
# a UPC-A of 722672519764 with one of 245904126856 overprinted over it, turned about 45°; the
# pipeline answered 245904519764 (the other code's left half and this one's right), each half
# with a digit misfit on the lines (JoinedHalves.Seen.joined, its tolerant form).
# stacked-deconvolved.png: bench/make-stacked-labels.py OUT 320 9393, image 0035.png as it is
# (made on Debian 12 with zint 2.11.1, Pillow 9.4.0, numpy 1.24.2): an EAN-13 of 2431844946922
# with a UPC-A of 321253068198 overprinted over it, 2 px modules, out of focus; only the
# `deblurred` pass read anything, a UPC-A 438043946922 of neither code, whose lines in the
# deconvolved image spell the EAN-13 (in the blurred region they fit too little to tell).
# blurred-upca-deconvolved.png: zxing-cpp's upca-2/10.png (via ../shared/corpus/zxing-cpp, Apache
# License 2.0), a real blurred UPC-A that only the `deblurred` pass reads:
# cp ../../../shared/corpus/zxing-cpp/upca-2/10.png blurred-upca-deconvolved.png
# stacked-square-joined.png: bench/make-addon-stacks.py OUT --gap -14 (seed 1), stack070 as it
# is: an ISBN 9780306406157+52495 with an EAN-13 4006381333931+47 whose bars lie over the ISBN's
# digits, turned 330°; with add-ons ignored the `rotate` pass read UPC-A 706366406141 square to
# the bars, where every line a few modules each side spells the ISBN (JoinedHalves.squareBand).
# stacked-pasted-perspective.png: bench/make-stacked-labels.py OUT 320 9393, image 0037.png as it
# is: a UPC-A of 074807984955 pasted over an EAN-13 of 7784067454756, sheared and in perspective;
# its real read's outer lines run into the EAN-13 (Seen.contradicts needs most lines).
# stacked-crossed-itf.png: bench/make-stacked-labels.py OUT 320 5858, image 0064.png as it is: a
# UPC-A of 534670070785 overprinted over an EAN-13 of 3959714943806 at a slant; a crop of the
# enhancedRegions pass read a column through both as the ITF 122544 (a two-width read from a
# part of the region is checked for its bars in the whole region).
# torn-tear.jpg, torn-under-read.jpg: bench/make-retail-layouts.py OUT 100 SEED tornjoin (a label
# torn over another in line). torn-tear.jpg: seed 6060, tornjoin-0019.jpg as it is, the EAN-13
# 4601109693085's left part over the EAN-13 2531682267651, read as 4601109692651, its ninth digit
# where the two codes' bars meet (JoinedHalves.Ends). torn-under-read.jpg: seed 9292, image
# 0030, saved as gray JPEG, quality 88:
# python3 -c 'from PIL import Image; Image.open("OUT/tornjoin-0030.png").convert("L").save("torn-under-read.jpg", quality=88)'
# the UPC-A 246453755610 read where it shows whole beside the label torn over it, its right part
# alone on the lines through that label (it stays).
# torn-halves-apart.png: bench/make-retail-layouts.py OUT 60 8181, tornjoin-0029.png as it is: the
# EAN-13 1670251014621's right part torn over 3748033517054 in line, meeting at the middle guard;
# read as 3748033014621, each half whole on its own, two modules out of one code's step
# (JoinedHalves.Ends.halvesApart).
# torn-lean.jpg: bench/make-retail-layouts.py OUT 100 9292 tornjoin, tornjoin-0039.jpg as it is:
# the EAN-13 2648021184156's left part over the UPC-A 427322819736 (turned 0.83 degrees apart from
# it) in line; read as 2648021184736, the tear digit fitting on some lines (JoinedHalves.Ends.leansApart).
# torn-covered-real.png: bench/make-retail-layouts.py OUT 100 1357 tornjoin, tornjoin-0005.png as
# it is (a tryout's set): the UPC-A 694644967746 whole above the EAN-13 6525967353036's right
# third, torn over its lower bars; the UPC-A's last digits' places bend where the torn label's
# edge crosses them (JoinedHalves.Ends.leansApart leaves them out; the read stays).
# stacked-zbar-one-point.png: bench/make-addon-stacks.py OUT --gap -14 (seed 1), stack046 as it
# is: an EAN-13 4006381333931+47 over an EAN-13 5901234123457, turned 330 degrees; zbar read a
# row of the `resampled` pass's enlargement slanted across both as 5901234333931 and placed it
# at one point, which no check could place (ZBarDecoder.placedAlong).
# torn-addon-turned.jpg: bench/make-retail-layouts.py OUT 100 7070 tornjoin, tornjoin-0025.png saved
# as gray JPEG, quality 88: the EAN-13 9794182068385's right part and its EAN-5 91936 torn over the
# plain EAN-13 2014852858687 in line, turned 1.1 degrees apart; the plain code was sent with 91936
# (AddOnReader.standsTurned). addon-perspective.jpg: bench/make-retail-layouts.py OUT 60 5959,
# sideover-0052.png saved the same way: an EAN-13 with its EAN-5 92640 under a strong perspective,
# the add-on's bars 3.6 degrees off the code's end, as the code's bars fan out along it (kept).
# itf-strip-tilted.png: zint -b C25INTER -d 43955564795882 --height 6 --notext --scale 1, enlarged
# to about 2.3x (bilinear), on a 100 px white border, turned 3.0 degrees, Gaussian blur under 1 px
# and noise of sigma 4 (a tryout's strips of ITF bars 6-15 modules tall): the first look read
# 64795882, the last 8 of its digits, along a row that leaves the strip through its top.
# itf-cut-by-frame.png: a tryout's image (stop 64): an ITF of 60193558239660 whose first digits lie
# past the frame's left edge, turned a little; read as 58239660 before the bars in view that run
# on to the frame's edge counted (ReadChecks.barsRunOn, atLeast).
# code39-crossed-line.jpg: bench/make-devset.py OUT --seed 4343 --crossed 20, Code-39-19-crossed.jpg
# as it is: a Code 39 of L5YPU, 1.3 px modules, a steep dark line across its Y; the `resampled`
# pass read L5.PU on every row it took; the median of the lines across the code reads L5YPU
# (MedianProfile).
# upce-crossed-median.png: bench/make-devset.py OUT --seed 7272 --crossed 20, UPC-E-01-crossed.png
# cut (x 780-1280, y 150-560; a tighter cut reads right without the check): a UPC-E of 04165286
# crossed by a dark line, which both engines' first looks read as 04165246 (valid check digit);
# the median of the lines across it reads the code (MedianProfile).
# python3 -c 'from PIL import Image; Image.open("OUT/UPC-E-01-crossed.png").convert("L").crop((780, 150, 1280, 560)).save("upce-crossed-median.png")'
# ean13-past-viewport.png, itf-past-viewport.png: a tryout's zint codes (zint --scale 2
# --quietzones) placed in a frame so that the default viewport (0.1, 0.1, 0.8, 0.8) ends inside
# them: an EAN-13 5008798113518 (read there as the UPC-E 10087985 of its left half) and an ITF
# 891643175950 (read there as 89164317); see ViewportEdge.swift.
# upce-inverted-scene.jpg: bench/make-devset.py's set --seed 6262 as it is (UPC-E-09-inverted.jpg):
# a UPC-E 08540775 printed light on a dark label in a 1280x720 scene, read from its region's
# negative by the region looks (PassTests).
# (cd ../../bench && ../.build/zxing-cpp-venv/bin/python make-devset.py /tmp/dev6262 --seed 6262)
# cp /tmp/dev6262/UPC-E-09-inverted.jpg upce-inverted-scene.jpg
# upce-small-inverted-scene.jpg: a tryout's generated scene (stop 66): a zint UPC-E 04628721 at
# 1.2 px a module, white on a black label, in a 1280x720 grey scene with clutter, noise and
# blur; read from the negative of resampled's enlargement (ResampledPassTests).
