#!/bin/bash
# 2-thread / 1-thread scaling of the fill, for one binary or two side by side (A/B). Each round runs
# every binary at 1 and 2 threads, the order of binaries and of thread counts alternating from round to
# round (this host's speed drifts by tens of percent over minutes, so variants must interleave). Prints
# one line per run, then per binary: median nodes/s at 1 and 2 threads, their ratio, and the median and
# range of the per-round ratios (pairs). Every run takes the shared CPU lock when flock is available.
#   bench/fill/fill_scaling.sh ROUNDS DIM NODES BIN [BIN2]      e.g. bench/fill/fill_scaling.sh 9 2 1e6 build/release/bench/fill
# CEILING=1 adds a third run to every round: two independent single-thread fills at once in one
# process (BIN --independent), the most two threads can give on this machine at that moment
# (shared caches, page faults, the host's scheduling of the two vCPUs); the summary then also gives
# that ceiling's ratio to the 1-thread rate and the fill's share of it (its ratio / the ceiling's).
# It also adds a fourth: the same two fills as two processes (BIN --threads 1, twice at once), which
# share the machine but not an address space, rated like the third (all nodes over the later one's
# seconds) and by the sum of the two fills' own rates (what the machine gives two fills that need not
# wait for each other).
# Every summary also gives, per mode, how busy its threads were (CPU seconds per wall second per
# thread) and its nodes per CPU second relative to the 1-thread run's: a 2-thread fill whose threads
# are busy but slower per CPU second than one thread loses to shared hardware, not to waiting.
# Every 2-thread run is bracketed by two measurements of how long a cache line takes to travel between
# CPUs 0 and 1 (bench/storage/core_latency, taken from the first binary's folder or CORE_LATENCY=PATH):
# this host moves its two vCPUs between nearby cores (~26 ns) and distant ones (~165 ns) for minutes at a
# time, and a 2-thread fill is slower on distant ones while 1-thread runs are not. The summary then also
# gives the ratios of the rounds whose 2-thread run saw nearby cores before and after (below 60 ns).
# DOMAIN=FILE.json fills that domain file instead of the unit box (boundary placement included; DIM is
# then ignored, and NODES = - keeps the file's own spacing, e.g. a graded one):
#   DOMAIN=bench/domains/cube_graded.json bench/fill/fill_scaling.sh 6 3 - build/release/bench/fill
set -eu
rounds=$1 dim=$2 nodes=$3; shift 3
bins=("$@")
lock=(); command -v flock >/dev/null && lock=(flock /tmp/nodegen-cpu.lock)
out=$(mktemp); trap 'rm -f "$out" "$out.a" "$out.b"' EXIT
latency=${CORE_LATENCY:-$(dirname "$1")/core_latency}
[[ -x "$latency" ]] || latency=""
core_ns() { [[ -n "$latency" ]] && "${lock[@]}" "$latency" | sed -n 's/.*core_latency_ns=\([0-9]*\).*/\1/p' || echo 0; }
modes="1 2"; [[ "${CEILING:-0}" == 1 ]] && modes="1 2 c p"
what=(--dim "$dim" --nodes "$nodes")
if [[ -n "${DOMAIN:-}" ]]; then
  [[ "${CEILING:-0}" == 1 ]] && { echo "fill_scaling.sh: CEILING runs on the unit box only, not with DOMAIN" >&2; exit 2; }
  what=(--domain "$DOMAIN"); [[ "$nodes" != - ]] && what+=(--nodes "$nodes")
fi
for r in $(seq 1 "$rounds"); do
  order=("${!bins[@]}"); these=$modes
  if (( r % 2 == 0 )); then order=($(printf '%s\n' "${order[@]}" | tac)); these=$(tr ' ' '\n' <<<"$modes" | tac | tr '\n' ' '); fi
  for b in "${order[@]}"; do
    for m in $these; do
      args=(--threads "$m"); [[ $m == c ]] && args=(--threads 2 --independent)
      before=0; [[ $m != 1 ]] && before=$(core_ns)
      sum=
      if [[ $m == p ]]; then  # two processes at once; the lock is taken once, around both
        line=$("${lock[@]}" bash -c '"$@" --threads 1 --no-quality > "$0.a" & "$@" --threads 1 --no-quality > "$0.b"; wait' \
               "$out" "${bins[$b]}" "${what[@]}" && tail -qn1 "$out.a" "$out.b")
        read -r rate cpu_rate sum < <(/usr/bin/python3 -c '
import sys
runs = [dict(kv.split("=", 1) for kv in l.split() if "=" in kv) for l in sys.stdin]
n = [float(r["nodes"]) for r in runs]; s = [float(r["seconds"]) for r in runs]; c = [float(r["cpu_s"]) for r in runs]
print(f"{sum(n) / max(s):.4g} {sum(n) / sum(c):.4g} {sum(a / b for a, b in zip(n, s)):.4g}")' <<<"$line")
        sum=" sum_per_s=$sum"
      else
        line=$("${lock[@]}" "${bins[$b]}" "${what[@]}" "${args[@]}" --no-quality | tail -1)
        rate=$(sed -n 's/.* nodes_per_s=\([0-9.e+]*\).*/\1/p' <<<"$line")
        cpu_rate=$(sed -n 's/.* nodes_per_cpu_s=\([0-9.e+]*\).*/\1/p' <<<"$line")
      fi
      after=0; [[ $m != 1 ]] && after=$(core_ns)
      c2c=$(( before > after ? before : after ))
      echo "round=$r bin=$b threads=$m nodes_per_s=$rate nodes_per_cpu_s=$cpu_rate core_ns=$c2c$sum" | tee -a "$out"
    done
  done
done
/usr/bin/python3 - "$out" "${bins[@]}" <<'PY'
import statistics as st, sys
runs = [dict(kv.split("=") for kv in l.split()) for l in open(sys.argv[1])]
for b, name in enumerate(sys.argv[2:]):
    rate = {(int(x["round"]), x["threads"]): float(x["nodes_per_s"]) for x in runs if int(x["bin"]) == b}
    # busy: CPU seconds per wall second per thread (1 = every thread ran all the time; lower = a thread
    # waited off the CPU, or another process had its core). per_cpu: nodes per CPU second.
    per_cpu = {(int(x["round"]), x["threads"]): float(x["nodes_per_cpu_s"]) for x in runs if int(x["bin"]) == b}
    threads_of = {"1": 1, "2": 2, "c": 2, "p": 2}
    med = {m: st.median(v for (r, t), v in rate.items() if t == m) for m in threads_of if any(t == m for _, t in rate)}
    def pairs(m):
        return [rate[(r, m)] / rate[(r, "1")] for (r, t) in rate if t == "1" and (r, m) in rate]
    p = pairs("2")
    print(f"{name}: 1 thread {med['1']:.3g}, 2 threads {med['2']:.3g} nodes/s (medians over {len(p)} rounds): "
          f"{med['2'] / med['1']:.2f}x; pairs median {st.median(p):.2f}x (range {min(p):.2f}-{max(p):.2f})")
    core = {int(x["round"]): int(x["core_ns"]) for x in runs if int(x["bin"]) == b and x["threads"] == "2"}
    if any(core.values()):
        near = [r for r, ns in core.items() if ns < 60]
        print(f"{name}: cache line between the CPUs, 2-thread runs: median {st.median(core.values())} ns "
              f"(range {min(core.values())}-{max(core.values())}); {len(near)} of {len(core)} rounds on nearby cores")
        for label, rounds in (("nearby", near), ("distant", [r for r in core if r not in near])):
            if not rounds: continue
            one = st.median(rate[(r, "1")] for r in rounds)
            two = st.median(rate[(r, "2")] for r in rounds)
            pr = [rate[(r, "2")] / rate[(r, "1")] for r in rounds]
            print(f"{name}:   {label} cores ({len(rounds)} rounds): {two / one:.2f}x; pairs median {st.median(pr):.2f}x "
                  f"(range {min(pr):.2f}-{max(pr):.2f})")
    if "c" in med:
        c = pairs("c")
        share = [rate[(r, "2")] / rate[(r, "c")] for (r, t) in rate if t == "c" and (r, "2") in rate]
        print(f"{name}: ceiling (2 independent 1-thread fills) {med['c']:.3g} nodes/s: {med['c'] / med['1']:.2f}x; "
              f"pairs median {st.median(c):.2f}x (range {min(c):.2f}-{max(c):.2f}); "
              f"2-thread fill / ceiling: pairs median {st.median(share):.2f} (range {min(share):.2f}-{max(share):.2f})")
    if "p" in med:
        c = pairs("p")
        total = {int(x["round"]): float(x["sum_per_s"]) for x in runs if int(x["bin"]) == b and x["threads"] == "p"}
        s = [total[r] / rate[(r, "1")] for r in total if (r, "1") in rate]
        print(f"{name}: two processes (2 1-thread fills) {med['p']:.3g} nodes/s: {med['p'] / med['1']:.2f}x; "
              f"pairs median {st.median(c):.2f}x (range {min(c):.2f}-{max(c):.2f}); by the sum of their own rates: "
              f"pairs median {st.median(s):.2f}x (range {min(s):.2f}-{max(s):.2f})")
    for m in med:
        busy = [rate[k] / per_cpu[k] / threads_of[m] for k in rate if k[1] == m]
        eff = [per_cpu[k] / per_cpu[(k[0], "1")] for k in rate if k[1] == m and (k[0], "1") in per_cpu]
        print(f"{name}: threads={m}: busy median {st.median(busy):.3f} (range {min(busy):.3f}-{max(busy):.3f}); "
              f"nodes per CPU second / 1-thread's, pairs median {st.median(eff):.3f} (range {min(eff):.3f}-{max(eff):.3f})")
PY
