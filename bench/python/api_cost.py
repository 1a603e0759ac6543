#!/usr/bin/python3
"""What the in-process Python API costs beside the command, side by side in one run:

  1. nodegen.discretize of the unit square at 1e6 nodes (constant h) against `nodegen run` of the same
     domain file: the fill's seconds and the process's peak memory, also less what the interpreter with
     numpy and nodegen imported holds before any fill;
  2. a vectorised Python spacing function against the same spacing as an expression (fill seconds);
  3. supports, k = 15 in 2D and 30 in 3D at about 1e6 nodes: discretize with supports against without
     (their difference is the supports' time), on 1 and 2 threads, beside the fill's own time.

Every variant runs in a fresh process under `flock /tmp/nodegen-cpu.lock`, variants alternated in every
repetition; the table gives medians (min-max).

    PYTHONPATH=build/release/python /usr/bin/python3 bench/python/api_cost.py [--reps 5] [--build build/release]
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
H2 = 0.000944   # the unit square at about 1e6 nodes
H3 = 0.0113     # the unit cube at about 1e6 nodes

# The interpreter with numpy and nodegen imported, before any fill: what a Python process holds anyway.
BASELINE = r"""
import json, resource
import numpy as np
import nodegen
print(json.dumps({"nodes": 0, "fill_seconds": 0.0, "seconds": 0.0,
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""

CHILD = r"""
import json, resource, sys, time
import numpy as np
import nodegen
a = json.loads(sys.argv[1])
spacing = a["spacing"]
if spacing == "function":
    spacing = lambda x: a["h"] + 0.5 * a["h"] * x[:, 0]
start = time.perf_counter()
d = nodegen.discretize(a["domain"], spacing=spacing, threads=a["threads"], supports=a["supports"])
seconds = time.perf_counter() - start
print(json.dumps({"nodes": len(d), "fill_seconds": d.fill_seconds, "seconds": seconds,
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def locked(cmd, env=None):
    done = subprocess.run(["flock", "/tmp/nodegen-cpu.lock", *map(str, cmd)], capture_output=True, text=True, env=env)
    if done.returncode != 0:
        sys.exit(f"api_cost.py: {' '.join(map(str, cmd))} failed:\n{done.stderr}")
    return done.stdout


def python_run(env, **args):
    return json.loads(locked([sys.executable, "-c", CHILD, json.dumps(args)], env=env))


def command_run(build, domain, out, threads):
    report = json.loads(locked([build / "nodegen", "run", domain, "-o", out, "--quiet", "--threads", threads,
                                "--report", "-"]))
    return {"nodes": report["nodes"], "fill_seconds": report["fill_seconds"], "peak_rss_bytes": report["peak_rss_bytes"]}


def median(values):
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--build", default=str(ROOT / "build/release"))
    a = p.parse_args()
    build = pathlib.Path(a.build).resolve()
    env = dict(os.environ, PYTHONPATH=str(build / "python"))
    work = pathlib.Path(tempfile.mkdtemp(prefix="nodegen-api-cost-"))
    square = work / "square.json"
    square.write_text(json.dumps({"dim": 2, "spacing": H2, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}}))
    cube = work / "cube.json"
    cube.write_text(json.dumps({"dim": 3, "spacing": H3, "shape": {"type": "box", "min": [0, 0, 0], "max": [1, 1, 1]}}))
    expression = f"{H2} + {0.5 * H2} * x"
    variants = {
        "run": lambda: command_run(build, square, work / "run.h5", 1),
        "discretize": lambda: python_run(env, domain=str(square), spacing=None, threads=1, supports=0),
        "interpreter": lambda: json.loads(locked([sys.executable, "-c", BASELINE], env=env)),
        "expression": lambda: python_run(env, domain=str(square), spacing=expression, threads=1, supports=0),
        "function": lambda: python_run(env, domain=str(square), spacing="function", h=H2, threads=1, supports=0),
    }
    for dim, domain, k in ((2, square, 15), (3, cube, 30)):
        for t in (1, 2):
            variants[f"{dim}D t{t}"] = lambda d=domain, t=t: python_run(env, domain=str(d), spacing=None, threads=t, supports=0)
            variants[f"{dim}D t{t} k{k}"] = lambda d=domain, t=t, k=k: python_run(env, domain=str(d), spacing=None,
                                                                              threads=t, supports=k)
    results = {name: [] for name in variants}
    for _ in range(a.reps):
        for name, run in variants.items():
            results[name].append(run())
    col = lambda name, key: [r[key] for r in results[name]]
    print(f"{a.reps} alternated repetitions, medians (min-max)\n")
    print("| compared | nodes | fill seconds | peak memory, MB |")
    print("|---|---|---|---|")
    for name in ("run", "discretize", "interpreter", "expression", "function"):
        print(f"| {name} | {results[name][0]['nodes']} | {median(col(name, 'fill_seconds'))} | "
              f"{median([b / 1e6 for b in col(name, 'peak_rss_bytes')])} |")
    ratio = lambda x, y: statistics.median(col(x, "fill_seconds")) / statistics.median(col(y, "fill_seconds"))
    memory = lambda x, y: statistics.median(col(x, "peak_rss_bytes")) / statistics.median(col(y, "peak_rss_bytes"))
    rss = lambda x: statistics.median(col(x, "peak_rss_bytes"))
    print(f"\ndiscretize / run: fill {ratio('discretize', 'run'):.3f}x, peak memory {memory('discretize', 'run'):.3f}x, "
          f"beyond the interpreter's own {(rss('discretize') - rss('interpreter')) / rss('run'):.3f}x; "
          f"function / expression: fill {ratio('function', 'expression'):.3f}x\n")
    print("| supports | nodes | threads | fill seconds | supports seconds | supports / fill |")
    print("|---|---|---|---|---|---|")
    for dim, k in ((2, 15), (3, 30)):
        for t in (1, 2):
            base, with_k = f"{dim}D t{t}", f"{dim}D t{t} k{k}"
            extra = [w["seconds"] - b["seconds"] for w, b in zip(results[with_k], results[base])]
            fill = statistics.median(col(base, "fill_seconds"))
            print(f"| {dim}D k = {k} | {results[base][0]['nodes']} | {t} | {median(col(base, 'fill_seconds'))} | "
                  f"{median(extra)} | {statistics.median(extra) / fill:.2f} |")


if __name__ == "__main__":
    main()
