#!/usr/bin/python3
"""A plain re-implementation of the PNP loop of Medusa's GeneralFill (2D, unit square), to check that
nodegen's fill is the same algorithm and to try candidate orders independently of the C++ code.

usage: /usr/bin/python3 bench/fill/pnp_reference.py BOUNDARY.h5 H SEED [medusa|ring] [CANDIDATES]

The boundary nodes are taken from a nodegen output file of the unit square (so both fills start from
the same nodes). The loop is GeneralFill's as its paper and source describe it: the nodes are expanded
in the order they were added; node p gets CANDIDATES (default 15) points on the circle of radius H
around it, evenly spaced from a uniformly random angle; a candidate is kept when it is inside the square
and no node, old or kept just before, is within zeta*H (zeta = 1 - 1e-10). "medusa" tries the
candidates from the random angle on; "ring" from the first free one after a blocked one (nodegen's
fill/ring_selection.hpp). Prints packing density and the hole metric (3e6 uniform points, distance to
the nearest node / H: p99.9 with numpy's interpolated quantile, mean, max). ~20 s for 2.2e5 nodes.
"""
import sys

import h5py
import numpy as np
from scipy.spatial import cKDTree


def main():
    src, h, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    order = sys.argv[4] if len(sys.argv) > 4 else "medusa"
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 15
    f = h5py.File(src, "r")
    boundary = np.array(f["/domain/pos"]).T[np.array(f["/domain/types"]) < 0]
    rng = np.random.default_rng(seed)
    rz2 = ((1 - 1e-10) * h) ** 2
    grid, nodes = {}, []  # hash grid of cell h: every node within 2h of p is in the 5x5 cells around it

    def add(p):
        grid.setdefault((int(p[0] // h), int(p[1] // h)), []).append(len(nodes))
        nodes.append(p)

    for p in boundary:
        add(np.array(p))
    angles = 2 * np.pi * np.arange(n) / n
    cur = 0
    while cur < len(nodes):
        p = nodes[cur]
        cur += 1
        offset = rng.uniform(0, 2 * np.pi)
        cand = p + h * np.stack([np.cos(angles + offset), np.sin(angles + offset)], 1)
        cx, cy = int(p[0] // h), int(p[1] // h)
        near = [nodes[j] for dx in range(-2, 3) for dy in range(-2, 3) for j in grid.get((cx + dx, cy + dy), ())]
        near = np.array(near) if near else np.zeros((0, 2))
        clear = ~(((cand[:, None, :] - near[None, :, :]) ** 2).sum(-1) < rz2).any(1)
        free = clear & (cand[:, 0] > 0) & (cand[:, 0] < 1) & (cand[:, 1] > 0) & (cand[:, 1] < 1)
        start = 0
        if order == "ring":
            start = next((k for k in range(n) if free[k] and not free[k - 1]), 0)
        kept = []
        for k in ((start + j) % n for j in range(n)):
            if free[k] and all(((cand[k] - c) ** 2).sum() >= rz2 for c in kept):
                kept.append(cand[k])
                add(cand[k])
    pts = np.array(nodes)
    q = np.random.default_rng(99).random((3_000_000, 2))
    hole = cKDTree(pts).query(q)[0] / h
    print(f"{order} candidates={n} seed={seed} nodes={len(pts)} packing={len(pts) * np.pi * h * h / 4:.4f} "
          f"holes p99.9={np.quantile(hole, 0.999):.4f} mean={hole.mean():.4f} max={hole.max():.4f}")


if __name__ == "__main__":
    main()
