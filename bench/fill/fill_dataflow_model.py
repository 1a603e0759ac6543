#!/usr/bin/python3
"""What the fill would give on P threads if tiles waited for their neighbours instead of for barriers:
a model of two dependency-driven schedules against today's, from one run's phase log
(bench/fill --phase-log FILE.csv, whose item rows name their tile's generation, level and cell).

The phases' order (generation, level, colour) defines the nodes; any schedule in which an item runs
after every earlier item that can see its work, and before every later one, places the same nodes.
Tile A's nodes write within r_A of its cell and read within 2 r_B of tile B's cell (r <= edge /
kTileSpacings, tile_grid.hpp), so two tiles touch when their cells are closer than
max(r_A + 2 r_B, 2 r_A + r_B); an item then waits for the latest earlier item of every tile it touches
(its own included), and so, through those, for every earlier item that touches it.

Schedules, each list-scheduled on P threads (a free thread takes the ready item of the earliest phase):
  phases      today's: each phase a round, then the barrier and the serial completion step
              (fill_scaling_model.py's reading);
  generation  the phases of one generation as one dependency graph, then one barrier and the
              generation's completion steps, still serial;
  cone        the same, each item also held back until the light cone (LightCone below) shows that
              no earlier work can still reach it: a rule a fill can check; cone:K checks the tiles
              up to K hops away and, beyond them, only the least unfinished generation of all;
  space       the same, each item also held back by the rule a fill can check before every tile is
              made (SpaceCone below): no hops through tiles, distances in space;
  dataflow    every item as soon as the items it waits for are done, no barrier at all; the completion
              steps a chain beside the items (each after its own phase's items and the previous step),
              ending before the fill does: the bound a dependency-driven fill could reach.
Taking a tile item from the ready list and releasing the items that wait for it costs --dispatch-us
(1 us) on more than one thread, beside what the log measured; with --lock-us L, the dependency-driven
schedules instead hold one lock L us an item for their hand-over and dispatch, one item at a time, as
the space-rule fill (fill/internal/space_rule_fill.hpp) does. Each phase's hand-over is shared among
its tile items (the thread that expands a tile hands it over);
the copies into the store are free items of their round.

  fill_dataflow_model.py LOG.csv [--threads 1,16,64] [--barrier-us 5] [--dispatch-us 1] [--lock-us L] [--tile-spacings K]
                         [--schedules phases,generation,cone:2,cone,space,dataflow]
prints per schedule and P the modelled time and speed-up over the phases' schedule at P = 1.
"""
import argparse
import bisect
import csv
import heapq
import math
from collections import defaultdict


def read_log(path):
    items, completion, handover, generation = [], defaultdict(float), defaultdict(float), {}
    with open(path) as f:
        for row in csv.DictReader(f):
            p = int(row["phase"])
            if row["kind"] == "item":
                tile = None
                if row.get("level"):
                    lo = tuple(float(row[k]) for k in ("x0", "y0", "z0"))
                    hi = tuple(float(row[k]) for k in ("x1", "y1", "z1"))
                    tile = (int(row["level"]), lo, hi)
                    generation[p] = int(row["generation"])
                items.append({"phase": p, "seconds": float(row["seconds"]), "tile": tile,
                              "generation": int(row["generation"]) if tile else None})
            elif row["kind"] == "handover":
                handover[p] += float(row["seconds"])
            else:
                completion[p] += float(row["seconds"])
    if not generation:
        raise SystemExit(f"{path}: no item names its tile (a log from bench/fill --phase-log of this build)")
    return items, completion, handover, generation


def box_gap(a, b):
    return math.sqrt(sum(max(0.0, a[1][k] - b[2][k], b[1][k] - a[2][k]) ** 2 for k in range(3)))


def touching(tiles, spacings, within=lambda ra, rb: max(ra + 2 * rb, 2 * ra + rb), far=3.0):
    """For each tile t, the tiles u (t included) whose cells are closer than within(r_t, r_u) to t's,
    `far` r_max at the most."""
    reach = {t: (t[2][0] - t[1][0]) / spacings for t in tiles}
    cell = min(t[2][0] - t[1][0] for t in tiles)
    grid = defaultdict(list)
    span = lambda lo, hi: range(math.floor(lo / cell), math.floor(hi / cell) + 1)
    flat = tiles[0][1][2] == tiles[0][2][2]
    for t in tiles:
        for i in span(t[1][0], t[2][0]):
            for j in span(t[1][1], t[2][1]):
                for k in ([0] if flat else span(t[1][2], t[2][2])):
                    grid[(i, j, k)].append(t)
    far = far * max(reach.values())
    out = {}
    for t in tiles:
        near = set()
        lo, hi = [x - far for x in t[1]], [x + far for x in t[2]]
        for i in span(lo[0], hi[0]):
            for j in span(lo[1], hi[1]):
                for k in ([0] if flat else span(lo[2], hi[2])):
                    for u in grid.get((i, j, k), ()):
                        ra, rb = reach[t], reach[u]
                        if box_gap(t, u) < within(ra, rb):
                            near.add(u)
        out[t] = near
    return out


def dependencies(items, spacings):
    """Each tile item's predecessors: the latest earlier item of every tile it touches."""
    by_tile = defaultdict(list)  # tile -> its items' indices, in phase order
    for n, it in enumerate(items):
        if it["tile"]:
            by_tile[it["tile"]].append(n)
    near = touching(list(by_tile), spacings)
    phases_of = {t: [items[n]["phase"] for n in ns] for t, ns in by_tile.items()}
    preds = defaultdict(set)
    for n, it in enumerate(items):
        t = it["tile"]
        if not t:
            continue
        for u in near[t]:
            k = bisect.bisect_left(phases_of[u], it["phase"])
            if k:
                preds[n].add(by_tile[u][k - 1])
    return preds, near


def list_schedule(durations, preds, priority, p, gate=None, hold=None):
    """When each item (the keys of `durations`) ends on p threads, each ready once its predecessors
    (among these items) are done, a free thread taking the ready item of least priority. `gate`, when
    given, may hold an item back further (LightCone). `hold`, when given, is what each item then holds
    one lock for, first come first served, before it counts as done and its thread is free."""
    succs, waiting = defaultdict(list), {}
    for n in durations:
        ps = [q for q in preds.get(n, ()) if q in durations]
        waiting[n] = len(ps)
        for q in ps:
            succs[q].append(n)
    ready = []
    admit = gate.admit if gate else lambda n, push: push(n)
    push = lambda n: heapq.heappush(ready, (priority[n], n))
    for n in durations:
        if waiting[n] == 0:
            admit(n, push)
    running, now, free, ends, lock_free = [], 0.0, p, {}, 0.0
    while ready or running:
        while free and ready:
            _, n = heapq.heappop(ready)
            heapq.heappush(running, (now + durations[n], 0, n))
            free -= 1
        if not running:
            raise SystemExit("fill_dataflow_model.py: the light cone holds back every item left (a bug)")
        now, locked, n = heapq.heappop(running)
        if hold and not locked and hold.get(n, 0.0) > 0.0:  # its work is done: now the lock
            lock_free = max(now, lock_free) + hold[n]
            heapq.heappush(running, (lock_free, 1, n))
            continue
        free += 1
        ends[n] = now
        if gate:
            gate.done(n, push)
        for s in succs[n]:
            waiting[s] -= 1
            if waiting[s] == 0:
                admit(s, push)
    return ends


class LightCone:
    """The rule a fill can check without knowing the future: a tile item of generation g may start
    once every tile d >= 2 hops away (hops through touching tiles) has no unfinished item of a
    generation below g - d + 2, since a hand-over moves a node one hop and one generation on, so such
    an item could still make work for a touching tile in an earlier phase. Every logged item counts as
    unfinished from the start (a fill knows an item only once its first node arrives): pessimistic."""

    def __init__(self, items, hops, radius):
        import numpy as np
        self.np = np
        self.index, raw = hops
        # Beyond `radius` hops a tile is taken to be radius + 1 away: a check of the tiles within
        # radius hops and of the least unfinished generation of all (g <= least + radius - 1).
        self.hops = np.where(raw > radius, radius + 1.0, raw)
        self.hops[raw < 2] = np.inf  # touching tiles are the dependencies' business
        self.items = items
        self.queue = defaultdict(list)  # tile -> generations of its unfinished items, in order
        for n, it in enumerate(items):
            if it["tile"]:
                self.queue[self.index[it["tile"]]].append(self.generation(n))
        self.next = defaultdict(int)
        self.least = np.full(len(self.index), np.inf)
        for k, gens in self.queue.items():
            self.least[k] = gens[0]
        self.held = defaultdict(list)  # tile -> items held back by it

    @staticmethod
    def hop_matrix(near):
        """Each tile's index, and the hops between tiles."""
        import numpy as np
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import shortest_path
        tiles = sorted(near)
        index = {t: k for k, t in enumerate(tiles)}
        rows, cols = [], []
        for t, ns in near.items():
            for u in ns:
                if u != t:
                    rows.append(index[t])
                    cols.append(index[u])
        graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(tiles), len(tiles)))
        return index, shortest_path(graph, unweighted=True)

    def generation(self, n):
        return self.items[n]["generation"]

    def admit(self, n, push):
        it = self.items[n]
        if not it["tile"]:
            return push(n)
        reach = self.least + self.hops[self.index[it["tile"]]]
        w = int(self.np.argmin(reach))
        if reach[w] >= self.generation(n) + 2:
            push(n)
        else:
            self.held[w].append(n)

    def done(self, n, push):
        if not self.items[n]["tile"]:
            return
        k = self.index[self.items[n]["tile"]]
        self.next[k] += 1
        gens = self.queue[k]
        self.least[k] = gens[self.next[k]] if self.next[k] < len(gens) else self.np.inf
        for m in self.held.pop(k, []):
            self.admit(m, push)


class SpaceCone:
    """The rule a fill can check before every tile is made, whatever the spacing: a tile item (T, g) may
    start once no item of generation below g - 1 is unfinished anywhere, and no tile S whose cell is
    closer than r_S + 3 r_T to T's has an unfinished item of generation g - 1. An item that could still
    come before (T, g) in the phases' order and touch it is of generation g in a tile U of T's level or
    below (r_U <= r_T), made by a hand-over from such an S: its nodes lie within r_S of S's cell, it
    writes within r_U of them and reads within 2 r_U, T within r_T and 2 r_T of its own cell
    (docs/parallel-fill.md, "Other schedules", has the whole argument). Every logged item counts as
    unfinished from the start (a fill knows an item only once its first node arrives): pessimistic."""

    def __init__(self, items, spacings):
        self.items = items
        tiles = sorted({it["tile"] for it in items if it["tile"]})
        # shadow[t]: the tiles S whose unfinished items of generation g - 1 hold back t's items of g
        self.shadow = touching(tiles, spacings, within=lambda rt, rs: rs + 3 * rt, far=4.0)
        self.unfinished = defaultdict(lambda: defaultdict(int))  # tile -> generation -> items left
        self.left = defaultdict(int)  # generation -> items left
        for it in items:
            if it["tile"]:
                self.unfinished[it["tile"]][it["generation"]] += 1
                self.left[it["generation"]] += 1
        self.least = min(self.left)
        self.held = defaultdict(list)  # a tile, or a generation, -> items held back by it

    def admit(self, n, push):
        it = self.items[n]
        if not it["tile"]:
            return push(n)
        g = it["generation"]
        if self.least < g - 1:
            return self.held[("generation", self.least)].append(n)
        for s in self.shadow[it["tile"]]:
            if self.unfinished[s].get(g - 1):
                return self.held[("tile", s, g - 1)].append(n)
        push(n)

    def done(self, n, push):
        it = self.items[n]
        if not it["tile"]:
            return
        g = it["generation"]
        self.unfinished[it["tile"]][g] -= 1
        self.left[g] -= 1
        woken = []
        if self.unfinished[it["tile"]][g] == 0:
            woken += self.held.pop(("tile", it["tile"], g), [])
        while self.least in self.left and self.left[self.least] == 0:
            del self.left[self.least]
            woken += self.held.pop(("generation", self.least), [])
            self.least = min(self.left, default=math.inf)
        for m in woken:
            self.admit(m, push)


def model(items, completion, handover, generation, preds, hops, radius, p, barrier, dispatch, schedule, spacings,
          lock=0.0):
    tiles_in = defaultdict(int)
    for it in items:
        if it["tile"]:
            tiles_in[it["phase"]] += 1
    durations, hold = {}, None
    dataflow = schedule in ("dataflow", "cone", "space")
    for n, it in enumerate(items):
        share = handover[it["phase"]] / tiles_in[it["phase"]] if it["tile"] else 0.0
        durations[n] = it["seconds"] + share + (dispatch if it["tile"] and schedule != "phases" and p > 1 else 0.0)
    if lock > 0.0 and dataflow:  # the hand-over and the dispatch are what the lock is held for
        durations = {n: it["seconds"] for n, it in enumerate(items)}
        hold = {n: lock for n, it in enumerate(items) if it["tile"]}
    priority = {n: (it["phase"], n) for n, it in enumerate(items)}
    phases = sorted({it["phase"] for it in items} | set(completion))
    cross = barrier if p > 1 else 0.0
    if dataflow:
        gate = (LightCone(items, hops, radius) if schedule == "cone"
                else SpaceCone(items, spacings) if schedule == "space" else None)
        ends = list_schedule(durations, preds, priority, p, gate, hold)
        last = defaultdict(float)  # each phase's last item's end
        for n, t in ends.items():
            last[items[n]["phase"]] = max(last[items[n]["phase"]], t)
        chain = 0.0  # the completion steps: each after its phase's last item and the step before it
        for p_ in phases:
            chain = max(chain, last[p_]) + completion[p_]
        return max(max(ends.values()), chain)
    if schedule == "phases":
        groups = [[p_] for p_ in phases]
    elif schedule == "generation":
        gen_of = {}
        last = 0
        for p_ in phases:  # a round without tiles (the last copies) joins the generation before it
            last = generation.get(p_, last)
            gen_of[p_] = last
        groups = [[p_ for p_ in phases if gen_of[p_] == g] for g in sorted(set(gen_of.values()))]
    total = 0.0
    for group in groups:
        member = set(group)
        sub = {n: d for n, d in durations.items() if items[n]["phase"] in member}
        span = max(list_schedule(sub, preds, priority, p).values(), default=0.0)
        total += span + sum(completion[p_] for p_ in group) + cross
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--barrier-us", type=float, default=5.0, help="one barrier crossing, microseconds")
    ap.add_argument("--threads", default="1,16,64")
    ap.add_argument("--dispatch-us", type=float, default=1.0,
                    help="what taking an item from the ready list and releasing its successors costs, "
                         "microseconds an item, on more than one thread (not in the phases' schedule)")
    ap.add_argument("--lock-us", type=float, default=0.0,
                    help="the dependency-driven schedules as one lock serialises them: each tile item holds "
                         "it this long, microseconds, for its hand-over and dispatch (instead of the logged "
                         "hand-over and --dispatch-us); the space-rule fill's is measured by bench/fill "
                         "--space-rule --lock-log")
    ap.add_argument("--tile-spacings", type=float, default=None,
                    help="kTileSpacings of tile_grid.hpp: 32 in 2D, 8 in 3D (the default by the log's dimension)")
    ap.add_argument("--schedules", default="phases,generation,cone:2,space,dataflow",
                    help="cone:K checks the light cone's tiles up to K hops, and beyond them only the least "
                         "unfinished generation of all")
    a = ap.parse_args()
    items, completion, handover, generation = read_log(a.log)
    flat = all(it["tile"][1][2] == it["tile"][2][2] for it in items if it["tile"])
    spacings = a.tile_spacings or (32.0 if flat else 8.0)
    preds, near = dependencies(items, spacings)
    hops = LightCone.hop_matrix(near) if "cone" in a.schedules else None
    gens = len(set(generation.values()))
    print(f"{len(set(it['phase'] for it in items))} phases, {gens} generations, "
          f"{sum(1 for it in items if it['tile'])} tile items, {sum(len(v) for v in preds.values())} dependencies")
    threads = [int(x) for x in a.threads.split(",")]
    print("| schedule | " + " | ".join(f"{p} threads" for p in threads) + " |")
    print("|---|" + "---|" * len(threads))
    base = None
    for schedule in a.schedules.split(","):
        cells = []
        for p in threads:
            name, _, hops_checked = schedule.partition(":")
            t = model(items, completion, handover, generation, preds, hops, float(hops_checked or math.inf), p,
                      a.barrier_us * 1e-6, a.dispatch_us * 1e-6, name, spacings, a.lock_us * 1e-6)
            base = base or t
            cells.append(f"{t:.4f} s, {base / t:.1f}x")
        print(f"| {schedule} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
