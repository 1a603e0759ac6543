#!/usr/bin/python3
"""The headline figures of nodegen in one command: fill rate, memory, quality, backends, k-d tree.

    bench/headline            a minute or two on a 2-core machine
    bench/headline --quick    under a minute: small sizes, one repetition (CI runs it from scripts/test.sh)

Steps, each with the command it runs (the markdown repeats them beside their tables):
  1. fill rate: bench/fill on the unit square and the unit cube (~1e6 nodes; --quick 5e5 / 2e5) at 1 and
     2 threads, the two alternated in each repetition; nodes/s and the 2-thread / 1-thread ratio;
  2. end to end: `nodegen run` on bench/domains/square_1e6.json and cube_1e6.json (--quick:
     domains/square.json and cube.json) at 2 threads; bytes per node = the run's peak RSS (its --report)
     over its nodes; then `nodegen stats --json`: packing density, holes p99.9 / h, nn/h min;
  3. backend comparison: the same runs with --backend vm, vector and suballoc at 2 threads, the order
     rotated in each repetition: fill nodes/s and peak bytes per node, and whether all three wrote the
     same nodes (nodes_sha256);
  4. k-d tree: bench/kdtree --quick (1e6 points; --quick 5e5), our tree on the VM store at 1 and 2
     threads against nanoflann's dynamic index, insert + exists-within-radius steps per second.
Writes OUT/headline.md and OUT/headline.csv (OUT: output/headline, or output/headline/quick with
--quick) and prints the markdown. Binaries come from build/release (built there with the release preset
when missing) or `--build DIR`; it runs from any folder.
Exits non-zero if any step fails or the backends disagree on the nodes.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # bench/end-to-end/ -> the repository
BACKENDS = ["vm", "vector", "suballoc"]


class StepFailed(Exception):
    pass


def run(cmd, timeout):
    """Runs cmd (a list) from the repository root; returns its stdout, or raises StepFailed with the reason."""
    try:
        done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise StepFailed(f"{shlex.join(cmd)}: no result after {timeout:.0f} s")
    except OSError as e:
        raise StepFailed(f"{shlex.join(cmd)}: {e}")
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise StepFailed(f"{shlex.join(cmd)}: exit status {done.returncode}: {' / '.join(tail)}")
    return done.stdout


def key_values(line):
    """bench/fill's output line, key=value pairs, as a dict of strings."""
    return dict(item.split("=", 1) for item in line.split() if "=" in item)


def median_range(values, fmt):
    if len(values) == 1:
        return fmt(values[0])
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}-{fmt(max(values))})"


def sci(x):
    """1.35e6, as bench/RESULTS.md writes rates."""
    mantissa, exponent = f"{x:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def fixed(digits):
    return lambda x: f"{x:.{digits}f}"


class Headline:
    def __init__(self, args):
        self.quick = args.quick
        self.build = os.path.join(ROOT, args.build) if not os.path.isabs(args.build) else args.build
        self.nodegen = os.path.join(self.build, "nodegen")
        self.fill = os.path.join(self.build, "bench", "fill")
        self.kdtree = os.path.join(self.build, "bench", "kdtree")
        self.reps = args.reps or (1 if self.quick else 3)
        self.timeout = 120 if self.quick else 600
        self.rows = []      # CSV rows
        self.sections = []  # markdown
        self.scratch = tempfile.mkdtemp(prefix="headline-", dir=args.out)
        if self.quick:
            self.fill_nodes = {2: "5e5", 3: "2e5"}
            self.domains = {2: "domains/square.json", 3: "domains/cube.json"}
            self.kdtree_size = "5e5"
            self.stats_samples = "100000"
        else:
            self.fill_nodes = {2: "1e6", 3: "1e6"}
            self.domains = {2: "bench/domains/square_1e6.json", 3: "bench/domains/cube_1e6.json"}
            self.kdtree_size = "1e6"
            self.stats_samples = "1000000"

    def row(self, section, case, dim, threads, backend, metric, value):
        self.rows.append({"section": section, "case": case, "dim": dim, "threads": threads, "backend": backend,
                          "metric": metric, "value": f"{value:.6g}" if isinstance(value, float) else value})

    def check_binaries(self, build_missing):
        """The three programs; with build_missing (the default build folder), builds those that are missing
        with the release preset, so the command runs after the README's set-up, which builds nodegen only."""
        targets = {self.nodegen: "nodegen", self.fill: "bench_fill", self.kdtree: "bench_kdtree"}
        missing = [b for b in targets if not os.access(b, os.X_OK)]
        if missing and build_missing:
            print("headline: building " + ", ".join(targets[m] for m in missing) + " (release preset)",
                  file=sys.stderr, flush=True)
            for step in (["cmake", "--preset", "release"],
                         ["cmake", "--build", "--preset", "release", "--target"] + [targets[m] for m in missing]):
                if subprocess.run(step, cwd=ROOT, stdout=subprocess.DEVNULL).returncode != 0:
                    raise StepFailed(f"`{shlex.join(step)}` failed")
            missing = [b for b in targets if not os.access(b, os.X_OK)]
        if missing:
            raise StepFailed("missing " + ", ".join(os.path.relpath(m, ROOT) for m in missing) +
                             " (build them: cmake --preset release && cmake --build --preset release)")

    # 1. bench/fill at 1 and 2 threads, alternated.
    def fill_rates(self):
        lines = ["| case | 1 thread nodes/s | 2 threads nodes/s | 2 threads / 1 (per repetition) |", "|---|---|---|---|"]
        commands = []
        for dim in (2, 3):
            rates = {1: [], 2: []}
            ratios = []
            for rep in range(self.reps):
                order = (1, 2) if rep % 2 == 0 else (2, 1)
                got = {}
                for t in order:
                    cmd = [self.fill, "--dim", str(dim), "--nodes", self.fill_nodes[dim], "--threads", str(t), "--no-quality"]
                    out = key_values(run(cmd, self.timeout).strip().splitlines()[-1])
                    got[t] = float(out["nodes_per_s"])
                    nodes = int(out["nodes"])
                for t in (1, 2):
                    rates[t].append(got[t])
                ratios.append(got[2] / got[1])
            commands.append(f"build/release/bench/fill --dim {dim} --nodes {self.fill_nodes[dim]} --threads 1|2 --no-quality")
            case = f"unit {'square' if dim == 2 else 'cube'}, {nodes} nodes"
            lines.append(f"| {case} | {median_range(rates[1], sci)} | {median_range(rates[2], sci)} | "
                         f"{median_range(ratios, lambda r: f'{r:.2f}x')} |")
            for t in (1, 2):
                self.row("fill", case, dim, t, "vm", "nodes_per_s", statistics.median(rates[t]))
            self.row("fill", case, dim, 2, "vm", "speedup_over_1_thread", statistics.median(ratios))
        self.section("Fill rate", f"The PNP fill alone (boundary placement excluded), VM store, {self.reps} "
                     "repetition(s), 1 and 2 threads alternated; medians (min-max).", commands, lines)

    # 2. and 3. nodegen run on real domain files: memory, quality, backends.
    def nodegen_run(self, dim, backend, tag):
        out = os.path.join(self.scratch, f"{tag}.h5")
        report = os.path.join(self.scratch, f"{tag}.json")
        run([self.nodegen, "run", self.domains[dim], "-o", out, "--threads", "2", "--backend", backend,
             "--quiet", "--report", report], self.timeout)
        with open(report) as f:
            return json.load(f), out

    def end_to_end(self):
        lines = ["| domain | nodes | peak B/node | packing | holes p99.9 / h | nn/h min |", "|---|---|---|---|---|---|"]
        for dim in (2, 3):
            report, h5 = self.nodegen_run(dim, "vm", f"run{dim}d")
            stats = json.loads(run([self.nodegen, "stats", h5, "--json", "--samples", self.stats_samples], self.timeout))
            case = os.path.basename(self.domains[dim])
            nodes = report["nodes"]
            bpn = report["peak_rss_bytes"] / nodes
            lines.append(f"| {case} | {nodes} | {bpn:.1f} | {stats['packing_density']:.4f} | "
                         f"{stats['holes']['p999']:.3f} | {stats['nn_over_h']['min']:.3f} |")
            self.row("end_to_end", case, dim, 2, "vm", "nodes", nodes)
            self.row("end_to_end", case, dim, 2, "vm", "peak_bytes_per_node", bpn)
            self.row("end_to_end", case, dim, 2, "vm", "packing_density", float(stats["packing_density"]))
            self.row("end_to_end", case, dim, 2, "vm", "holes_p999_over_h", float(stats["holes"]["p999"]))
            self.row("end_to_end", case, dim, 2, "vm", "nn_over_h_min", float(stats["nn_over_h"]["min"]))
        note = ("Peak RSS of the whole `nodegen run` process (boundary, fill, output) over its nodes; quality "
                f"from `nodegen stats` ({self.stats_samples} hole samples).")
        if self.quick:
            note += " At these sizes the process's fixed ~7-8 MB lifts the bytes per node."
        self.section("End to end: memory and quality", note,
                     [f"build/release/nodegen run {self.domains[d]} -o OUT.h5 --threads 2 --report R.json; "
                      f"build/release/nodegen stats OUT.h5 --json --samples {self.stats_samples}" for d in (2, 3)], lines)

    def backends(self):
        lines = ["| domain | backend | fill nodes/s | peak B/node |", "|---|---|---|---|"]
        mismatch = []
        for dim in (2, 3):
            rates = {b: [] for b in BACKENDS}
            bpn = {b: [] for b in BACKENDS}
            hashes = set()
            for rep in range(self.reps):
                order = BACKENDS[rep % 3:] + BACKENDS[:rep % 3]
                for backend in order:
                    report, _ = self.nodegen_run(dim, backend, f"backend{dim}d_{backend}")
                    rates[backend].append(float(report["nodes_per_second"]))
                    bpn[backend].append(report["peak_rss_bytes"] / report["nodes"])
                    hashes.add(report["nodes_sha256"])
            case = os.path.basename(self.domains[dim])
            for backend in BACKENDS:
                lines.append(f"| {case} | {backend} | {median_range(rates[backend], sci)} | "
                             f"{median_range(bpn[backend], fixed(1))} |")
                self.row("backend", case, dim, 2, backend, "fill_nodes_per_s", statistics.median(rates[backend]))
                self.row("backend", case, dim, 2, backend, "peak_bytes_per_node", statistics.median(bpn[backend]))
            self.row("backend", case, dim, 2, "all", "same_nodes", "yes" if len(hashes) == 1 else "no")
            if len(hashes) != 1:
                mismatch.append(case)
        self.section("Backend comparison, 2 threads",
                     f"`nodegen run` with each store backend, {self.reps} repetition(s), the order rotated in each; "
                     "fill nodes/s from the report (`nodes_per_second`). Same nodes on every backend: "
                     + ("**no** (" + ", ".join(mismatch) + ")" if mismatch else "yes (one nodes_sha256 per domain)") + ".",
                     ["build/release/nodegen run DOMAIN -o OUT.h5 --threads 2 --backend vm|vector|suballoc --report R.json"],
                     lines)
        if mismatch:
            raise StepFailed("the backends wrote different nodes for " + ", ".join(mismatch))

    def kdtree_table(self):
        cmd = [self.kdtree, "--quick", "--sizes", self.kdtree_size, "--variants", "nanoflann,vm t"]
        text = run(cmd, self.timeout)
        lines = ["| case | nanoflann steps/s | KdTree 1 thread | KdTree 2 threads | 1 thread vs nanoflann |",
                 "|---|---|---|---|---|"]
        table = parse_kdtree(text)
        if not table:
            raise StepFailed(f"{shlex.join(cmd)}: no table in its output")
        for (dim, order), rate in sorted(table.items()):
            if not all(k in rate for k in ("nanoflann", "vm t1", "vm t2")):
                raise StepFailed(f"{shlex.join(cmd)}: {dim}D {order} lacks a variant: {sorted(rate)}")
            case = f"{dim}D {order}"
            lines.append(f"| {case} | {sci(rate['nanoflann'])} | {sci(rate['vm t1'])} | {sci(rate['vm t2'])} | "
                         f"{rate['vm t1'] / rate['nanoflann']:.1f}x |")
            self.row("kdtree", case, dim, 1, "nanoflann", "steps_per_s", rate["nanoflann"])
            self.row("kdtree", case, dim, 1, "vm", "steps_per_s", rate["vm t1"])
            self.row("kdtree", case, dim, 2, "vm", "steps_per_s", rate["vm t2"])
        self.section("k-d tree against nanoflann",
                     f"Interleaved insert + exists-within-radius at {self.kdtree_size} points (the fill's inner loop), "
                     "one repetition.", [shlex.join(["build/release/bench/kdtree"] + cmd[1:])], lines)

    def section(self, title, note, commands, table):
        self.sections.append("\n".join([f"## {title}", "", note, ""] + ["    " + c for c in commands] + [""] + table))

    def machine(self):
        cpu = "unknown CPU"
        try:
            with open("/proc/cpuinfo") as f:
                cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
        except (OSError, StopIteration):
            pass
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        return (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, "
                f"commit {commit.stdout.strip() or 'unknown'}, {len(os.sched_getaffinity(0))} CPUs ({cpu}), "
                f"Linux {platform.release()}, binaries in {os.path.relpath(self.build, ROOT)}")


def parse_kdtree(text):
    """bench/kdtree's markdown table -> {(dim, order): {variant: median steps/s}}."""
    header, table = None, {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|") or set("".join(cells)) <= set("-: |"):
            continue
        if header is None:
            header = [c.lower() for c in cells]
            continue
        row = dict(zip(header, cells))
        try:
            dim = int(re.match(r"(\d)", row["dim"]).group(1))
            rate = float(row["steps/s (median)"])
            name = "nanoflann" if row["variant"].startswith("nanoflann") else row["variant"].replace("KdTree ", "")
            table.setdefault((dim, row["order"]), {})[f"{name} t{row['threads']}" if name != "nanoflann" else name] = rate
        except (KeyError, AttributeError, ValueError):
            raise StepFailed(f"bench/kdtree: unexpected row: {line.strip()}")
    return table


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, one repetition (under a minute)")
    parser.add_argument("--build", default="build/release", help="build folder with nodegen and bench/ (default build/release)")
    parser.add_argument("--reps", type=int, help="repetitions of the timed steps (default 3, --quick 1)")
    parser.add_argument("--out", help="output folder (default output/headline, --quick output/headline/quick)")
    args = parser.parse_args()
    args.out = args.out or os.path.join(ROOT, "output", "headline", "quick" if args.quick else "")
    os.makedirs(args.out, exist_ok=True)

    start = time.monotonic()
    headline = Headline(args)
    try:
        headline.check_binaries(build_missing=args.build == "build/release")
        for step in (headline.fill_rates, headline.end_to_end, headline.backends, headline.kdtree_table):
            print(f"headline: {step.__name__.replace('_', ' ')} ...", file=sys.stderr, flush=True)
            step()
    except StepFailed as e:
        print(f"headline: error: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(headline.scratch, ignore_errors=True)

    title = "# nodegen headline" + (" (--quick: small sizes, one repetition)" if args.quick else "")
    markdown = "\n\n".join([title, headline.machine() + f"; {time.monotonic() - start:.0f} s in all."] +
                           headline.sections) + "\n"
    md_path, csv_path = os.path.join(args.out, "headline.md"), os.path.join(args.out, "headline.csv")
    with open(md_path, "w") as f:
        f.write(markdown)
    with open(csv_path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["section", "case", "dim", "threads", "backend", "metric", "value"])
        writer.writeheader()
        writer.writerows(headline.rows)
    print(markdown)
    print(f"headline: wrote {os.path.relpath(md_path, ROOT)} and {os.path.relpath(csv_path, ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
