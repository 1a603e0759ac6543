#!/usr/bin/python3
"""Adaptive refinement in one Python process: fill, solve, refine h where the error is large, fill again.

Poisson's equation -lap u = f on the unit square with a steep circular front,
u = atan(40 (|x - (0.5, 0.5)| - 0.3)), Dirichlet data from u on the boundary. Each round
    d = nodegen.discretize(domain, spacing=..., supports=15)     nodes with their 15 nearest
solves it by RBF-FD on d.supports (polyharmonic r^3 with quadratic polynomials, scipy's sparse LU),
takes the error against the exact u at every node as the indicator, and refines: h times
(target / error)^(1/2) in [0.5, 1], the target a fraction of the round's largest error. The next round's
spacing interpolates those values between the nodes (nodegen.Samples, its growth limited by `grading`),
so a refined patch widens smoothly into the coarse field around it. No file is written.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/adaptive.py [--rounds 4]

Prints a table (round, nodes, max error, relative L2 error) and exits 1 unless the max error fell in
every round. Needs Debian's python3-numpy and python3-scipy.
"""
import argparse
import sys

import numpy as np
import scipy.sparse
import scipy.sparse.linalg

import nodegen

K, R0, CENTRE = 40.0, 0.3, np.array([0.5, 0.5])
DOMAIN = {"dim": 2, "spacing": 0.04, "shape": {"type": "box", "name": "square", "min": [0, 0], "max": [1, 1]}}


def exact(x):
    return np.arctan(K * (np.linalg.norm(x - CENTRE, axis=1) - R0))


def minus_laplacian(x):
    """-lap u for u = atan(K (r - R0)) in 2D: -(u'' + u' / r)."""
    r = np.maximum(np.linalg.norm(x - CENTRE, axis=1), 1e-12)
    s = K * (r - R0)
    du = K / (1 + s * s)
    d2u = -2 * K * K * s / (1 + s * s) ** 2
    return -(d2u + du / r)


def laplacian_weights(x, stencils):
    """RBF-FD weights of the Laplacian at each node from its stencil: phi = r^3 plus the six monomials of
    degree 2, centred and scaled per stencil; one batched solve of the (k + 6)-square systems."""
    n, k = stencils.shape
    local = x[stencils] - x[:, None, :]                       # (n, k, 2), the node itself at 0
    scale = np.linalg.norm(local, axis=2).max(axis=1)[:, None, None]
    local = local / scale
    r = np.linalg.norm(local[:, :, None, :] - local[:, None, :, :], axis=3)
    a = np.zeros((n, k + 6, k + 6))
    a[:, :k, :k] = r ** 3
    px, py = local[:, :, 0], local[:, :, 1]
    poly = np.stack([np.ones_like(px), px, py, px * px, px * py, py * py], axis=2)
    a[:, :k, k:] = poly
    a[:, k:, :k] = poly.transpose(0, 2, 1)
    rc = np.linalg.norm(local, axis=2)                        # distance to the centre node
    rhs = np.zeros((n, k + 6))
    rhs[:, :k] = 9 * rc                                       # lap r^3 = 9 r in 2D
    rhs[:, k + 3] = 2.0                                       # lap x^2
    rhs[:, k + 5] = 2.0                                       # lap y^2
    w = np.linalg.solve(a, rhs[:, :, None])[:, :k, 0]
    return w / scale[:, :, 0] ** 2


def solve(d):
    x, stencils, boundary = d.positions, d.supports, d.boundary
    n, k = stencils.shape
    w = laplacian_weights(x, stencils)
    rows = np.repeat(np.arange(n), k)
    values = np.where(boundary[:, None], 0.0, -w).ravel()
    a = scipy.sparse.csr_matrix((values, (rows, stencils.ravel())), shape=(n, n)).tolil()
    a[np.flatnonzero(boundary), np.flatnonzero(boundary)] = 1.0
    b = np.where(boundary, exact(x), minus_laplacian(x))
    return scipy.sparse.linalg.spsolve(a.tocsc(), b)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--fraction", type=float, default=0.02, help="refine where the error exceeds this share of the max")
    p.add_argument("--least-h", type=float, default=0.002, help="never refine below this spacing")
    p.add_argument("--grading", type=float, default=0.1, help="the most h may grow per unit of distance")
    p.add_argument("--threads", type=int, default=None)
    a = p.parse_args()
    spacing, rows = None, []
    for k in range(a.rounds):
        d = nodegen.discretize(DOMAIN, spacing=spacing, supports=15, threads=a.threads)
        u = solve(d)
        error = np.abs(u - exact(d.positions))
        rows.append((k, len(d), error.max(), np.linalg.norm(u - exact(d.positions)) / np.linalg.norm(exact(d.positions))))
        factor = np.clip((a.fraction * error.max() / np.maximum(error, 1e-300)) ** 0.5, 0.5, 1.0)
        spacing = nodegen.Samples(d.positions, np.maximum(d.h * factor, a.least_h), grading=a.grading)
    print("round  nodes     max error   rel L2 error")
    for k, n, emax, el2 in rows:
        print(f"{k:5d}  {n:8d}  {emax:.3e}   {el2:.3e}")
    falling = all(rows[i + 1][2] < rows[i][2] for i in range(len(rows) - 1))
    print("the max error fell in every round" if falling else "the max error did not fall in every round")
    return 0 if falling else 1


if __name__ == "__main__":
    sys.exit(main())
