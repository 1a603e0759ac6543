#!/usr/bin/python3
"""`nodegen run` on several MPI ranks beside a plain run: time, the ranks' shares and halo, memory.

    flock /tmp/nodegen-cpu.lock bench/mpi/ranks.py [--build DIR] [--reps N] [--ranks "1 2 4"]
        [--threads T] DOMAIN.json ...

For every domain, N rounds (default 3); in each round, in turn: a plain run with T threads (default 1)
and `mpirun -np R` runs with T threads per rank for every R of --ranks, all on this machine (more
ranks than cores are oversubscribed, so the times show overhead, not parallel speed). Prints per
domain and variant the median wall seconds with their range, and from the last round's --report of
each R: nodes and peak RSS per rank, nodes sent and received, bytes sent over the rank's node bytes
(24 B of position per node in 3D, 16 in 2D), the most bytes a rank sent after one phase, the load
imbalance; and checks that every run wrote the plain run's nodes_sha256 (exit 1 if not).
As root it sets Open MPI's OMPI_ALLOW_RUN_AS_ROOT variables.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("domains", nargs="+")
ap.add_argument("--build", default="build/release")
ap.add_argument("--reps", type=int, default=3)
ap.add_argument("--ranks", default="1 2 4")
ap.add_argument("--threads", type=int, default=1)
args = ap.parse_args()
nodegen = os.path.abspath(os.path.join(args.build, "nodegen"))
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
ranks = [int(r) for r in args.ranks.split()]
ok = True

with tempfile.TemporaryDirectory() as work:
    for domain in args.domains:
        name = os.path.splitext(os.path.basename(domain))[0]
        variants = [("plain", [])] + [(f"mpirun -np {r}", ["mpirun", "-q", "-np", str(r), "--oversubscribe"]) for r in ranks]
        seconds = {v: [] for v, _ in variants}
        reports = {}
        for _ in range(args.reps):
            for label, launcher in variants:
                out, rep = os.path.join(work, "out.h5"), os.path.join(work, "report.json")
                cmd = launcher + [nodegen, "run", domain, "-o", out, "--threads", str(args.threads), "--quiet", "--report", rep]
                start = time.monotonic()
                subprocess.run(cmd, env=env, check=True)
                seconds[label].append(time.monotonic() - start)
                reports[label] = json.load(open(rep))
        plain = reports["plain"]
        dim = plain["dim"]
        print(f"## {name}: {plain['nodes']} nodes, {args.threads} thread(s) per process, {args.reps} rounds\n")
        print("| variant | wall s median (range) | vs plain | same nodes_sha256 |")
        print("|---|---|---|---|")
        base = statistics.median(seconds["plain"])
        for label, _ in variants:
            s = seconds[label]
            same = reports[label]["nodes_sha256"] == plain["nodes_sha256"]
            ok &= same
            print(f"| {label} | {statistics.median(s):.2f} ({min(s):.2f}-{max(s):.2f}) | {statistics.median(s) / base:.2f}x | {'yes' if same else 'NO'} |")
        print()
        print("| ranks | rank | nodes | peak RSS MiB | nodes sent | nodes received | bytes sent / own position bytes | most bytes after one phase | load imbalance |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in ranks:
            rep = reports[f"mpirun -np {r}"]
            for f in rep["ranks"]:
                own = f["nodes"] * dim * 8
                print(f"| {r} | {f['rank']} | {f['nodes']} | {f['peak_rss_bytes'] / 2**20:.1f} | {f['nodes_sent']} | "
                      f"{f['nodes_received']} | {100.0 * f['bytes_sent'] / own:.2f} % | {f['largest_phase_bytes_sent']} | "
                      f"{rep['load_imbalance']:.3f} |")
        print()
sys.exit(0 if ok else 1)
