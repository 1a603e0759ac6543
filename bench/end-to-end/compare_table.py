"""Median tables of a backend comparison (rows as written by compare_runs): one Markdown table per run set."""
import statistics


def cells(rows, variants):
    """{(domain, threads, variant): [ok rows]} in schedule order of domains, then threads, then variants."""
    domains = list(dict.fromkeys(r["domain"] for r in rows))
    threads = sorted(set(int(r["threads"]) for r in rows))
    grouped = {}
    for domain in domains:
        for t in threads:
            for variant in variants:
                members = [r for r in rows if r["domain"] == domain and int(r["threads"]) == t
                           and r["variant"] == variant]
                if members:
                    grouped[(domain, t, variant)] = members
    return grouped


def spread(values, scale=1.0, digits=0):
    """'median [min-max]' of values, scaled."""
    if not values:
        return "-"
    fmt = "%%.%df" % digits
    med, lo, hi = (fmt % (v * scale) for v in (statistics.median(values), min(values), max(values)))
    return "%s [%s-%s]" % (med, lo, hi)


def median_of(rows, key, digits=3):
    if key == "peak_rss_mib":
        values = [float(r["peak_rss_bytes"]) / 2**20 for r in rows]
    else:
        values = [float(r[key]) for r in rows if r[key] != ""]
    return ("%%.%df" % digits) % statistics.median(values) if values else "-"


def summary_markdown(rows, variants):
    lines = ["| domain | threads | variant | ok | nodes | run s median [min-max] | fill Mnodes/s median [min-max] | peak RSS MiB "
             "| bytes/node | minor faults/node | nn/h min | packing |",
             "|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for (domain, threads, variant), members in cells(rows, variants).items():
        ok = [r for r in members if r["status"] == "ok"]
        nodes = sorted(set(int(r["nodes"]) for r in ok))
        node_text = "-" if not nodes else str(nodes[0]) if len(nodes) == 1 else "%d-%d" % (nodes[0], nodes[-1])
        lines.append("| %s | %d | %s | %d/%d | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            domain, threads, variant, len(ok), len(members), node_text,
            spread([float(r["seconds"]) for r in ok], digits=3),
            spread([float(r["nodes_per_second"]) for r in ok], scale=1e-6, digits=3),
            median_of(ok, "peak_rss_mib", 1),
            median_of(ok, "bytes_per_node", 1), median_of(ok, "faults_per_node", 4),
            median_of(ok, "nn_over_h_min", 3), median_of(ok, "packing_density", 3)))
    lines.append("")
    lines += determinism_notes(rows)
    return "\n".join(lines) + "\n"


def determinism_notes(rows):
    """Single-threaded fills with one seed should place the same nodes whatever the storage backend."""
    notes = []
    for domain in dict.fromkeys(r["domain"] for r in rows):
        counts = {int(r["nodes"]) for r in rows
                  if r["domain"] == domain and int(r["threads"]) == 1 and r["status"] == "ok"}
        if len(counts) > 1:
            notes.append("note: %s at 1 thread gave different node counts across backends/reps: %s"
                         % (domain, sorted(counts)))
    return notes
