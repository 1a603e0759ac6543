#!/bin/bash
# Two fill binaries side by side at one thread count: ROUNDS rounds, each running A and B once (the order
# flipped every round, so the host's drift hits both alike), every run under the shared CPU lock. Prints
# the median (min-max) nodes per CPU second of each and the median (min-max) of the per-round ratios B/A,
# the figure to quote: this host's speed drifts by tens of percent over minutes.
#   bench/fill/fill_ab.sh ROUNDS "BENCH_FILL_ARGS" A B
#   e.g. bench/fill/fill_ab.sh 7 "--dim 3 --nodes 1e6 --threads 1" BASE/bench/fill build/release/bench/fill
# CPU=N runs every run on CPU N alone (taskset): on a VM whose vCPUs each flip between two speeds for
# seconds at a time, and not at the same times (a 1-thread 2D fill at ~2.1e6 or ~1.3e6 nodes/s), a
# 1-thread run left to the scheduler lands on either, which doubles the spread of the ratios.
set -eu
rounds=$1 args=$2 a_bin=$3 b_bin=$4
lock=(); command -v flock >/dev/null && lock=(flock /tmp/nodegen-cpu.lock)
[[ -n "${CPU:-}" ]] && lock+=(taskset -c "$CPU")
run() {
  # shellcheck disable=SC2086  # the arguments are words on purpose
  "${lock[@]}" "$1" $args --no-quality 2>/dev/null | tail -1 | sed -n 's/.* nodes_per_cpu_s=\([0-9.e+]*\).*/\1/p'
}
a_rates=() b_rates=() ratios=()
for r in $(seq 1 "$rounds"); do
  if (( r % 2 )); then a=$(run "$a_bin"); b=$(run "$b_bin"); else b=$(run "$b_bin"); a=$(run "$a_bin"); fi
  [[ -n "$a" && -n "$b" ]] || { echo "fill_ab.sh: a run printed no rate" >&2; exit 1; }
  echo "round=$r a=$a b=$b"
  a_rates+=("$a") b_rates+=("$b") ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.4g (%.4g-%.4g)", v[int((NR + 1) / 2)], v[1], v[NR] }'; }
echo "A $a_bin: $(median "${a_rates[@]}") nodes per CPU second"
echo "B $b_bin: $(median "${b_rates[@]}") nodes per CPU second"
echo "B/A per round: $(median "${ratios[@]}")  [$args, $rounds rounds]"
# How far the median ratio can be trusted: a 95 % interval of it from 4000 resamples of the rounds (on
# this VM a 2 % difference needs about 60 rounds to leave 1 outside it).
printf '%s\n' "${ratios[@]}" | /usr/bin/python3 -c '
import random, statistics as st, sys
r = [float(x) for x in sys.stdin]
random.seed(1)
m = sorted(st.median(random.choices(r, k=len(r))) for _ in range(4000))
print(f"B/A median, 95 % interval of it (bootstrap): {m[100]:.4g}-{m[3899]:.4g}")'
