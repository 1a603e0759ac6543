"""Prints what a PNG shows, as JSON: size, distinct colours, and the share of pixels that differ from the
background (the colour of the top-left corner). tests/cli/test_render.cpp uses it to tell a real picture from a
blank one. Run with /usr/bin/python3 (matplotlib from Debian reads the PNG).

    /usr/bin/python3 tests/support/png_content.py FILE.png
"""
import json
import sys

import matplotlib.image
import numpy


def content(path):
    image = matplotlib.image.imread(path)                       # float RGB(A) in [0, 1]
    rgb = numpy.round(image[:, :, :3] * 255).astype(numpy.uint32)
    packed = (rgb[:, :, 0] << 16) | (rgb[:, :, 1] << 8) | rgb[:, :, 2]
    background = packed[0, 0]
    return {"width": int(packed.shape[1]), "height": int(packed.shape[0]),
            "distinct_colours": int(len(numpy.unique(packed))),
            "foreground_fraction": float(numpy.mean(packed != background))}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: /usr/bin/python3 tests/support/png_content.py FILE.png")
    print(json.dumps(content(sys.argv[1])))
