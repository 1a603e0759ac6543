#!/usr/bin/env bash
# Checks the CSV of `bench/headline`: every expected row present once, with a positive number (or "yes"
# where the three backends must have written the same nodes). Exits 1 naming what is missing or wrong.
#   scripts/check_headline_csv.sh output/headline/quick/headline.csv
set -euo pipefail
exec /usr/bin/python3 - "${1:?usage: check_headline_csv.sh HEADLINE.csv}" <<'PY'
import csv, sys

expected = []
for dim in ("2", "3"):
    expected += [("fill", dim, "1", "vm", "nodes_per_s"), ("fill", dim, "2", "vm", "nodes_per_s"),
                 ("fill", dim, "2", "vm", "speedup_over_1_thread")]
    expected += [("end_to_end", dim, "2", "vm", m) for m in
                 ("nodes", "peak_bytes_per_node", "packing_density", "holes_p999_over_h", "nn_over_h_min")]
    for backend in ("vm", "vector", "suballoc"):
        expected += [("backend", dim, "2", backend, "fill_nodes_per_s"), ("backend", dim, "2", backend, "peak_bytes_per_node")]
    expected.append(("backend", dim, "2", "all", "same_nodes"))
    for order in ("front", "random"):
        expected += [("kdtree", dim, "1", "nanoflann", "steps_per_s", order), ("kdtree", dim, "1", "vm", "steps_per_s", order),
                     ("kdtree", dim, "2", "vm", "steps_per_s", order)]

rows = list(csv.DictReader(open(sys.argv[1])))
problems = []
for key in expected:
    section, dim, threads, backend, metric = key[:5]
    found = [r for r in rows if (r["section"], r["dim"], r["threads"], r["backend"], r["metric"]) == key[:5]
             and (len(key) == 5 or r["case"].endswith(key[5]))]
    name = "/".join(key)
    if len(found) != 1:
        problems.append(f"{name}: {len(found)} rows")
        continue
    value = found[0]["value"]
    if metric == "same_nodes":
        if value != "yes":
            problems.append(f"{name}: {value}")
    else:
        try:
            ok = float(value) > 0
        except ValueError:
            ok = False
        if not ok:
            problems.append(f"{name}: {value!r} is not a positive number")
if len(rows) != len(expected):
    problems.append(f"{len(rows)} rows, expected {len(expected)}")
if problems:
    print(f"check_headline_csv: {sys.argv[1]}: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"check_headline_csv: {sys.argv[1]}: {len(rows)} rows as expected")
PY
