#!/bin/bash
# Peak RSS per node of `nodegen run` (the path users take), for the issue-5 memory targets.
#
#   bench/cli_peak_memory.sh NODEGEN [REPS] [DOMAIN.json ...]
#
# Runs every domain (default: bench/domains/cube_1e6.json and square_1e6.json) with 1 and 2 threads,
# REPS times (default 3), and prints one line per run: peak RSS (GNU time's %M, i.e. ru_maxrss of the
# whole process: shared libraries, domain, boundary placement, fill, output) and bytes per node
# (the node count from --report). Wrap it in the CPU lock on the shared machine:
#   flock /tmp/nodegen-cpu.lock bench/cli_peak_memory.sh build/release/nodegen 3
set -euo pipefail
bin=$1
reps=${2:-3}
shift $(( $# >= 2 ? 2 : 1 ))
here=$(cd "$(dirname "$0")" && pwd)
domains=("$@")
[ ${#domains[@]} -gt 0 ] || domains=("$here/domains/cube_1e6.json" "$here/domains/square_1e6.json")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for rep in $(seq 1 "$reps"); do
  for domain in "${domains[@]}"; do
    for threads in 1 2; do
      /usr/bin/time -f "%M" -o "$work/kb" "$bin" run "$domain" -o "$work/out.h5" --threads "$threads" --quiet \
        --report "$work/report.json"
      /usr/bin/python3 - "$domain" "$threads" "$rep" "$work/kb" "$work/report.json" <<'PY'
import json, os, sys
domain, threads, rep, kb_file, report = sys.argv[1:]
kb = int(open(kb_file).read().split()[-1])
nodes = json.load(open(report))["nodes"]
print(f"{os.path.basename(domain)} threads={threads} rep={rep} nodes={nodes} peak_kib={kb} "
      f"bytes_per_node={kb * 1024 / nodes:.1f}")
PY
    done
  done
done
