#!/usr/bin/python3
"""How well a mesh domain's boundary nodes keep its sharp features and follow its smooth surface.

Reads a run's output (FILE.h5) and the OBJ mesh the domain names (placed as it is, no transform), and
prints one row of figures for the boundary nodes:

  normal p50 / p99   the angle in degrees between each boundary node's normal and the smooth surface's:
                     the angle-weighted vertex normal of the mesh vertex nearest to the node, taken only
                     over the faces around that vertex on the node's side of any feature edge (so a node
                     on a flat face of a box is compared with that face, not with the corner's average);
                     nodes on no face of the file (on a hole's patch that the repair added) or on a face
                     at a hole's rim (where the repaired surface turns onto the patch) are left out, and so
                     are nodes within 0.1 h of a feature edge (they carry the bisector of its faces);
  edge within 0.5h   the share of points taken along the feature edges (dihedral angle above --angle,
                     default 30 degrees, and border edges) every 0.1 h that lie within 0.5 h of a
                     boundary node, and the median distance from them to the nearest one, in h;
  least spacing      the least distance between two boundary nodes, in h (the smaller h of the two),
                     and how many pairs are closer than 0.9 h.

    /usr/bin/python3 bench/geometry/boundary_features.py MESH.obj FILE.h5 [--angle 30]
"""
import argparse
import math
import sys

import h5py
import numpy as np
from scipy.spatial import cKDTree


def read_obj(path):
    points, faces = [], []
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "v":
                points.append([float(x) for x in w[1:4]])
            elif w[0] == "f":
                corners = [int(x.split("/")[0]) for x in w[1:]]
                corners = [c - 1 if c > 0 else len(points) + c for c in corners]
                for k in range(1, len(corners) - 1):
                    faces.append([corners[0], corners[k], corners[k + 1]])
    # One vertex per point, only the points faces use (as nodegen reads a mesh: duplicates merged).
    points, faces = np.array(points), np.array(faces, dtype=np.int64)
    unique, index = np.unique(points, axis=0, return_inverse=True)
    faces = index.reshape(-1)[faces]
    faces = faces[(faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2]) & (faces[:, 2] != faces[:, 0])]
    used, faces = np.unique(faces, return_inverse=True)
    return unique[used], faces.reshape(-1, 3)


def face_normals(points, faces):
    n = np.cross(points[faces[:, 1]] - points[faces[:, 0]], points[faces[:, 2]] - points[faces[:, 0]])
    # Outward: a closed surface's signed volume is positive when its faces turn outward.
    volume = np.einsum("ij,ij->i", points[faces[:, 0]], n).sum()
    length = np.linalg.norm(n, axis=1)
    n = n / np.where(length > 0, length, 1)[:, None]
    return -n if volume < 0 else n


def corner_angles(points, faces):
    out = np.zeros(faces.shape)
    for k in range(3):
        a, b, c = points[faces[:, k]], points[faces[:, (k + 1) % 3]], points[faces[:, (k + 2) % 3]]
        u, v = b - a, c - a
        cos = np.einsum("ij,ij->i", u, v) / np.maximum(np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1), 1e-300)
        out[:, k] = np.arccos(np.clip(cos, -1, 1))
    return out


def edges_of(faces):
    """Each undirected edge once: (v0, v1) sorted, and the faces on it (one or two; more: not manifold)."""
    on = {}
    for f, tri in enumerate(faces):
        for k in range(3):
            e = tuple(sorted((int(tri[k]), int(tri[(k + 1) % 3]))))
            on.setdefault(e, []).append(f)
    return on


def feature_edges(edges, normals, angle):
    cos_limit = math.cos(math.radians(angle))
    out = []
    for e, fs in edges.items():
        if len(fs) != 2 or float(normals[fs[0]] @ normals[fs[1]]) < cos_limit:
            out.append(e)
    return out


def feature_samples(points, features, step):
    """Points along each feature edge, about `step` apart (a list of arrays, one per edge)."""
    samples = []
    for v0, v1 in features:
        n = max(1, int(math.ceil(np.linalg.norm(points[v1] - points[v0]) / step)))
        t = (np.arange(n) + 0.5) / n
        samples.append(points[v0] + t[:, None] * (points[v1] - points[v0]))
    return samples


def off_features(node_pos, node_h, samples):
    """Whether each node lies over 0.1 h from every feature edge: a node on one carries the bisector of
    its faces (by design), so its normal is not measured."""
    if not samples:
        return np.ones(len(node_pos), dtype=bool)
    return cKDTree(np.concatenate(samples)).query(node_pos)[0] > 0.1 * node_h


def on_file_faces(points, faces, around, node_pos, rim):
    """Whether each node lies on a face of the file (within 1e-9 of the mesh's size), one of the faces
    around its 8 nearest vertices, that is not on a hole's rim (`rim`: per face, whether a corner is on a
    border: there the repaired surface turns onto the patch, which the file's vertex normals do not see)."""
    size = np.linalg.norm(points.max(0) - points.min(0))
    _, near = cKDTree(points).query(node_pos, k=8)
    out = np.zeros(len(node_pos), dtype=bool)
    for i, vs in enumerate(near):
        fs = np.unique([f for v in vs for f, _ in around[v]])
        a, b, c = points[faces[fs, 0]], points[faces[fs, 1]], points[faces[fs, 2]]
        n = np.cross(b - a, c - a)
        area2 = np.einsum("ij,ij->i", n, n)
        p = node_pos[i]
        u = np.einsum("ij,ij->i", n, np.cross(p - a, c - a)) / np.maximum(area2, 1e-300)
        w = np.einsum("ij,ij->i", n, np.cross(b - a, p - a)) / np.maximum(area2, 1e-300)
        off = np.abs(np.einsum("ij,j->i", n, p) - np.einsum("ij,ij->i", n, a)) / np.sqrt(np.maximum(area2, 1e-300))
        tol = 1e-6
        on = (off < 1e-9 * size) & (u >= -tol) & (w >= -tol) & (u + w <= 1 + tol)
        out[i] = bool(np.any(on)) and not bool(np.any(rim[fs[on]]))
    return out


def smooth_reference(points, faces, normals, angles, features, open_edges, node_pos, node_normal):
    """The angle-weighted normal at the vertex nearest each node, over the faces around it that the node's
    own normal is closest to among the vertex's smooth sectors (faces joined across non-feature edges)."""
    around = [[] for _ in range(len(points))]
    for f, tri in enumerate(faces):
        for k in range(3):
            around[tri[k]].append((f, k))
    feature = set(features)
    sector_normals = {}

    def sectors(v):
        if v in sector_normals:
            return sector_normals[v]
        fans = around[v]
        parent = list(range(len(fans)))

        def find(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i
        for i, (f, _) in enumerate(fans):
            for j, (g, _) in enumerate(fans[:i]):
                shared = set(faces[f]) & set(faces[g])
                if len(shared) == 2 and tuple(sorted(shared)) not in feature:
                    parent[find(i)] = find(j)
        sums = {}
        for i, (f, k) in enumerate(fans):
            sums.setdefault(find(i), np.zeros(3))
            sums[find(i)] += angles[f, k] * normals[f]
        sector_normals[v] = [s / np.linalg.norm(s) for s in sums.values() if np.linalg.norm(s) > 0]
        return sector_normals[v]

    # A node on a hole's patch that nodegen's repair added lies on no face of the file: it is left out.
    border = np.zeros(len(points), dtype=bool)
    for e in features:
        if e in open_edges:
            border[list(e)] = True
    on_file = on_file_faces(points, faces, around, node_pos, border[faces].any(axis=1))
    _, nearest = cKDTree(points).query(node_pos)
    out = []
    for i, v in enumerate(nearest):
        if not on_file[i]:
            continue
        best = max(float(s @ node_normal[i]) for s in sectors(int(v)))
        out.append(math.degrees(math.acos(max(-1.0, min(1.0, best)))))
    return np.array(out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("mesh")
    p.add_argument("h5")
    p.add_argument("--angle", type=float, default=30.0)
    a = p.parse_args()
    points, faces = read_obj(a.mesh)
    normals = face_normals(points, faces)
    with h5py.File(a.h5, "r") as f:
        pos = f["domain/pos"][...].T
        types = f["domain/types"][...]
        bmap = f["domain/bmap"][...]
        h = f["domain/h"][...]
        node_normals = f["domain/normals"][...].T
    boundary = np.flatnonzero(types < 0)
    bpos, bh, bnormal = pos[boundary], h[boundary], node_normals[bmap[boundary]]
    if len(boundary) == 0:
        sys.exit("boundary_features.py: no boundary nodes in " + a.h5)
    edges = edges_of(faces)
    features = feature_edges(edges, normals, a.angle)
    angles = corner_angles(points, faces)
    tree = cKDTree(bpos)
    dist, other = tree.query(bpos, k=2)
    ratio = dist[:, 1] / np.minimum(bh, bh[other[:, 1]])
    close_pairs = int(np.count_nonzero(ratio < 0.9)) // 2

    samples = feature_samples(points, features, 0.1 * float(bh.min()))
    smooth = off_features(bpos, bh, samples)
    open_edges = {e for e, fs in edges.items() if len(fs) == 1}
    errors = smooth_reference(points, faces, normals, angles, features, open_edges, bpos[smooth], bnormal[smooth])

    row = [f"{len(boundary)} boundary nodes ({len(errors)} measured)",
           f"normal p50 {np.median(errors):.2f} p99 {np.percentile(errors, 99):.2f} deg"]
    if samples:
        edge_points = np.concatenate(samples)
        d, nearest = tree.query(edge_points)
        in_h = d / bh[nearest]
        row.append(f"{len(features)} feature edges: {100 * np.mean(in_h <= 0.5):.1f}% within 0.5h, median {np.median(in_h):.2f}h")
    else:
        row.append("no feature edges")
    row.append(f"least spacing {ratio.min():.3f}h, {close_pairs} pairs below 0.9h")
    print(" | ".join(row))


if __name__ == "__main__":
    main()
