#!/bin/bash
# Peak RSS per node of `nodegen run` (the path users take).
#
#   bench/end-to-end/cli_peak_memory.sh NODEGEN [REPS] [DOMAIN.json ...]
#
# Runs every domain (default: bench/domains/cube_1e6.json and square_1e6.json) with 1 and 2 threads,
# REPS times (default 3), and prints one line per run: peak RSS (GNU time's %M, i.e. ru_maxrss of the
# whole process: shared libraries, domain, boundary placement, fill, output) and bytes per node
# (the node count from --report). Wrap it in the CPU lock on the shared machine:
#   flock /tmp/nodegen-cpu.lock bench/end-to-end/cli_peak_memory.sh build/release/nodegen 3
#
# Sweep over the node count (the per-node figure moves with N: the k-d tree's leaves fill unevenly):
# with NODES="5e5 1e6 2e6" each domain given as DOMAIN.json@NREF (a domain with a constant "spacing"
# that gives about NREF nodes) is run at the spacings h * (NREF / N)^(1/dim) instead of its own, e.g.
#   NODES="5e5 7e5 1e6 1.4e6 2e6" THREADS="1 2" bench/end-to-end/cli_peak_memory.sh build/release/nodegen 1 \
#     bench/domains/cube_1e6.json@991000 bench/domains/square_1e6.json@980000
# THREADS (default "1 2") picks the thread counts.
set -euo pipefail
bin=$1
reps=${2:-3}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
domains=("$@")
[ ${#domains[@]} -gt 0 ] || domains=("$here/../domains/cube_1e6.json" "$here/../domains/square_1e6.json")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Expands DOMAIN.json@NREF into one scaled copy per entry of NODES (printed one path a line).
scaled_domains() {
  /usr/bin/python3 - "$1" "$NODES" "$work" <<'PY'
import json, os, sys
spec, nodes, work = sys.argv[1:]
path, nref = spec.rsplit("@", 1)
base = json.load(open(path))
for n in nodes.split():
    d = dict(base)
    d["spacing"] = base["spacing"] * (float(nref) / float(n)) ** (1.0 / base["dim"])
    d["comment"] = f"{os.path.basename(path)} scaled to about {float(n):.3g} nodes"
    out = os.path.join(work, f"{os.path.splitext(os.path.basename(path))[0]}@{float(n):.3g}.json")
    json.dump(d, open(out, "w"))
    print(out)
PY
}
if [ -n "${NODES:-}" ]; then
  expanded=()
  for spec in "${domains[@]}"; do
    while IFS= read -r f; do expanded+=("$f"); done < <(scaled_domains "$spec")
  done
  domains=("${expanded[@]}")
fi

for rep in $(seq 1 "$reps"); do
  for domain in "${domains[@]}"; do
    for threads in ${THREADS:-1 2}; do
      /usr/bin/time -f "%M" -o "$work/kb" "$bin" run "$domain" -o "$work/out.h5" --threads "$threads" --quiet \
        --report "$work/report.json"
      /usr/bin/python3 - "$domain" "$threads" "$rep" "$work/kb" "$work/report.json" <<'PY'
import json, os, sys
domain, threads, rep, kb_file, report = sys.argv[1:]
kb = int(open(kb_file).read().split()[-1])
nodes = json.load(open(report))["nodes"]
print(f"{os.path.basename(domain)} threads={threads} rep={rep} nodes={nodes} peak_kib={kb} "
      f"bytes_per_node={kb * 1024 / nodes:.1f}", flush=True)
PY
    done
  done
done
