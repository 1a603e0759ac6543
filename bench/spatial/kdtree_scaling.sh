#!/bin/bash
# 2-thread / 1-thread scaling of bench/spatial/kdtree (our tree on the VM store), for one binary or several
# side by side (A/B). Each round runs every binary once (1 and 2 threads, every dim and order asked),
# the order of binaries reversed every other round (this host's speed drifts by tens of percent over
# minutes, so variants must interleave). Every run takes the shared CPU lock when flock is available.
# Prints per binary, dim and order: median steps/s at 1 and 2 threads (min-max), the ratio of the
# medians, the median and range of the per-round ratios (pairs), and median bytes per point.
#   bench/spatial/kdtree_scaling.sh ROUNDS [NAME=]BIN [[NAME=]BIN ...]
#   e.g. ORDERS=front DIMS=2,3 bench/spatial/kdtree_scaling.sh 12 old=/tmp/old/bench/kdtree new=build/release/bench/kdtree
# ORDERS (default front), DIMS (default 2,3), SIZE (default 1e6).
set -eu
rounds=$1; shift
names=(); bins=()
for a in "$@"; do
  if [[ $a == *=* ]]; then names+=("${a%%=*}"); bins+=("${a#*=}"); else names+=("$a"); bins+=("$a"); fi
done
lock=(); command -v flock >/dev/null && lock=(flock /tmp/nodegen-cpu.lock)
out=$(mktemp); trap 'rm -f "$out"' EXIT
for r in $(seq 1 "$rounds"); do
  idx=("${!bins[@]}")
  if (( r % 2 == 0 )); then idx=($(printf '%s\n' "${idx[@]}" | tac)); fi
  for i in "${idx[@]}"; do
    "${lock[@]}" "${bins[$i]}" --sizes "${SIZE:-1e6}" --orders "${ORDERS:-front}" --dims "${DIMS:-2,3}" \
        --variants "vm t" --repeats 1 2>/dev/null | grep '^| [23]D' | sed "s/^/round=$r bin=$i /" | tee -a "$out"
  done
done
/usr/bin/python3 - "$out" "${names[@]}" <<'PY'
import collections, statistics as st, sys
rate, bpp = collections.defaultdict(dict), collections.defaultdict(list)
for line in open(sys.argv[1]):
    pre, rest = line.split(" |", 1)
    kv = dict(x.split("=") for x in pre.split())
    c = [x.strip() for x in rest.strip().strip("|").split("|")]
    key = (int(kv["bin"]), c[0], c[2])  # binary, dim, order
    rate[key][(int(kv["round"]), int(c[4]))] = float(c[5])
    bpp[key + (int(c[4]),)].append(float(c[9]))
for key in sorted(rate, key=lambda k: (k[1], k[2], k[0])):
    r = rate[key]
    one = [v for (_, t), v in r.items() if t == 1]
    two = [v for (_, t), v in r.items() if t == 2]
    pairs = [r[(rd, 2)] / r[(rd, 1)] for (rd, t) in r if t == 1 and (rd, 2) in r]
    print(f"{sys.argv[2 + key[0]]} {key[1]} {key[2]}: 1 thread {st.median(one):.3g} ({min(one):.3g}-{max(one):.3g}), "
          f"2 threads {st.median(two):.3g} ({min(two):.3g}-{max(two):.3g}) steps/s (medians of {len(one)}): "
          f"{st.median(two) / st.median(one):.2f}x; pairs median {st.median(pairs):.2f}x "
          f"({min(pairs):.2f}-{max(pairs):.2f}); B/point {st.median(bpp[key + (1,)]):.1f} / {st.median(bpp[key + (2,)]):.1f}")
PY
