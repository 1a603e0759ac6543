#!/usr/bin/python3
"""The scaling model checked against this machine: the fill's measured speed-up at P threads (its
cores) next to what the model makes of a 1-thread run's phase log with this machine's own barrier cost.

    /usr/bin/python3 bench/fill/model_check.py [--threads P] [--dim 2] [--nodes 1e6] [--domain FILE.json]
                                               [--reps 5] [--build build/release]

Steps, every timed run under `flock /tmp/nodegen-cpu.lock`:
  1. what one barrier crossing costs here at P threads (bench/phase_barrier --threads P);
  2. `reps` rounds of bench/fill at 1 and at P threads and (on the unit box) of the machine's ceiling,
     P independent 1-thread fills at once (bench/fill --independent), their order alternating from
     round to round (a host's speed drifts): the medians and ranges of the fill seconds;
  3. one 1-thread run with --phase-log, replayed by fill_dataflow_model.py under the phases' schedule
     (today's fill) at P threads with that barrier cost.
Prints the measured speed-up (median 1-thread seconds over median P-thread seconds, with the range of
the rounds' own ratios), the modelled one, and how optimistic the model is (modelled / measured - 1).
The model leaves out what the hardware takes from busy cores (shared caches, memory bandwidth, page
faults, a host's scheduling of its vCPUs), which the ceiling measures (P times the 1-thread seconds
over the independent fills' seconds): so it also prints the model scaled by the ceiling's share of P,
what the fill should reach if it lost nothing of its own, against the measure (docs/parallel-fill.md,
"Scaling model").
"""
import argparse
import os
import pathlib
import re
import statistics
import sys
import tempfile

from commands import fill, locked, run

HERE = pathlib.Path(__file__).resolve().parent


def barrier_us(build, threads):
    out = locked([build / "bench/phase_barrier", "--threads", threads])
    m = re.search(r"a crossing ([-0-9.eE+]+) us", out)
    if not m:
        sys.exit(f"model_check.py: no crossing cost in bench/phase_barrier's output:\n{out}")
    return max(0.0, float(m.group(1)))


def fill_seconds(build, what, threads, extra=()):
    return fill(build, [*what, "--threads", threads, "--no-quality", *extra])["seconds"]


def modelled(log, threads, barrier):
    out = run([sys.executable, HERE / "fill_dataflow_model.py", log, "--threads", f"1,{threads}",
               "--barrier-us", f"{barrier:.3f}", "--schedules", "phases"])
    row = next(line for line in out.splitlines() if line.startswith("| phases |"))
    one, many = (float(t) for t in re.findall(r"([0-9.]+) s,", row))
    return one / many


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2, help="P (default: this machine's CPUs)")
    ap.add_argument("--dim", type=int, default=2)
    ap.add_argument("--nodes", default="1e6")
    ap.add_argument("--domain", help="a domain file instead of the unit box (its own spacing unless --nodes)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--build", default="build/release")
    a = ap.parse_args()
    if a.threads < 2:
        sys.exit("model_check.py: --threads must be at least 2")
    build = pathlib.Path(a.build).resolve()
    what = ["--domain", a.domain] if a.domain else ["--dim", str(a.dim)]
    what += ["--nodes", a.nodes] if a.nodes else []
    barrier = barrier_us(build, a.threads)
    runs = {"1": [], "P": [], "ceiling": []}
    kinds = ["1", "P"] + ([] if a.domain else ["ceiling"])
    for r in range(a.reps):
        for kind in (kinds if r % 2 == 0 else kinds[::-1]):
            extra = ["--independent"] if kind == "ceiling" else []
            runs[kind].append(fill_seconds(build, what, 1 if kind == "1" else a.threads, extra))
    one, many = runs["1"], runs["P"]
    with tempfile.TemporaryDirectory() as tmp:
        log = pathlib.Path(tmp) / "phases.csv"
        fill_seconds(build, what, 1, ["--phase-log", log])
        model = modelled(log, a.threads, barrier)
    measured = statistics.median(one) / statistics.median(many)
    pairs = [o / m for o, m in zip(one, many)]
    print(f"{' '.join(what)}, {a.reps} alternated rounds; a barrier crossing at {a.threads} threads: {barrier:.2f} us")
    print(f"1 thread {statistics.median(one):.3f} s ({min(one):.3f}-{max(one):.3f}), "
          f"{a.threads} threads {statistics.median(many):.3f} s ({min(many):.3f}-{max(many):.3f})")
    print(f"measured {measured:.2f}x (rounds {min(pairs):.2f}-{max(pairs):.2f}x), modelled {model:.2f}x: "
          f"the model is {100 * (model / measured - 1):+.0f} % from the measure")
    if runs["ceiling"]:
        ceiling = a.threads * statistics.median(one) / statistics.median(runs["ceiling"])
        expected = model * ceiling / a.threads
        print(f"the machine's ceiling {ceiling:.2f}x ({a.threads} independent fills): the model times its share of "
              f"{a.threads}, {expected:.2f}x, is {100 * (expected / measured - 1):+.0f} % from the measure")
    return 0


if __name__ == "__main__":
    sys.exit(main())
