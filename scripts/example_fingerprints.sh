#!/usr/bin/env bash
# Prints the nodes_sha256 of every example domain (domains/*.json) as the JSON object
# tests/data/example_fingerprints.json records; the CLI suite's DomainDeterminism test compares each run
# with it, so the examples' nodes change only on purpose:
#   bash scripts/example_fingerprints.sh > tests/data/example_fingerprints.json
# Domains whose mesh files are absent (the public models: domains/meshes/get_models.sh) keep the
# recorded value if there is one. Needs build/release/nodegen.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
recorded=tests/data/example_fingerprints.json
echo "{"
sep=""
for f in domains/*.json; do
  d=$(basename "$f" .json)
  if build/release/nodegen run "$f" -o "$work/$d.h5" --threads 2 -q --report "$work/$d.json" 2>/dev/null; then
    sha=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['nodes_sha256'])" "$work/$d.json")
  elif [[ -f $recorded ]]; then
    sha=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ''))" "$recorded" "$d")
    [[ -n $sha ]] || { echo "example_fingerprints.sh: $f did not run and has no recorded value" >&2; exit 1; }
  else
    echo "example_fingerprints.sh: $f did not run" >&2
    exit 1
  fi
  printf '%s  "%s": "%s"' "$sep" "$d" "$sha"
  sep=$',\n'
done
printf '\n}\n'
