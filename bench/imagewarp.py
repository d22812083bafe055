"""Image warps the bench generators share (numpy and Pillow)."""
import numpy as np
from PIL import Image


def perspective(im, jitter, fill):
    """`im` in perspective: each corner moved by `jitter()` of the width, then of the height
    (eight calls, corner by corner from the top left), outside filled with `fill`."""
    w, h = im.size
    j = jitter
    src = [(0, 0), (w, 0), (w, h), (0, h)]
    dst = [(w * j(), h * j()), (w * (1 + j()), h * j()), (w * (1 + j()), h * (1 + j())), (w * j(), h * (1 + j()))]
    A, B = [], []
    for (x, y), (u, v) in zip(dst, src):
        A += [[x, y, 1, 0, 0, 0, -u * x, -u * y], [0, 0, 0, x, y, 1, -v * x, -v * y]]
        B += [u, v]
    coef = np.linalg.solve(np.array(A, float), np.array(B, float))
    return im.transform((w, h), Image.PERSPECTIVE, tuple(coef), Image.BICUBIC, fillcolor=fill)
