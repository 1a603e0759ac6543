#!/usr/bin/python3
"""The example torus (a binary STL) with three holes cut: the faces within 0.1, 0.2 and 0.06 of three
face centroids are dropped (127 of 9216).   torus_with_holes.py IN.stl OUT.stl"""
import struct
import sys

import numpy as np

data = open(sys.argv[1], "rb").read()
count = struct.unpack("<I", data[80:84])[0]
records = np.frombuffer(data[84:84 + 50 * count], dtype=np.dtype([("n", "<3f4"), ("v", "<9f4"), ("a", "<u2")]))
centroids = records["v"].reshape(-1, 3, 3).astype(float).mean(1)
keep = np.ones(count, bool)
for face, radius in ((100, 0.1), (4000, 0.2), (7000, 0.06)):
    keep &= np.linalg.norm(centroids - centroids[face], axis=1) > radius
with open(sys.argv[2], "wb") as out:
    out.write(b"torus with three holes".ljust(80, b" "))
    out.write(struct.pack("<I", int(keep.sum())))
    out.write(records[keep].tobytes())
