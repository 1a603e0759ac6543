#!/usr/bin/env python3
"""Reads the markdown table printed by bench/spatial/kdtree and prints the same comparisons normalised by CPU
share, for runs on a shared machine: rate / share is steps per CPU-second of the run's own threads.

  speed-up per CPU-second = (rate / share) / (nanoflann rate / nanoflann share)
  2-thread scaling per CPU = (rate2 / (2 share2)) / (rate1 / share1) * 2
    (what 2 threads would give on two otherwise idle cores, if per-thread cost stays as measured;
     spinning on a contended leaf counts as CPU, so contention still lowers it)

Usage: python3 bench/spatial/kdtree_normalise.py TABLE.md
"""
import sys


def main(path):
    rows = []
    for line in open(path):
        if not line.startswith("| ") or "variant" in line:
            continue
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        rows.append(dict(dim=c[0], n=c[1], order=c[2], variant=c[3], threads=int(c[4]), rate=float(c[5]),
                         share=float(c[13].rstrip("%")) / 100))
    base, single = {}, {}
    for r in rows:
        key = (r["dim"], r["n"], r["order"])
        if r["variant"].startswith("nanoflann"):
            base[key] = r["rate"] / r["share"]
        if r["threads"] == 1:
            single[key + (r["variant"],)] = r["rate"] / r["share"]
    print("| dim | n | order | variant | threads | steps per CPU-second | projected steps/s on idle cores "
          "| vs nanoflann (projected) | 2-thread scaling (projected) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        key = (r["dim"], r["n"], r["order"])
        projected = r["rate"] / r["share"]  # = threads * steps per CPU-second
        per_cpu = projected / r["threads"]
        vs = "-" if r["variant"].startswith("nanoflann") or key not in base else f"{projected / base[key]:.1f}x"
        scaling = "-"
        if r["threads"] > 1 and key + (r["variant"],) in single:
            scaling = f"{projected / single[key + (r['variant'],)]:.2f}x"
        print(f"| {r['dim']} | {r['n']} | {r['order']} | {r['variant']} | {r['threads']} | {per_cpu:.3g} "
              f"| {projected:.3g} | {vs} | {scaling} |")


if __name__ == "__main__":
    main(sys.argv[1])
