#!/usr/bin/python3
"""What a CAD part costs beside the same part as a fine STL: `nodegen run` end to end (read, tessellate
or check the mesh, boundary nodes, fill, write) at about 1e6 nodes, alternated in every repetition.

The part is bench/geometry/cad_part.cpp's bracket, written as STEP and as a binary STL tessellated at
the deflection nodegen's CAD reader uses, so both fill the same triangles' volume; the CAD run also
lifts its boundary nodes onto the exact faces:

    /usr/bin/python3 bench/geometry/cad_cost.py [--reps 5] [--threads 1] [--build build/release] [--out DIR]

Every timed run is `flock /tmp/nodegen-cpu.lock build/release/nodegen run D -o O --quiet --threads T`;
the table gives the median wall seconds of each (min-max), the node counts and the ratio of the medians.
"""
import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import time

H = 0.0174  # about 1e6 nodes in the bracket


def run(cmd):
    done = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"cad_cost.py: {' '.join(map(str, cmd))} failed:\n{done.stderr}")
    return done.stdout


def timed_run(build, domain, out, threads):
    start = time.perf_counter()
    line = run(["flock", "/tmp/nodegen-cpu.lock", build / "nodegen", "run", domain, "-o", out, "--threads", threads])
    seconds = time.perf_counter() - start
    nodes = int(line.split(" nodes", 1)[0].split()[-1])
    return seconds, nodes


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--build", default="build/release")
    p.add_argument("--out", default="output/cad_cost")
    a = p.parse_args()
    build, out = pathlib.Path(a.build).resolve(), pathlib.Path(a.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    run([build / "bench/cad_part", out])
    variants = {}
    for name, shape in (("STEP", {"type": "cad", "name": "bracket", "file": "bracket.step"}),
                        ("STL", {"type": "mesh", "name": "bracket", "file": "bracket.stl"})):
        variants[name] = out / f"bracket_{name.lower()}.json"
        variants[name].write_text(json.dumps({"dim": 3, "spacing": H, "shape": shape}) + "\n")
    times = {name: [] for name in variants}
    nodes = {}
    for _ in range(a.reps):
        for name, domain in variants.items():
            seconds, count = timed_run(build, domain, out / f"{name}.h5", a.threads)
            times[name].append(seconds)
            nodes[name] = count
    print(f"threads {a.threads}, {a.reps} alternated repetitions: `nodegen run` wall seconds, median (min-max)")
    print("| part as | nodes | seconds | / STL |")
    print("|---|---|---|---|")
    stl = statistics.median(times["STL"])
    for name in variants:
        t = times[name]
        print(f"| {name} | {nodes[name]} | {statistics.median(t):.3f} ({min(t):.3f}-{max(t):.3f}) | "
              f"{statistics.median(t) / stl:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
