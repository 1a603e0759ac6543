#!/usr/bin/python3
"""How the fill scales to P threads, from one run's phase log (bench/fill --phase-log FILE.csv).

Each phase is a round: its items (its tiles, most waiting nodes first, then the copies of the
previous phase's nodes into the store) are handed out, each thread hands over its own run of the
phase's tiles, then every thread waits at the barrier, and one thread runs the completion step alone.
So a round on P threads takes
  greedy_makespan(items + P hand-over shares, P) + completion + barrier(P)
where greedy_makespan hands the items out in the logged order, each to the thread that frees up
first, and then the round's hand-over in P equal shares, one a thread (the fill cuts the runs by the
nodes waiting in their tiles). (The fill gives each thread a share of the tiles by place and lets a
thread that has finished its share take the others' next items; the model's list scheduling ignores
where items are, which is what the shares exploit.) The planning of the next phase is a round's first
item when thread 0 did it as the round began (the next phase was of the same generation), and part of
the completion step when not; the heap trim, which one thread does during the round, is logged with
the completion step, as if serial; --serial-handover counts the hand-over there too (the most
pessimistic reading).
Items and completion steps are timed in a 1-thread run, so what the model leaves out is what the
hardware takes from several busy CPUs (on the 2-vCPU VMs of bench/RESULTS.md, Fill, two independent 1-thread
fills reach less than 2x, and on the Intel one as much in two processes as in one), and the barrier's own
cost, which is an input.

  fill_scaling_model.py LOG.csv [--barrier-us 5] [--threads 1,2,4,8,16,32,64] [--serial-handover]
prints, per P: the modelled time, speed-up over P = 1, and the share lost to the phases' tails
(threads idle while the last items of a round finish), to the completion steps and to barriers.
"""
import argparse
import csv
import heapq
from collections import defaultdict


def makespan(items, p):
    if p == 1:
        return sum(items)
    free = [0.0] * p  # the time each thread is free again
    heapq.heapify(free)
    for w in items:  # handed out in order, each to the thread that is free first
        heapq.heapreplace(free, free[0] + w)
    return max(free)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--barrier-us", type=float, default=5.0, help="one barrier crossing, microseconds")
    ap.add_argument("--threads", default="1,2,4,8,16,32,64")
    ap.add_argument("--serial-handover", action="store_true", help="count the hand-overs as serial")
    a = ap.parse_args()
    items, completion, handover = defaultdict(list), defaultdict(float), defaultdict(float)
    with open(a.log) as f:
        for row in csv.DictReader(f):
            if row["kind"] == "item":
                items[int(row["phase"])].append(float(row["seconds"]))
            elif row["kind"] == "handover" and not a.serial_handover:
                handover[int(row["phase"])] += float(row["seconds"])
            else:
                completion[int(row["phase"])] += float(row["seconds"])
    phases = sorted(set(items) | set(completion))
    handing = sum(handover.values())
    work = sum(sum(v) for v in items.values()) + handing
    serial = sum(completion.values())
    print(f"{len(phases)} phases, {sum(len(v) for v in items.values())} items, "
          f"work {work:.3f} s (hand-overs {handing:.3f} s), "
          f"serial {serial:.3f} s ({100 * serial / (work + serial):.1f} %)")
    print("| threads | modelled s | speed-up | tails | completion | barriers |")
    print("|---|---|---|---|---|---|")
    base = None
    for p in (int(x) for x in a.threads.split(",")):
        span = sum(makespan(items[k] + [handover[k] / p] * p, p) for k in phases)
        barriers = len(phases) * a.barrier_us * 1e-6 if p > 1 else 0.0
        total = span + serial + barriers
        base = base or total
        tails = span - work / p
        print(f"| {p} | {total:.3f} | {base / total:.2f}x | {100 * tails / total:.1f} % | "
              f"{100 * serial / total:.1f} % | {100 * barriers / total:.1f} % |")


if __name__ == "__main__":
    main()
