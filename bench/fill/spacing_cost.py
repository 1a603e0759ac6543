#!/usr/bin/python3
"""What a spacing costs the fill beside a constant h with the same nodes: spacing from 1e6 samples (2D),
dist("part") to a 10 000-segment polygon (2D) and to a 100 000-triangle mesh (3D).

Each case fills one domain twice, alternated in every repetition, with the constant h and with the
spacing under test, whose values equal that constant (samples all carrying h, interpolated to h within
rounding; h + 1e-12 * dist(...)), so both place the same nodes, or within rounding as many, and the
ratio of their fill times is the spacing's cost alone:

    /usr/bin/python3 bench/fill/spacing_cost.py [--reps 5] [--threads 1] [--build build/release] [--out DIR]

Every timed run is `flock /tmp/nodegen-cpu.lock build/release/bench/fill --domain D --no-quality`; the
table gives the median fill seconds of each variant (min-max) and the ratio of the medians. Needs
h5py and numpy for /usr/bin/python3.
"""
import argparse
import json
import math
import pathlib
import statistics
import sys

import h5py
import numpy as np

from commands import fill, run

H2 = 0.000944  # domains/square.json's unit square at about 1e6 nodes (bench/domains/square_1e6.json)
H3 = 0.0095    # a ball of radius 0.5 at about 5e5 nodes


def write(path, domain):
    path.write_text(json.dumps(domain, indent=1) + "\n")
    return path


def samples_case(out, build):
    """1e6 samples: the nodes of a fill with another seed, each carrying the constant h. (A fill's own
    nodes as samples would put every query on a sample, where each walk ends in a degenerate predicate
    that CGAL settles in exact arithmetic: an adaptive loop's next fill lands between its samples.)"""
    square = {"dim": 2, "spacing": H2, "shape": {"type": "box", "name": "square", "min": [0, 0], "max": [1, 1]}}
    constant = write(out / "square_constant.json", square)
    run([build / "nodegen", "run", constant, "-o", out / "samples.h5", "--quiet", "--seed", "2"])
    with h5py.File(out / "samples.h5", "a") as f:
        f["/domain/h_new"] = f["/domain/h"][...]
    sampled = dict(square, spacing={"samples": str(out / "samples.h5"), "values": "/domain/h_new"})
    return constant, write(out / "square_samples.json", sampled)


def polygon_case(out):
    """A disk-shaped hole of 10 000 segments in the unit square."""
    t = 2 * math.pi * np.arange(10000) / 10000
    ring = np.round(np.c_[0.5 + 0.3 * np.cos(t), 0.5 + 0.3 * np.sin(t)], 12).tolist()
    shape = {"type": "difference", "children": [
        {"type": "box", "name": "square", "min": [0, 0], "max": [1, 1]},
        {"type": "polygon", "name": "ring", "points": ring}]}
    constant = write(out / "ring_constant.json", {"dim": 2, "spacing": H2, "shape": shape})
    dist = write(out / "ring_dist.json", {"dim": 2, "spacing": f"{H2} + 1e-12*dist(\"ring\")", "shape": shape})
    return constant, dist


def mesh_case(out):
    """A ball of radius 0.5 as an OBJ of 6 x 2 x 91^2 = 99 372 triangles (a cube's grid pushed onto it)."""
    n, verts, index, faces = 91, [], {}, []

    def vertex(p):
        key = tuple(np.round(p, 12))
        if key not in index:
            index[key] = len(verts)
            verts.append(p)
        return index[key] + 1

    for axis in range(3):
        for side in (-1.0, 1.0):
            grid = {}
            for i in range(n + 1):
                for j in range(n + 1):
                    c = np.zeros(3)
                    c[axis] = side
                    c[(axis + 1) % 3] = -1 + 2 * i / n
                    c[(axis + 2) % 3] = -1 + 2 * j / n
                    grid[i, j] = vertex(0.5 * c / np.linalg.norm(c))
            for i in range(n):
                for j in range(n):
                    a, b, c, d = grid[i, j], grid[i + 1, j], grid[i + 1, j + 1], grid[i, j + 1]
                    faces += [(a, b, c), (a, c, d)] if side > 0 else [(a, c, b), (a, d, c)]
    with open(out / "ball.obj", "w") as f:
        f.writelines(f"v {p[0]:.12g} {p[1]:.12g} {p[2]:.12g}\n" for p in verts)
        f.writelines(f"f {a} {b} {c}\n" for a, b, c in faces)
    shape = {"type": "mesh", "name": "ball", "file": str(out / "ball.obj")}
    constant = write(out / "ball_constant.json", {"dim": 3, "spacing": H3, "shape": shape})
    dist = write(out / "ball_dist.json", {"dim": 3, "spacing": f"{H3} + 1e-12*dist(\"ball\")", "shape": shape})
    return constant, dist, len(faces)


def fill_seconds(build, domain, threads):
    figures = fill(build, ["--domain", domain, "--threads", threads, "--no-quality"])
    return figures["seconds"], figures["nodes"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--build", default="build/release")
    p.add_argument("--out", default="output/spacing_cost")
    a = p.parse_args()
    build, out = pathlib.Path(a.build).resolve(), pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    ball = mesh_case(out)
    cases = [("2D, 1e6 samples", *samples_case(out, build)), ("2D, dist to 10k segments", *polygon_case(out)),
             (f"3D, dist to {ball[2]} triangles", ball[0], ball[1])]
    times = {(name, v): [] for name, *_ in cases for v in (0, 1)}
    nodes = {}
    for _ in range(a.reps):
        for name, constant, other in cases:
            for v, domain in enumerate((constant, other)):
                seconds, count = fill_seconds(build, domain, a.threads)
                times[name, v].append(seconds)
                nodes[name, v] = count
    print(f"threads {a.threads}, {a.reps} alternated repetitions: fill seconds, median (min-max)")
    print("| case | nodes (constant / spacing) | constant h | spacing | ratio |")
    print("|---|---|---|---|---|")
    for name, *_ in cases:
        c, s = times[name, 0], times[name, 1]
        mc, ms = statistics.median(c), statistics.median(s)
        print(f"| {name} | {nodes[name, 0]} / {nodes[name, 1]} | {mc:.3f} ({min(c):.3f}-{max(c):.3f}) | "
              f"{ms:.3f} ({min(s):.3f}-{max(s):.3f}) | {ms / mc:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
