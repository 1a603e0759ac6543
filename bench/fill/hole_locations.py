#!/usr/bin/python3
"""Where are the worst holes of a 2D unit-square fill? (bench/results/fill-quality.md)

usage: /usr/bin/python3 bench/fill/hole_locations.py FILE.h5 [SAMPLES]

Draws SAMPLES (default 3e6) uniform points of the unit square, measures each one's distance to the
nearest node / that node's h (the hole metric of `nodegen stats`), takes the worst 0.1 % and compares
where they lie with where all samples lie: distance to the boundary, distance to the diagonals (the
seams where the fronts from two sides meet), and how far apart in the fill's queue the three nearest
nodes were placed (a seam between fronts joins nodes placed far apart). A ratio near 1 means the worst
holes are spread like the samples; above 1, over-represented there. Needs h5py, numpy and scipy.
"""
import sys

import h5py
import numpy as np
from scipy.spatial import cKDTree


def table(title, values, worst, bins, subset=None):
    subset = np.ones(len(values), bool) if subset is None else subset
    w, _ = np.histogram(values[worst & subset], bins)
    a, _ = np.histogram(values[subset], bins)
    print(f"{title}: bin, share of worst 0.1 %, share of samples, ratio")
    for k in range(len(bins) - 1):
        sw, sa = w[k] / max(w.sum(), 1), a[k] / max(a.sum(), 1)
        print(f"  [{bins[k]:g}, {bins[k + 1]:g})  {sw:.4f}  {sa:.4f}  {sw / sa if sa else float('nan'):.2f}")


def main():
    f = h5py.File(sys.argv[1], "r")
    samples = int(float(sys.argv[2])) if len(sys.argv) > 2 else 3_000_000
    pos = np.array(f["/domain/pos"]).T
    h = np.array(f["/domain/h"])
    if pos.shape[1] != 2:
        sys.exit("a 2D file is needed")
    q = np.random.default_rng(12345).random((samples, 2))
    d, idx = cKDTree(pos).query(q, k=3)
    hole = d[:, 0] / h[idx[:, 0]]
    cut = np.quantile(hole, 0.999)
    worst = hole >= cut
    hbar = h.mean()
    print(f"{sys.argv[1]}: {len(h)} nodes, {samples} samples, p99.9 {cut:.4f}")
    to_boundary = np.minimum.reduce([q[:, 0], 1 - q[:, 0], q[:, 1], 1 - q[:, 1]]) / hbar
    table("distance to the boundary / h", to_boundary, worst, [0, 1, 2, 3, 5, 10, 20, 50, np.inf])
    inner = to_boundary > 20
    to_diagonal = np.minimum(abs(q[:, 0] - q[:, 1]), abs(q[:, 0] + q[:, 1] - 1)) / np.sqrt(2) / hbar
    table("distance to the diagonals / h (points > 20 h from the boundary)", to_diagonal, worst,
          [0, 2, 5, 10, 20, 50, 100, np.inf], inner)
    spread = (idx.max(1) - idx.min(1)).astype(float)
    for name, m in (("worst", worst & inner), ("all", inner)):
        s = spread[m]
        print(f"queue distance of the 3 nearest nodes ({name}, > 20 h from the boundary): median {np.median(s):.0f}"
              f"  p90 {np.quantile(s, 0.9):.0f}")
    print("p99.9 by distance to the boundary / h:")
    for lo, hi in ((0, 1), (1, 3), (3, 10), (10, np.inf)):
        m = (to_boundary >= lo) & (to_boundary < hi)
        print(f"  [{lo:g}, {hi:g}): {np.quantile(hole[m], 0.999):.4f} ({m.sum()} samples)")


if __name__ == "__main__":
    main()
