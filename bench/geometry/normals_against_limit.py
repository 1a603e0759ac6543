#!/usr/bin/python3
"""A run's boundary normals on a subdivision-surface model against the smooth surface itself.

A model made as a Catmull-Clark surface (spot ships its quad mesh) has an exact smooth surface: the
limit of refining its quads. This script refines the quad mesh LEVELS times more (Catmull-Clark:
face points, edge points, vertices moved to (Q + 2 R + (n - 3) V) / n), takes the angle-weighted vertex
normals of the refined mesh as the limit surface's, and prints, for the run's boundary nodes (those
over 0.1 h from a feature edge of the triangle mesh the run filled, as boundary_features.py measures):

  node normal       the angle between each node's normal and the refined normal at the refined vertex
                    nearest to it;
  nearest vertex    the same for the angle-weighted normal of the nearest vertex of the triangle mesh
                    (boundary_features.py's reference), to show how far that reference is from the
                    smooth surface;
  facet             the same for the normal of the triangle the node lies on (what a mesh without
                    smooth normals gives).

    /usr/bin/python3 bench/geometry/normals_against_limit.py QUADS.obj MESH.obj FILE.h5 [--levels 3]

e.g. spot (common-3d-test-models, data/spot.zip): spot_quadrangulated.obj, spot_triangulated.obj (the
same vertices, each quad cut in two) and a run at h = 0.01. Needs h5py, numpy and scipy.
"""
import argparse
import pathlib
import sys

import h5py
import numpy as np
from scipy.spatial import cKDTree

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import boundary_features as bf  # noqa: E402


def read_polygons(path):
    points, faces = [], []
    with open(path) as f:
        for line in f:
            w = line.split()
            if w and w[0] == "v":
                points.append([float(x) for x in w[1:4]])
            elif w and w[0] == "f":
                faces.append([int(x.split("/")[0]) - 1 for x in w[1:]])
    return np.array(points), faces


def catmull_clark(points, faces):
    """One Catmull-Clark refinement of a closed polygon mesh: every face becomes one quad per corner."""
    face_points = np.array([points[f].mean(axis=0) for f in faces])
    faces_of_edge = {}
    for fi, f in enumerate(faces):
        for k in range(len(f)):
            faces_of_edge.setdefault(tuple(sorted((f[k], f[(k + 1) % len(f)]))), []).append(fi)
    edges = list(faces_of_edge)
    edge_index = {e: i for i, e in enumerate(edges)}
    edge_points = np.array([(points[a] + points[b] + face_points[faces_of_edge[(a, b)]].sum(axis=0)) /
                            (2 + len(faces_of_edge[(a, b)])) for a, b in edges])
    face_sum, face_count = np.zeros_like(points), np.zeros(len(points))
    for fi, f in enumerate(faces):
        face_sum[f] += face_points[fi]
        face_count[f] += 1
    mid_sum, valence = np.zeros_like(points), np.zeros(len(points))
    for a, b in edges:
        mid = 0.5 * (points[a] + points[b])
        mid_sum[a] += mid
        mid_sum[b] += mid
        valence[a] += 1
        valence[b] += 1
    moved = (face_sum / face_count[:, None] + 2 * mid_sum / valence[:, None] +
             (valence - 3)[:, None] * points) / valence[:, None]
    first_edge, first_face = len(points), len(points) + len(edges)
    refined = []
    for fi, f in enumerate(faces):
        m = len(f)
        for k in range(m):
            before, at, after = f[(k - 1) % m], f[k], f[(k + 1) % m]
            refined.append([at, first_edge + edge_index[tuple(sorted((at, after)))], first_face + fi,
                            first_edge + edge_index[tuple(sorted((before, at)))]])
    return np.concatenate([moved, edge_points, face_points]), refined


def vertex_normals(points, triangles):
    """Angle-weighted vertex normals, outward."""
    normals = bf.face_normals(points, triangles)
    angles = bf.corner_angles(points, triangles)
    out = np.zeros_like(points)
    for k in range(3):
        np.add.at(out, triangles[:, k], angles[:, k, None] * normals)
    return out / np.linalg.norm(out, axis=1)[:, None]


def degrees_between(a, b):
    return np.degrees(np.arccos(np.clip(np.einsum("ij,ij->i", a, b), -1.0, 1.0)))


def facet_normals_at(points, triangles, pos):
    """The normal of the triangle each point lies on (the nearest plane of the 6 nearest centroids')."""
    normals = bf.face_normals(points, triangles)
    _, near = cKDTree(points[triangles].mean(axis=1)).query(pos, k=6)
    offsets = np.abs(np.einsum("ikj,ij->ik", normals[near], pos) -
                     np.einsum("ikj,ikj->ik", normals[near], points[triangles[near, 0]]))
    return normals[near[np.arange(len(pos)), np.argmin(offsets, axis=1)]]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("quads")
    p.add_argument("mesh")
    p.add_argument("h5")
    p.add_argument("--levels", type=int, default=3)
    a = p.parse_args()
    points, faces = read_polygons(a.quads)
    for _ in range(a.levels):
        points, faces = catmull_clark(points, faces)
    triangles = np.array([[q[0], q[k], q[k + 1]] for q in faces for k in range(1, len(q) - 1)])
    limit = vertex_normals(points, triangles)
    with h5py.File(a.h5, "r") as f:
        types = f["domain/types"][...]
        boundary = np.flatnonzero(types < 0)
        pos = f["domain/pos"][...].T[boundary]
        h = f["domain/h"][...][boundary]
        normal = f["domain/normals"][...].T[f["domain/bmap"][...][boundary]]
    mesh_points, mesh_triangles = bf.read_obj(a.mesh)
    features = bf.feature_edges(bf.edges_of(mesh_triangles), bf.face_normals(mesh_points, mesh_triangles), 30.0)
    measured = bf.off_features(pos, h, bf.feature_samples(mesh_points, features, 0.1 * float(h.min())))
    pos, normal = pos[measured], normal[measured]
    _, near = cKDTree(points).query(pos)
    _, near_mesh = cKDTree(mesh_points).query(pos)
    rows = [("node normal", degrees_between(normal, limit[near])),
            ("nearest vertex", degrees_between(vertex_normals(mesh_points, mesh_triangles)[near_mesh], limit[near])),
            ("facet", degrees_between(facet_normals_at(mesh_points, mesh_triangles, pos), limit[near]))]
    print(f"{len(points)} vertices after {a.levels} refinements; {len(pos)} boundary nodes measured")
    for name, err in rows:
        print(f"{name} against the limit surface: p50 {np.median(err):.2f} p99 {np.percentile(err, 99):.2f} deg")


if __name__ == "__main__":
    main()
