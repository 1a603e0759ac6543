#!/usr/bin/python3
"""Adaptive refinement with nodegen: fill, solve, refine h where the error is large, fill again.

Each round runs
    nodegen run DOMAIN --set 'spacing={"samples": ERRORS.h5, "values": "/h_new"}'   (after the first)
    nodegen solve NODES.h5 --solution front --error-out ERRORS.h5
and then writes /h_new into ERRORS.h5 with h5py: h times (target / r)^(1/2), between 0.5 and 1 (only
refinement), where r is the node's local truncation error (/residual: the scheme's row applied to the
exact solution) and the target a fraction of the round's largest. The next round's spacing
interpolates /h_new between the nodes, its growth limited to `grading` per unit of distance
(docs/domain-format.md, "Spacing from samples"), so a refined patch widens smoothly into the coarse
field.
The problem is Poisson's equation with a steep circular front (nodegen solve --solution front), where
uniform nodes waste most of their number away from the front.

    /usr/bin/python3 examples/adaptive/adaptive.py [--rounds 4] [--nodegen build/release/nodegen] [--out DIR]

Prints a table: round, nodes, max error, relative L2 error; exits 1 if the max error did not fall in
every round. Needs Debian's python3-h5py and python3-numpy (for /usr/bin/python3).
"""
import argparse
import json
import pathlib
import subprocess
import sys

import h5py
import numpy as np

HERE = pathlib.Path(__file__).resolve().parent


def run(cmd):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"adaptive.py: {' '.join(map(str, cmd))} failed:\n{done.stderr}")
    return done.stdout


def refine(errors_file, fraction, least_h, coarsen):
    """Writes /h_new beside /error and /h: smaller where the error is above `fraction` of the largest."""
    with h5py.File(errors_file, "a") as f:
        error, h = f["residual"][...], f["h"][...]
        target = fraction * error.max()
        factor = np.clip((target / np.maximum(error, 1e-300)) ** 0.5, 0.5, coarsen)
        if "h_new" in f:
            del f["h_new"]
        f["h_new"] = np.maximum(h * factor, least_h)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--nodegen", default=str(HERE.parent.parent / "build/release/nodegen"))
    p.add_argument("--domain", default=str(HERE / "front.json"))
    p.add_argument("--out", default="output/adaptive")
    p.add_argument("--fraction", type=float, default=0.02, help="refine where the error exceeds this share of the max")
    p.add_argument("--least-h", type=float, default=0.002, help="never refine below this spacing")
    p.add_argument("--coarsen", type=float, default=1.0, help="the most h may grow in a round")
    p.add_argument("--grading", type=float, default=0.1, help="the most h may grow per unit of distance")
    a = p.parse_args()
    out = pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    rows, errors_file = [], None
    for k in range(a.rounds):
        nodes = out / f"round{k}.h5"
        cmd = [a.nodegen, "run", a.domain, "-o", nodes, "--quiet"]
        if errors_file is not None:
            spacing = {"samples": str(errors_file), "values": "/h_new", "positions": "/positions",
                       "grading": a.grading}
            cmd += ["--set", "spacing=" + json.dumps(spacing)]
        run(cmd)
        errors_file = out / f"errors{k}.h5"
        result = json.loads(run([a.nodegen, "solve", nodes, "--solution", "front", "--error-out", errors_file, "--json"]))
        rows.append((k, result["nodes"], result["max_error"], result["relative_l2_error"]))
        refine(errors_file, a.fraction, a.least_h, a.coarsen)
    print("round  nodes     max error   rel L2 error")
    for k, n, emax, el2 in rows:
        print(f"{k:5d}  {n:8d}  {emax:.3e}   {el2:.3e}")
    falling = all(rows[i + 1][2] < rows[i][2] for i in range(len(rows) - 1))
    print("the max error fell in every round" if falling else "the max error did not fall in every round")
    return 0 if falling else 1


if __name__ == "__main__":
    sys.exit(main())
