"""PNG plots of a backend comparison: medians with min-max bars, one panel per domain.

Called by bench/end-to-end/compare; also on its own to redraw from a CSV:  /usr/bin/python3 bench/end-to-end/compare_plots.py runs.csv OUTDIR
(matplotlib from Debian's python3-matplotlib, hence /usr/bin/python3).
"""
import csv
import math
import os
import statistics
import sys

import matplotlib

matplotlib.use("Agg")  # no display: CI and pvbatch-free machines
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_table import cells  # noqa: E402


def metric(row, name):
    if name == "mnodes_per_second":
        return float(row["nodes_per_second"]) * 1e-6
    if name == "rss_mib":
        return float(row["peak_rss_bytes"]) / 2**20
    return float(row[name])


def panels(domains):
    columns = min(3, len(domains))
    rows = math.ceil(len(domains) / columns)
    fig, axes = plt.subplots(rows, columns, figsize=(5.2 * columns, 3.9 * rows), squeeze=False)
    for extra in axes.flat[len(domains):]:
        extra.set_visible(False)
    return fig, list(axes.flat)


def median_and_bars(values):
    med = statistics.median(values)
    return med, med - min(values), max(values) - med


def grouped_bars(rows, variants, name, ylabel, title, path):
    """x: thread counts; one bar per variant: median, with a min-max bar."""
    ok = [r for r in rows if r["status"] == "ok"]
    grouped = cells(ok, variants)
    domains = list(dict.fromkeys(d for d, _, _ in grouped))
    threads = sorted(set(t for _, t, _ in grouped))
    fig, axes = panels(domains)
    width = 0.8 / len(variants)
    for ax, domain in zip(axes, domains):
        for i, variant in enumerate(variants):
            xs, meds, lows, highs = [], [], [], []
            for j, t in enumerate(threads):
                members = grouped.get((domain, t, variant))
                if members:
                    med, low, high = median_and_bars([metric(r, name) for r in members])
                    xs.append(j - 0.4 + width * (i + 0.5))
                    meds.append(med), lows.append(low), highs.append(high)
            ax.bar(xs, meds, width, yerr=[lows, highs], capsize=2, label=variant, color="C%d" % i)
        ax.set_xticks(range(len(threads)), [str(t) for t in threads])
        ax.set_xlabel("threads")
        ax.set_ylabel(ylabel)
        ax.set_title(domain)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def speedup(rows, variants, path):
    """Median nodes/s at T threads over the median at 1 thread, per variant; bars from the min and max runs."""
    ok = [r for r in rows if r["status"] == "ok"]
    grouped = cells(ok, variants)
    domains = list(dict.fromkeys(d for d, _, _ in grouped))
    threads = sorted(set(t for _, t, _ in grouped))
    if 1 not in threads or len(threads) < 2:
        return None
    cores = len(os.sched_getaffinity(0))
    fig, axes = panels(domains)
    for ax, domain in zip(axes, domains):
        for i, variant in enumerate(variants):
            base = grouped.get((domain, 1, variant))
            if not base:
                continue
            base_median = statistics.median(metric(r, "mnodes_per_second") for r in base)
            xs, meds, lows, highs = [], [], [], []
            for t in threads:
                members = grouped.get((domain, t, variant))
                if members:
                    med, low, high = median_and_bars([metric(r, "mnodes_per_second") / base_median for r in members])
                    xs.append(t), meds.append(med), lows.append(low), highs.append(high)
            ax.errorbar(xs, meds, yerr=[lows, highs], marker="o", capsize=3, label=variant, color="C%d" % i)
        ideal = [min(t, cores) for t in threads]
        ax.plot(threads, ideal, "k--", linewidth=0.8, label="ideal (%d cores)" % cores)
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads, [str(t) for t in threads])
        ax.set_xlabel("threads")
        ax.set_ylabel("speed-up vs 1 thread")
        ax.set_title(domain)
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="small")
    fig.suptitle("Speed-up versus threads (median, min-max)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def plot_all(rows, variants, out_dir):
    made = [
        grouped_bars(rows, variants, "mnodes_per_second", "million nodes / s",
                     "Fill throughput per backend and thread count (median, min-max)",
                     os.path.join(out_dir, "nodes_per_second.png")),
        speedup(rows, variants, os.path.join(out_dir, "speedup.png")),
        grouped_bars(rows, variants, "bytes_per_node", "peak RSS bytes / node",
                     "Memory per node (peak RSS / nodes; median, min-max)",
                     os.path.join(out_dir, "memory_per_node.png")),
        grouped_bars(rows, variants, "faults_per_node", "minor page faults / node",
                     "Minor page faults per node (median, min-max)",
                     os.path.join(out_dir, "page_faults.png")),
    ]
    return [p for p in made if p]


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: /usr/bin/python3 bench/end-to-end/compare_plots.py runs.csv OUTDIR")
    with open(argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    os.makedirs(argv[2], exist_ok=True)
    for path in plot_all(rows, variants, argv[2]):
        print(path)


if __name__ == "__main__":
    main(sys.argv)
