#!/usr/bin/python3
"""The Neumann study: `nodegen solve` over many seeds, on nodegen's nodes and (optionally) on Medusa's
GeneralFill nodes, with and without ghost nodes, in one command that reruns on any build.

    bench/solve/neumann_study.py                              nodegen's nodes only
    bench/solve/neumann_study.py --medusa /path/to/medusa     also Medusa's (bench/medusa/build.sh builds the writer)
    bench/solve/neumann_study.py --quick                      a few seeds of each case, to try it out

Cases: the unit square at h = 0.005 (seeds 1-60), Dirichlet everywhere, Neumann du/dn = g on x = 1, and
the same with ghost nodes; the unit cube at h = 0.05 (seeds 1-20), Neumann on x = 1 without and with
ghost nodes, and Dirichlet. Writes OUT/runs.jsonl (one line per solve) and OUT/summary.md (median, p90,
worst and the count above 5x and 10x the median of the max and relative L2 errors; where the max lies),
OUT defaulting to output/neumann_study.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/solve/ -> the repository


def seed_range(text):
    a, _, b = text.partition("-")
    return int(a), int(b or a)


def box_domain(out, dim, h):
    path = os.path.join(out, f"box{dim}d_h{h}.json")
    with open(path, "w") as f:
        json.dump({"dim": dim, "spacing": h, "shape": {"type": "box", "min": [0] * dim, "max": [1] * dim}}, f)
    return path


def solve_args(case):
    args = []
    if case["neumann"]:
        args += ["--neumann", "shape:x+"]
    if case["ghost"]:
        args.append("--ghost-nodes")
    return args + ["--json"]


def run_nodegen_nodes(nodegen, case, domain, seeds):
    a, b = seeds
    out = subprocess.run([nodegen, "solve", domain, "--seeds", f"{a}-{b}"] + solve_args(case),
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["runs"] if a != b else [dict(json.loads(out), seed=a)]


def run_medusa_nodes(nodegen, writer, case, dim, h, seeds, scratch):
    runs = []
    for seed in range(seeds[0], seeds[1] + 1):
        nodes = os.path.join(scratch, f"medusa_{dim}d_{seed}.h5")
        subprocess.run([writer, str(dim), str(h), str(seed), nodes], check=True)
        out = subprocess.run([nodegen, "solve", nodes] + solve_args(case), check=True, capture_output=True,
                             text=True).stdout
        runs.append(dict(json.loads(out), seed=seed))
        os.remove(nodes)
    return runs


def spread(values):
    values = sorted(values)
    median = statistics.median(values)
    p90 = values[max(1, -(-9 * len(values) // 10)) - 1]  # nearest rank
    return {"median": median, "p90": p90, "worst": values[-1],
            "above5": sum(v > 5 * median for v in values), "above10": sum(v > 10 * median for v in values)}


def summary_row(case, runs):
    m = spread([r["max_error"] for r in runs])
    l2 = spread([r["relative_l2_error"] for r in runs])
    on_wall = sum("on shape:x+" in r["max_where"] for r in runs)
    nodes = statistics.median(r["nodes"] for r in runs)
    return (f"| {case['name']} | {len(runs)} | {nodes:.0f} | {m['median']:.2e} | {m['p90']:.2e} | {m['worst']:.2e} "
            f"({m['worst'] / m['median']:.1f}x) | {m['above5']} | {m['above10']} | {l2['median']:.2e} | {l2['p90']:.2e} "
            f"| {l2['worst']:.2e} | {l2['above5']} | {on_wall} |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodegen", default=os.path.join(ROOT, "build/release/nodegen"))
    p.add_argument("--medusa", help="a Medusa checkout: also study GeneralFill's nodes")
    p.add_argument("--out", default=os.path.join(ROOT, "output/neumann_study"))
    p.add_argument("--seeds2d", default="1-60")
    p.add_argument("--seeds3d", default="1-20")
    p.add_argument("--h2d", type=float, default=0.005)
    p.add_argument("--h3d", type=float, default=0.05)
    p.add_argument("--only", default="", help="run only the cases whose name contains one of these texts "
                   "(comma-separated)")
    p.add_argument("--summarize", nargs="+", metavar="RUNS.jsonl",
                   help="run nothing: write OUT/summary.md from the runs.jsonl of earlier (partial) studies")
    p.add_argument("--quick", action="store_true", help="seeds 1-3 and 1-2")
    a = p.parse_args()
    if a.quick:
        a.seeds2d, a.seeds3d = "1-3", "1-2"
    os.makedirs(a.out, exist_ok=True)

    if a.summarize:
        runs = [json.loads(line) for path in a.summarize for line in open(path)]
        names = list(dict.fromkeys(r["case"] for r in runs))
        rows = [summary_row({"name": n}, [r for r in runs if r["case"] == n]) for n in names]
        write_summary(a.out, rows)
        return 0

    generators = ["nodegen"]
    writer = None
    if a.medusa:
        build = os.path.join(a.out, "medusa-build")
        writer = subprocess.run([os.path.join(ROOT, "bench/medusa/build.sh"), a.medusa, build], check=True,
                                capture_output=True, text=True).stdout.strip().splitlines()[-1]
        generators.append("medusa")

    cases = []
    for gen in generators:
        for dim, h, seeds in ((2, a.h2d, a.seeds2d), (3, a.h3d, a.seeds3d)):
            for kind, neumann, ghost in (("Dirichlet", False, False), ("Neumann x+", True, False),
                                         ("Neumann x+, ghost nodes", True, True)):
                name = f"{gen} {dim}D h={h} {kind}"
                if any(part in name for part in a.only.split(",")):
                    cases.append({"name": name, "gen": gen, "dim": dim, "h": h, "seeds": seed_range(seeds),
                                  "neumann": neumann, "ghost": ghost})

    rows = []
    with open(os.path.join(a.out, "runs.jsonl"), "w") as log:
        for case in cases:
            print(f"neumann_study: {case['name']}, seeds {case['seeds'][0]}-{case['seeds'][1]}", flush=True)
            if case["gen"] == "nodegen":
                runs = run_nodegen_nodes(a.nodegen, case, box_domain(a.out, case["dim"], case["h"]), case["seeds"])
            else:
                runs = run_medusa_nodes(a.nodegen, writer, case, case["dim"], case["h"], case["seeds"], a.out)
            for r in runs:
                log.write(json.dumps(dict(r, case=case["name"])) + "\n")
            rows.append(summary_row(case, runs))
            print(rows[-1], flush=True)

    write_summary(a.out, rows)


def write_summary(out, rows):
    header = ("| case | seeds | nodes | max: median | p90 | worst | >5x | >10x | rel L2: median | p90 | worst | >5x "
              "| max on x+ |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write(header + "\n" + "\n".join(rows) + "\n")
    print(f"neumann_study: {os.path.join(out, 'summary.md')}")


if __name__ == "__main__":
    sys.exit(main())
