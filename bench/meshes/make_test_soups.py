#!/usr/bin/python3
"""Broken triangle soups of the kinds users bring, with a domain file each at h = bounding-box diagonal / 80.

    /usr/bin/python3 bench/meshes/make_test_soups.py OUT_DIR [SHARED_MESHES_DIR]

Writes OUT_DIR/NAME.{obj,off,stl,ply} and OUT_DIR/NAME.json for ten synthetic models (numpy only), and
domain files for stanford-bunny.obj and cow.obj of SHARED_MESHES_DIR when given. bench/meshes/quality.sh
fills them all and tabulates `nodegen stats`.
"""
import importlib.util
import json
import os
import pathlib
import sys

import numpy as np

# The torus and the binary STL writer of the example meshes.
_spec = importlib.util.spec_from_file_location(
    "make_meshes", pathlib.Path(__file__).resolve().parents[2] / "domains" / "meshes" / "make_meshes.py")
make_meshes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_meshes)

rng = np.random.default_rng(7)


def grid_cube(lo, hi, n):
    """A cube tessellated n x n per face, outward, shared vertices: (V, F) with one F block per face."""
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    verts, faces = [], []
    index = {}

    def vid(p):
        key = tuple(np.round(p, 12))
        if key not in index:
            index[key] = len(verts)
            verts.append(p)
        return index[key]

    blocks = []
    for axis in range(3):
        for side in (0, 1):
            u, v = (axis + 1) % 3, (axis + 2) % 3
            block = []
            for i in range(n):
                for j in range(n):
                    corner = []
                    for di, dj in ((0, 0), (1, 0), (1, 1), (0, 1)):
                        p = np.empty(3)
                        p[axis] = hi[axis] if side else lo[axis]
                        p[u] = lo[u] + (hi[u] - lo[u]) * (i + di) / n
                        p[v] = lo[v] + (hi[v] - lo[v]) * (j + dj) / n
                        corner.append(vid(p))
                    a, b, c, d = corner
                    # (u, v, axis) is right-handed: counter-clockwise in (u, v) faces +axis.
                    tris = [(a, b, c), (a, c, d)] if side else [(a, c, b), (a, d, c)]
                    block.extend(tris)
            blocks.append(block)
    return np.array(verts), blocks


def icosphere(levels):
    t = (1 + 5 ** 0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
         (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    v = [np.array(p, float) / np.linalg.norm(p) for p in v]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
         (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5), (2, 4, 11),
         (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(levels):
        mid = {}

        def m(a, b):
            key = (min(a, b), max(a, b))
            if key not in mid:
                p = v[a] + v[b]
                v.append(p / np.linalg.norm(p))
                mid[key] = len(v) - 1
            return mid[key]

        nf = []
        for a, b, c in f:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = nf
    return np.array(v), [tuple(x) for x in f]


def revolve(profile, segments, close_start=False, close_end=False):
    """Surface of revolution about z of the (r, z) profile; quads, outward when the profile runs
    upward on the outside. Caps (n-gons) where asked."""
    verts, faces = [], []
    for r, z in profile:
        for k in range(segments):
            a = 2 * np.pi * k / segments
            verts.append((r * np.cos(a), r * np.sin(a), z))
    for i in range(len(profile) - 1):
        for k in range(segments):
            k1 = (k + 1) % segments
            faces.append((i * segments + k, i * segments + k1, (i + 1) * segments + k1, (i + 1) * segments + k))
    if close_start:
        faces.append(tuple(reversed(range(segments))))
    if close_end:
        last = (len(profile) - 1) * segments
        faces.append(tuple(last + k for k in range(segments)))
    return np.array(verts, float), faces


def torus(R, r, nu, nv):
    v, f = make_meshes.torus(R, r, nu, nv)
    return np.array(v, float), f


def merge(*parts):
    verts, faces = [], []
    for v, f in parts:
        base = len(verts)
        verts += list(v)
        faces += [tuple(base + i for i in face) for face in f]
    return np.array(verts, float), faces


def write(path, v, f):
    ext = os.path.splitext(path)[1]
    if ext == ".obj":
        with open(path, "w") as out:
            out.writelines(f"v {p[0]:.9g} {p[1]:.9g} {p[2]:.9g}\n" for p in v)
            out.writelines("f " + " ".join(str(i + 1) for i in face) + "\n" for face in f)
    elif ext == ".off":
        with open(path, "w") as out:
            out.write(f"OFF\n{len(v)} {len(f)} 0\n")
            out.writelines(f"{p[0]:.9g} {p[1]:.9g} {p[2]:.9g}\n" for p in v)
            out.writelines(f"{len(face)} " + " ".join(map(str, face)) + "\n" for face in f)
    elif ext == ".ply":
        with open(path, "w") as out:
            out.write(f"ply\nformat ascii 1.0\nelement vertex {len(v)}\nproperty float x\nproperty float y\n"
                      f"property float z\nelement face {len(f)}\nproperty list uchar int vertex_indices\nend_header\n")
            out.writelines(f"{p[0]:.9g} {p[1]:.9g} {p[2]:.9g}\n" for p in v)
            out.writelines(f"{len(face)} " + " ".join(map(str, face)) + "\n" for face in f)
    elif ext == ".stl":  # binary, polygons cut into fans
        tris = [(face[0], face[k], face[k + 1]) for face in f for k in range(1, len(face) - 1)]
        make_meshes.write_binary_stl(pathlib.Path(path), v, tris, "nodegen test soup")
    else:
        raise ValueError(ext)


def write_domain(out_dir, name, mesh_file, v, comment):
    diagonal = float(np.linalg.norm(v.max(0) - v.min(0)))
    domain = {"comment": comment, "dim": 3, "spacing": float(f"{diagonal / 80:.6g}"),
              "shape": {"type": "mesh", "name": name, "file": mesh_file}}
    with open(os.path.join(out_dir, name + ".json"), "w") as out:
        json.dump(domain, out, indent=1)


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    models = {}

    v, blocks = grid_cube((0, 0, 0), (1, 1, 1), 6)
    models["cube_missing_face.obj"] = (v, [t for b in blocks[:5] for t in b], "a cube with its z+ face missing")

    faces = [t for b in blocks for t in b]
    flipped = [t[::-1] if rng.random() < 0.15 else t for t in faces]
    models["cube_flipped_faces.off"] = (v, flipped, "a cube with 15% of its triangles turned inside out")

    v2, b2 = grid_cube((1, 1, 0), (2, 2, 1), 6)
    models["two_cubes_edge.obj"] = (*merge((v, faces), (v2, [t for b in b2 for t in b])),
                                    "two cubes sharing an edge (non-manifold), vertices written twice")

    sv, sf = icosphere(4)
    centres = [np.array(c, float) / np.linalg.norm(c) for c in ((1, 0, 0), (0, 1, 0.3), (-0.5, -0.5, 1), (0, 0, -1), (-1, 0.4, 0))]
    radii = [0.1, 0.2, 0.3, 0.15, 0.45]
    keep = [t for t in sf if all(np.linalg.norm(sv[list(t)].mean(0) - c) > r for c, r in zip(centres, radii))]
    models["sphere_holes.stl"] = (sv, keep, "a sphere with five holes of 0.1 to 0.45 radii, binary STL")

    tv, tf = torus(1.0, 0.35, 72, 24)
    dup = list(tf)
    for t in tf:
        x = rng.random()
        if x < 0.2:
            dup.append(t)
        elif x < 0.25:
            dup.append(t[::-1])
    dup += [(tf[k][0], tf[k][0], tf[k][1]) for k in range(0, len(tf), 50)]  # degenerate
    models["torus_duplicates.ply"] = (tv, dup, "a torus with duplicated, reversed duplicate and degenerate faces")

    a = icosphere(3)
    b = (a[0] * 0.8 + np.array([1.0, 0.2, 0]), a[1])
    c = grid_cube((-0.5, 2, -0.5), (0.5, 3, 0.5), 3)
    models["multi_shell.stl"] = (*merge(a, b, (c[0], [t for blk in c[1] for t in blk])),
                                 "two overlapping spheres and a separate cube: three shells, two crossing")

    body = revolve([(0.0, 0.0), (0.6, 0.0), (0.9, 0.2), (1.0, 0.5), (0.9, 0.85), (0.7, 1.0)], 48)
    body = (body[0], body[1][48:])  # drop the degenerate ring at r = 0: the bottom is an n-gon instead
    body = (body[0], body[1] + [tuple(reversed(range(48, 96)))])
    lid = revolve([(0.72, 0.98), (0.6, 1.1), (0.3, 1.2), (0.1, 1.3), (0.0, 1.35)], 48, close_start=True)
    spout = revolve([(0.12, 0.0), (0.12, 0.7)], 16)
    ang = np.radians(-50)
    rot = np.array([[np.cos(ang), 0, np.sin(ang)], [0, 1, 0], [-np.sin(ang), 0, np.cos(ang)]])
    spout = (spout[0] @ rot.T + np.array([0.75, 0, 0.35]), spout[1])
    hv, hf = torus(0.35, 0.07, 32, 10)
    hv = hv[:, [0, 2, 1]] + np.array([-1.0, 0, 0.5])
    hf = [t[::-1] for t in hf]  # swapping axes turned it inside out; turn it back
    models["teapot_like.obj"] = (*merge(body, lid, spout, (hv, hf)),
                                 "a pot open at the rim, a lid resting on it, an open spout tube inside it and a handle")

    sv3, sf3 = icosphere(3)
    north = [t for t in sf3 if sv3[list(t)].mean(0)[2] >= 0]
    # The southern half from a finer sphere: its equator has twice the vertices (T-junctions, a crack).
    sv4, sf4 = icosphere(4)
    south = [t for t in sf4 if sv4[list(t)].mean(0)[2] < 0]
    models["cracked_sphere.off"] = (*merge((sv3, north), (sv4, south)),
                                    "a sphere from two halves of different tessellation: a crack of T-junctions along a jagged equator")

    inner = (sv3 * 0.5, sf3)
    models["nested_cavity.obj"] = (*merge((sv3, sf3), inner),
                                   "a ball with a cavity, both shells facing outward as written")

    cyl = revolve([(0.5, 0.0), (0.5, 2.0)], 40, close_start=True)
    unwelded_v, unwelded_f = [], []
    for face in cyl[1]:
        unwelded_f.append(tuple(range(len(unwelded_v), len(unwelded_v) + len(face))))
        unwelded_v += [cyl[0][i] for i in face]
    models["open_tube_unwelded.obj"] = (np.array(unwelded_v), unwelded_f,
                                        "a quad tube with a 40-gon floor and an open top, every face with its own vertices")

    for file, (v, f, comment) in models.items():
        write(os.path.join(out_dir, file), v, f)
        write_domain(out_dir, os.path.splitext(file)[0], file, np.asarray(v), comment)

    if len(sys.argv) > 2:
        for name in ("stanford-bunny", "cow"):
            path = os.path.join(sys.argv[2], name + ".obj")
            v = np.array([[float(x) for x in line.split()[1:4]] for line in open(path) if line.startswith("v ")])
            write_domain(out_dir, name, os.path.abspath(path), v, name + " as shipped")


if __name__ == "__main__":
    main()
