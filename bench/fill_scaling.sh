#!/bin/bash
# 2-thread / 1-thread scaling of the fill, for one binary or two side by side (A/B). Each round runs
# every binary at 1 and 2 threads, the order of binaries and of thread counts alternating from round to
# round (this host's speed drifts by tens of percent over minutes, so variants must interleave). Prints
# one line per run, then per binary: median nodes/s at 1 and 2 threads, their ratio, and the median and
# range of the per-round ratios (pairs). Every run takes the team's CPU lock when flock is available.
#   bench/fill_scaling.sh ROUNDS DIM NODES BIN [BIN2]      e.g. bench/fill_scaling.sh 9 2 1e6 build/release/bench/fill
set -eu
rounds=$1 dim=$2 nodes=$3; shift 3
bins=("$@")
lock=(); command -v flock >/dev/null && lock=(flock /tmp/nodegen-cpu.lock)
out=$(mktemp); trap 'rm -f "$out"' EXIT
for r in $(seq 1 "$rounds"); do
  order=("${!bins[@]}"); threads="1 2"
  if (( r % 2 == 0 )); then order=($(printf '%s\n' "${order[@]}" | tac)); threads="2 1"; fi
  for b in "${order[@]}"; do
    for t in $threads; do
      line=$("${lock[@]}" "${bins[$b]}" --dim "$dim" --nodes "$nodes" --threads "$t" --no-quality | tail -1)
      rate=$(sed -n 's/.* nodes_per_s=\([0-9.e+]*\).*/\1/p' <<<"$line")
      echo "round=$r bin=$b threads=$t nodes_per_s=$rate" | tee -a "$out"
    done
  done
done
/usr/bin/python3 - "$out" "${bins[@]}" <<'PY'
import statistics as st, sys
runs = [dict(kv.split("=") for kv in l.split()) for l in open(sys.argv[1])]
for b, name in enumerate(sys.argv[2:]):
    rate = {(int(x["round"]), int(x["threads"])): float(x["nodes_per_s"]) for x in runs if int(x["bin"]) == b}
    one = [v for (r, t), v in rate.items() if t == 1]
    two = [v for (r, t), v in rate.items() if t == 2]
    pairs = [rate[(r, 2)] / rate[(r, 1)] for (r, t) in rate if t == 1 and (r, 2) in rate]
    print(f"{name}: 1 thread {st.median(one):.3g}, 2 threads {st.median(two):.3g} nodes/s (medians of {len(one)}): "
          f"{st.median(two) / st.median(one):.2f}x; pairs median {st.median(pairs):.2f}x "
          f"(range {min(pairs):.2f}-{max(pairs):.2f})")
PY
