#!/usr/bin/python3
"""Plots bench/storage/collatz results in the layout of the VM-container paper's Figures 3 and 4.

    /usr/bin/python3 bench/storage/plot_collatz.py [output/collatz.csv ...] [-o output/collatz.png]

Several CSV files (e.g. the main grid and a run-once n = 1e8 file) are merged.

One panel per thread count (the paper's Figure 3 is one thread, Figure 4 many). In each panel, a group
of bars per n, one bar per container variant, each bar stacked from the median setup time (blue),
calculation time (orange) and resize time (green), the paper's colours. Log time axis, since n spans
decades.
"""
import argparse
import csv
import statistics
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PARTS = [("setup_s", "container setup", "tab:blue"),
         ("compute_s", "calculation", "tab:orange"),
         ("resize_s", "resizing", "tab:green")]
HATCHES = {"vector_empty": "", "vector_target": "//", "vector_max": "..", "vm": "xx", "vm_thp": "\\\\",
           "vm_sparse": "++", "vm_sparse_thp": "oo"}
LABELS = {"vector_empty": "vector, empty", "vector_target": "vector, target size", "vector_max": "vector, max size",
          "vm": "VM store (default, 4 KiB)", "vm_thp": "VM store (THP)",
          "vm_sparse": "VM sparse array (4 KiB)", "vm_sparse_thp": "VM sparse array (THP)"}


def load(paths):
    rows = defaultdict(lambda: defaultdict(list))  # (threads, n, variant) -> part -> values
    variants, ns, threads = [], set(), set()
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(f):
                key = (int(r["threads"]), int(r["n"]), r["variant"])
                for part, _, _ in PARTS:
                    rows[key][part].append(float(r[part]))
                if r["variant"] not in variants:
                    variants.append(r["variant"])
                ns.add(int(r["n"]))
                threads.add(int(r["threads"]))
    order = [v for v in HATCHES if v in variants] + [v for v in variants if v not in HATCHES]
    return rows, order, sorted(ns), sorted(threads)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("csv", nargs="*", default=["output/collatz.csv"])
    parser.add_argument("-o", "--output", default="output/collatz.png")
    args = parser.parse_args()
    rows, variants, ns, thread_counts = load(args.csv)

    fig, axes = plt.subplots(len(thread_counts), 1, figsize=(11, 4.2 * len(thread_counts)), squeeze=False)
    width = 0.8 / len(variants)
    # Log axis floor: a third of the fastest bar's total, so parts far below every total (e.g. the VM
    # store's microsecond setup) do not draw misleadingly tall slivers down to the axis.
    smallest = min((sum(statistics.median(d[p]) for p, _, _ in PARTS) for d in rows.values()), default=3e-3) / 3
    for ax, threads in zip(axes[:, 0], thread_counts):
        for g, n in enumerate(ns):
            for v, variant in enumerate(variants):
                data = rows.get((threads, n, variant))
                if not data:
                    continue
                x = g + (v - (len(variants) - 1) / 2) * width
                bottom = 0.0
                for part, _, colour in PARTS:
                    value = statistics.median(data[part])
                    if value <= 0:
                        continue
                    ax.bar(x, value, width * 0.95, bottom=bottom if bottom > 0 else smallest / 2, color=colour,
                           hatch=HATCHES.get(variant, ""), edgecolor="black", linewidth=0.4)
                    bottom = (bottom if bottom > 0 else smallest / 2) + value
        ax.set_yscale("log")
        ax.set_ylim(bottom=smallest / 2)
        ax.set_xticks(range(len(ns)))
        ax.set_xticklabels([f"$10^{{{len(str(n)) - 1}}}$" if str(n).strip("0") == "1" else str(n) for n in ns])
        ax.set_xlabel("n")
        ax.set_ylabel("time [s]")
        ax.set_title(f"Collatz orbit lengths, {threads} thread{'s' if threads > 1 else ''}"
                     + (" (vectors under std::shared_mutex)" if threads > 1 else ""))
        ax.grid(axis="y", which="both", alpha=0.3)
    # Legend: colours for the parts, hatches for the variants.
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for _, _, c in PARTS]
    labels = [label for _, label, _ in PARTS]
    handles += [plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black", hatch=HATCHES.get(v, ""))
                for v in variants]
    labels += [LABELS.get(v, v) for v in variants]
    fig.legend(handles, labels, ncol=4, fontsize=9, loc="lower center")
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
