#!/bin/bash
# Fills every domain file of a folder (made by bench/meshes/make_test_soups.py) on 2 threads and tabulates
# `nodegen stats`: nn/h min and holes p99.9 against the targets 0.92 and 0.93, with what the repair did.
#   bench/meshes/quality.sh DIR [NODEGEN]
set -euo pipefail
dir=$1
nodegen=${2:-build/release/nodegen}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "| model | nodes | nn/h min | holes p99.9 | repairs |"
echo "|---|---|---|---|---|"
for domain in "$dir"/*.json; do
  name=$(basename "$domain" .json)
  if ! "$nodegen" run "$domain" -o "$out/$name.h5" --threads 2 --quiet --report "$out/$name.report.json" 2> "$out/err"; then
    echo "| $name | refused: $(head -c 300 "$out/err") | | | |"
    continue
  fi
  stats=$("$nodegen" stats "$out/$name.h5" --json)
  /usr/bin/python3 - "$name" "$out/$name.report.json" "$stats" <<'PY'
import json, sys
name, report, stats = sys.argv[1], json.load(open(sys.argv[2])), json.loads(sys.argv[3])
nn = stats["nn_over_h"]["min"]
holes = stats["holes"]["p999"]
ok = "" if nn >= 0.92 and holes <= 0.93 else " **miss**"
repairs = "; ".join(r.split(": ", 1)[1] for r in report["repairs"]) or "none (used as read)"
print(f"| {name} | {report['nodes']} | {nn:.4f} | {holes:.4f}{ok} | {repairs} |")
PY
done
