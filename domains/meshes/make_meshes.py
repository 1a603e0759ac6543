#!/usr/bin/python3
"""Writes the triangle meshes the example domains use (run: /usr/bin/python3 domains/meshes/make_meshes.py).

  torus.stl  binary STL of a torus (major radius 1, minor radius 0.35), a smooth closed surface with a hole
  gear.stl   binary STL of a spur gear: 20 involute-like teeth, a bore and a keyway, extruded 0.3 thick;
             a real-world-looking part with sharp edges and a non-convex outline
  naca0012.txt  2D point file (one "x y" per line) of a NACA 0012 airfoil with chord 1, for polygon shapes
  duct.obj   OBJ of an L-shaped duct of square section 1 x 1 (along x from 0 to 2, then up along z to 3) in
             unit quads, grouped: "inlet" (the end at x = 0), "wall", "outlet" (the end at z = 3)

The meshes are watertight and outward oriented. Only numpy is needed.
"""
import math
import pathlib
import struct

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def write_binary_stl(path, vertices, triangles, name):
    v = np.asarray(vertices, dtype=np.float64)
    t = np.asarray(triangles, dtype=np.int64)
    a, b, c = v[t[:, 0]], v[t[:, 1]], v[t[:, 2]]
    n = np.cross(b - a, c - a)
    n /= np.linalg.norm(n, axis=1, keepdims=True)
    with open(path, "wb") as f:
        f.write(name.encode().ljust(80, b" ")[:80])
        f.write(struct.pack("<I", len(t)))
        for i in range(len(t)):
            f.write(struct.pack("<12fH", *n[i], *a[i], *b[i], *c[i], 0))
    print(f"{path.name}: {len(t)} triangles")


def torus(R=1.0, r=0.35, nu=96, nv=48):
    verts = []
    for i in range(nu):
        u = 2 * math.pi * i / nu
        for j in range(nv):
            w = 2 * math.pi * j / nv
            verts.append(((R + r * math.cos(w)) * math.cos(u), (R + r * math.cos(w)) * math.sin(u), r * math.sin(w)))
    tris = []
    for i in range(nu):
        for j in range(nv):
            a = i * nv + j
            b = ((i + 1) % nu) * nv + j
            c = ((i + 1) % nu) * nv + (j + 1) % nv
            d = i * nv + (j + 1) % nv
            tris += [(a, b, c), (a, c, d)]  # counter-clockwise seen from outside
    return verts, tris


def gear_outline(theta, teeth=20, root=0.85, tip=1.0):
    """Radius of a spur gear outline at angle theta: flat root, sloped flanks, flat tip."""
    pitch = 2 * math.pi / teeth
    s = (theta % pitch) / pitch  # position within one tooth period, 0..1
    # root 0-0.25, rising flank 0.25-0.4, tip 0.4-0.6, falling flank 0.6-0.75, root 0.75-1
    if s < 0.25 or s >= 0.75:
        return root
    if s < 0.4:
        return root + (tip - root) * (s - 0.25) / 0.15
    if s < 0.6:
        return tip
    return tip - (tip - root) * (s - 0.6) / 0.15


def bore(theta, radius=0.25, key_half_width=0.06, key_depth=0.08):
    """Bore with a keyway on the +x side (radius as a function of angle, star-shaped about the axis)."""
    half_angle = math.asin(key_half_width / radius)
    if abs(math.atan2(math.sin(theta), math.cos(theta))) < half_angle:
        return (radius + key_depth) / math.cos(theta) if abs(math.cos(theta)) > 1e-9 else radius
    return radius


def gear(teeth=20, samples_per_tooth=40, thickness=0.3):
    n = teeth * samples_per_tooth
    outer, inner = [], []
    for i in range(n):
        th = 2 * math.pi * i / n
        ro, ri = gear_outline(th, teeth), bore(th)
        outer.append((ro * math.cos(th), ro * math.sin(th)))
        inner.append((ri * math.cos(th), ri * math.sin(th)))
    verts = []
    for z in (0.0, thickness):
        verts += [(x, y, z) for x, y in outer]
        verts += [(x, y, z) for x, y in inner]
    ob, ib, ot, it = 0, n, 2 * n, 3 * n  # index offsets: outer/inner ring at bottom/top
    tris = []
    for i in range(n):
        j = (i + 1) % n
        tris += [(ot + i, ot + j, it + j), (ot + i, it + j, it + i)]  # top cap, normal +z
        tris += [(ob + i, ib + j, ob + j), (ob + i, ib + i, ib + j)]  # bottom cap, normal -z
        tris += [(ob + i, ob + j, ot + j), (ob + i, ot + j, ot + i)]  # outer wall, normal outward
        tris += [(ib + i, it + j, ib + j), (ib + i, it + i, it + j)]  # bore wall, normal toward the axis
    return verts, tris


def naca0012(n=120):
    """Closed NACA 0012 outline (closed trailing edge), cosine spacing, counter-clockwise from the trailing edge."""
    xs = [0.5 * (1 - math.cos(math.pi * i / n)) for i in range(n + 1)]  # 0 .. 1, dense at both ends
    def half_thickness(x):
        return 5 * 0.12 * (0.2969 * math.sqrt(x) - 0.1260 * x - 0.3516 * x**2 + 0.2843 * x**3 - 0.1036 * x**4)
    upper = [(x, half_thickness(x)) for x in reversed(xs)]  # trailing edge -> leading edge over the top
    lower = [(x, -half_thickness(x)) for x in xs[1:-1]]     # leading edge -> trailing edge underneath
    return upper + lower


def duct(cubes=((0, 0, 0), (1, 0, 0), (1, 0, 1), (1, 0, 2))):
    """The surface of a union of unit cubes: one quad per cube face no other cube covers, counter-clockwise
    seen from outside, grouped inlet (x = 0), outlet (z = 3) and wall."""
    filled = set(cubes)
    index, vertices, groups = {}, [], {"inlet": [], "wall": [], "outlet": []}
    def vertex(p):
        if p not in index:
            index[p] = len(vertices)
            vertices.append(p)
        return index[p]
    for c in cubes:
        for axis in range(3):
            for side in (0, 1):
                step = [0, 0, 0]
                step[axis] = 1 if side else -1
                if tuple(c[i] + step[i] for i in range(3)) in filled:
                    continue
                u, v = (axis + 1) % 3, (axis + 2) % 3  # (u, v, axis) right-handed: u x v points along +axis
                corners = []
                for du, dv in ((0, 0), (1, 0), (1, 1), (0, 1)):
                    p = list(c)
                    p[axis] += side
                    p[u] += du
                    p[v] += dv
                    corners.append(vertex(tuple(p)))
                if not side:
                    corners.reverse()
                name = "inlet" if (axis, side, c[0]) == (0, 0, 0) else "outlet" if (axis, side, c[2]) == (2, 1, 2) else "wall"
                groups[name].append(corners)
    return vertices, groups


def write_obj_groups(path, vertices, groups, comment):
    with open(path, "w") as f:
        f.write(f"# {comment}\n")
        for p in vertices:
            f.write("v %g %g %g\n" % p)
        for name, faces in groups.items():
            f.write(f"g {name}\n")
            for face in faces:
                f.write("f " + " ".join(str(i + 1) for i in face) + "\n")
    print(f"{path.name}: {sum(len(f) for f in groups.values())} faces in {len(groups)} groups")


def write_points(path, points, comment):
    with open(path, "w") as f:
        f.write(f"# {comment}\n")
        for x, y in points:
            f.write(f"{x:.9f} {y:.9f}\n")
    print(f"{path.name}: {len(points)} points")


if __name__ == "__main__":
    write_binary_stl(HERE / "torus.stl", *torus(), "nodegen torus R=1 r=0.35")
    write_binary_stl(HERE / "gear.stl", *gear(), "nodegen spur gear, 20 teeth, keyed bore")
    write_points(HERE / "naca0012.txt", naca0012(), "NACA 0012 airfoil, chord 1, closed trailing edge (x y per line)")
    write_obj_groups(HERE / "duct.obj", *duct(), "L-shaped duct of square section, unit quads grouped inlet, wall, outlet")
