#!/bin/bash
# Seconds of `nodegen run` (2 threads, wall clock of the whole run: load, repair, boundary, fill, write)
# on mesh domains, the variants alternated round by round; prints the median and range of each.
#   bench/meshes/timing.sh REPS NODEGEN [BASELINE_NODEGEN]
# Variants: the torus and gear examples (with a baseline binary too, for the unchanged-speed check), and
# the torus with three holes cut (bench/meshes/torus_with_holes.py): closed by the repair, and left open
# ("max_hole": 0) so the winding number decides.
set -euo pipefail
reps=$1
new=$2
base=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/torus_with_holes.py" "$root/domains/meshes/torus.stl" "$work/torus_holes.stl"
echo '{"dim":3,"spacing":0.04,"shape":{"type":"mesh","file":"torus_holes.stl"}}' > "$work/torus_holes_closed.json"
echo '{"dim":3,"spacing":0.04,"shape":{"type":"mesh","file":"torus_holes.stl","max_hole":0}}' > "$work/torus_holes_open.json"
variants=("new torus_mesh $root/domains/torus_mesh.json" "new gear_mesh $root/domains/gear_mesh.json"
          "new torus_holes_closed $work/torus_holes_closed.json" "new torus_holes_open $work/torus_holes_open.json")
if [ -n "$base" ]; then
  variants+=("base torus_mesh $root/domains/torus_mesh.json" "base gear_mesh $root/domains/gear_mesh.json")
fi
for ((r = 0; r < reps; ++r)); do
  for v in "${variants[@]}"; do
    read -r which name domain <<< "$v"
    bin=$new
    [ "$which" = base ] && bin=$base
    start=$(date +%s.%N)
    "$bin" run "$domain" -o "$work/out.h5" --threads 2 --quiet
    end=$(date +%s.%N)
    echo "$which $name $(echo "$end - $start" | bc)" >> "$work/times"
  done
done
/usr/bin/python3 - "$work/times" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    which, name, t = line.split()
    runs.setdefault((which, name), []).append(float(t))
for (which, name), ts in runs.items():
    print(f"{which:5} {name:20} median {statistics.median(ts):.3f} s  range {min(ts):.3f}-{max(ts):.3f}  n={len(ts)}")
PY
