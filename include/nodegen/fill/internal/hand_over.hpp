#pragma once
// HandOver: the nodes a phase's tiles set aside go to the tiles they belong to, and each tile's placed
// nodes are queued for their store slots, as if one thread had handed over every tile in the merge
// order.
//
// Runs: a round's tiles are cut into one run per thread (round_items.hpp), a range of the merge order;
// runs in thread order cover the phase's tiles in the merge order. Each run is handed over by its own
// thread as soon as it has run out of tiles (hand_over_expanded), tile by tile in the merge order: the
// tile's set-aside nodes go to their tiles (deliver) and its placed nodes are queued for the store at
// offsets from the run's first slot (store_slots.hpp). The completion step hands over what the runs
// left in the same way (hand_over_rest), then the nodes whose tile did not exist at the start of the
// round (their tiles are made then, since the expanding threads read the tile map during the round),
// in the merge order of their sources (finish).
//
// Invariant: the nodes come out as if one thread had handed over every tile in the merge order. A
// tile's nodes arrive in its waiting list in segments, one per run, kept in run order whichever thread
// delivers first (deliver), and within a segment in the order its one thread handed its run over, the
// merge order.
//
// Concurrency: a tile of the phase sets nodes aside only to tiles outside the phase (other colours or
// levels, tile_grid.hpp), which no thread expands in it, or to itself; a run's thread hands over only
// tiles that are expanded (Tile::expanded_round, release / acquire); deliveries to one tile from
// several runs take its lock; and the tiles they list for the next generation wait in the run's list
// until the run is handed over, then go to the phase queue under its lock (list_scheduled), into phases
// of the next generation, which the round's planner does not take. Each thread's hand-over touches its
// own run's tiles, which it expanded itself unless another thread took them, and the tiles next to
// them, so few cache lines move between cores (bench/RESULTS.md, Fill).
//
// Waiting: a run's thread hands over the tiles that are done before it takes copies, without waiting;
// after the copies it goes on, and waits for its tiles that another thread is still expanding when
// every thread has a core (`spin`, as the barrier's waiters) until kHandOverWait has passed since it
// began, and otherwise stops; the completion step hands over the rest.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "nodegen/fill/internal/first_failure.hpp"
#include "nodegen/fill/internal/phase_queue.hpp"
#include "nodegen/fill/internal/round_items.hpp"
#include "nodegen/fill/internal/store_slots.hpp"
#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/parallel/backoff.hpp"
#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/spin_lock.hpp"

namespace nodegen::fill_detail {

// A thread's run of the round's tiles, as its hand-over goes (written by its thread during the round,
// by the completion step after it).
template <int D>
struct alignas(kFalseSharingBytes) Run {
  std::size_t hi = 0, next = 0;  // its tiles are the round's [.., hi); those before next are handed over
  std::size_t placed = 0;        // nodes its handed-over tiles placed (its copies' offsets)
  std::size_t largest = 0, early = 0;  // the most nodes one tile placed; tiles handed over in the round
  float seconds = 0.0f;                // the phase log's: its hand-over time this round
  std::vector<CopyJob<D>> copies;      // first: the offset from the run's first slot
  std::vector<std::uint32_t> scheduled;  // tiles to list in the phase queue for the next generation
  std::vector<std::pair<std::size_t, std::uint32_t>> new_tile_sources;  // (merge position, tile)
};

template <int D>
class HandOver {
 public:
  // The longest a round's hand-over waits for tiles still being expanded: a few times a long tile's
  // expansion, far below a scheduler's time slice.
  static constexpr std::chrono::microseconds kHandOverWait{500};

  HandOver(int threads, TileMap<D>& tiles, PhaseQueue<D>& phases, const Round& round)
      : threads_(threads), runs_(std::make_unique<Run<D>[]>(static_cast<std::size_t>(threads))),
        tiles_(tiles), phases_(phases), round_(round) {}

  Run<D>& run(int t) { return runs_[static_cast<std::size_t>(t)]; }
  // Whether run t is handed over.
  bool handed(int t) const { return runs_[static_cast<std::size_t>(t)].next == runs_[static_cast<std::size_t>(t)].hi; }

  // The round's runs: thread t's tiles are the merge positions [runs[t].first, runs[t].second).
  void begin(const std::vector<std::pair<std::size_t, std::size_t>>& runs) {
    for (std::size_t t = 0; t < runs.size(); ++t) {
      runs_[t].next = runs[t].first;
      runs_[t].hi = runs[t].second;
    }
  }

  // By run t's thread during the round (`start`: when it began): hands over its tiles that are
  // expanded, in order; with `spin`, waits for the others up to kHandOverWait.
  void hand_over_expanded(int t, bool spin, std::chrono::steady_clock::time_point start, const FirstFailure& failure) {
    Run<D>& run = runs_[static_cast<std::size_t>(t)];
    Backoff backoff;
    unsigned waits = 0;
    while (run.next < run.hi && !failure.failed()) {
      if (tiles_[round_.tiles[run.next]].expanded_round.load(std::memory_order_acquire) != round_.number) {
        if (!spin || (++waits % 64 == 0 && std::chrono::steady_clock::now() - start > kHandOverWait)) break;
        backoff.pause();
        continue;
      }
      hand_over_next(t);
      ++run.next;
      ++run.early;
    }
    if (run.next == run.hi) list_scheduled(run);
  }

  // The completion step's: what the runs' hand-overs during the round left.
  void hand_over_rest() {
    for (int t = 0; t < threads_; ++t)
      for (Run<D>& run = runs_[static_cast<std::size_t>(t)]; run.next < run.hi; ++run.next) hand_over_next(t);
  }
  // The completion step's end of the hand-over: the tiles the runs listed go to the phase queue, and
  // the nodes for tiles not made at the start of the round go to them, now made, in the merge order of
  // their sources. The runs' queued nodes then wait for their slots (StoreSlots::give).
  void finish() {
    const std::uint64_t generation = round_.generation + 1;
    for (int t = 0; t < threads_; ++t) {
      Run<D>& run = runs_[static_cast<std::size_t>(t)];
      list_scheduled(run);
      new_tile_sources_.insert(new_tile_sources_.end(), run.new_tile_sources.begin(), run.new_tile_sources.end());
      run.new_tile_sources.clear();
    }
    std::sort(new_tile_sources_.begin(), new_tile_sources_.end());
    for (const auto& [position, t] : new_tile_sources_) {
      Tile<D>& tile = tiles_[t];
      for (const SetAside<D>& n : tile.set_aside)
        if (n.tile == kNoTile) phases_.enqueue(tiles_.at(n.key), n.node, generation);
      release_set_aside(tile, nullptr);
    }
    new_tile_sources_.clear();
  }
  // The nodes the runs' handed-over tiles placed.
  std::size_t placed() const {
    std::size_t total = 0;
    for (int t = 0; t < threads_; ++t) total += runs_[static_cast<std::size_t>(t)].placed;
    return total;
  }
  // The runs' hand-over seconds of the round, reset (the phase log).
  float take_seconds() {
    float handing = 0.0f;
    for (int t = 0; t < threads_; ++t) handing += std::exchange(runs_[static_cast<std::size_t>(t)].seconds, 0.0f);
    return handing;
  }
  // Drops every run's queued copies (a thread failed).
  void drop_copies() {
    for (int t = 0; t < threads_; ++t) runs_[static_cast<std::size_t>(t)].copies.clear();
  }

  // Several processes: every tile of the round, by the completion step alone, straight in (new tiles
  // made, tiles listed at once); the nodes for tiles `owns` refuses (other processes') are left.
  template <class Owns>
  void hand_over_all(Owns&& owns) {
    for (std::uint32_t t : round_.tiles) hand_over(tiles_[t], 0, nullptr, owns);
  }

 private:
  // Hands over the tile at run t's position next.
  void hand_over_next(int t) {
    Run<D>& run = runs_[static_cast<std::size_t>(t)];
    Tile<D>& tile = tiles_[round_.tiles[run.next]];
    hand_over(tile, t, &run, [](const TileKey<D>&) { return true; });
    queue_copy(tile.placed, run.placed, run.largest, run.copies);
  }

  // The tile's set-aside nodes (those for tiles `owns` accepts) go to their tiles, as run `r`'s. With
  // `run` the nodes for tiles not made yet wait for finish and the tiles to list go to the run's list;
  // without, everything goes straight in.
  template <class Owns>
  void hand_over(Tile<D>& tile, int r, Run<D>* run, Owns&& owns) {
    bool to_new_tiles = false;
    const std::vector<SetAside<D>>& aside = tile.set_aside;
    for (std::size_t i = 0; i < aside.size();) {
      const SetAside<D>& n = aside[i];
      if (!owns(n.key)) {
        ++i;
      } else if (n.tile == kNoTile) {
        if (run) to_new_tiles = true;
        else phases_.enqueue(tiles_.at(n.key), n.node, round_.generation + 1);
        ++i;
      } else {  // the nodes for one tile mostly come together: one delivery for them all
        std::size_t j = i + 1;
        while (j < aside.size() && aside[j].tile == n.tile) ++j;
        deliver(tiles_[n.tile], aside.data() + i, aside.data() + j, r, run);
        i = j;
      }
    }
    if (to_new_tiles) {
      run->new_tile_sources.push_back({run->next, tile.index});
      if (!tile.waiting.empty()) list_next(tile, run);
    } else {
      release_set_aside(tile, run);
    }
  }

  // Appends the nodes [from, to) to the tile's waiting list as run r's (the next generation) in this
  // round: after the segments of the runs before r, before those of the runs after it.
  void deliver(Tile<D>& tile, const SetAside<D>* from, const SetAside<D>* to, int r, Run<D>* run) {
    SpinGuard guard(tile.lock);
    const std::uint64_t generation = round_.generation + 1;
    const std::size_t n = static_cast<std::size_t>(to - from);
    if (tile.waiting.empty()) {
      tile.front_generation = generation;
      tile.front_count = 0;
    }
    if (generation == tile.front_generation) tile.front_count += n;
    if (tile.seg_round != round_.number) {
      tile.seg_round = round_.number;
      tile.seg_base = tile.waiting.size();
      tile.segs.clear();
    }
    std::size_t s = 0, at = tile.seg_base;
    while (s < tile.segs.size() && tile.segs[s].first < r) at = tile.segs[s++].second;
    if (s == tile.segs.size() || tile.segs[s].first != r)
      tile.segs.insert(tile.segs.begin() + static_cast<std::ptrdiff_t>(s), {r, at});
    at = tile.segs[s].second;
    for (std::size_t k = s; k < tile.segs.size(); ++k) tile.segs[k].second += n;
    if (at == tile.waiting.size()) {
      for (const SetAside<D>* p = from; p != to; ++p) tile.waiting.push_back(p->node);
    } else {  // a run after r delivered first
      tile.waiting.insert(tile.waiting.begin() + static_cast<std::ptrdiff_t>(at), n, from->node);
      for (const SetAside<D>* p = from; p != to; ++p) tile.waiting[at++] = p->node;
    }
    list_next(tile, run);
  }

  // Lists the tile in the next generation's phase: in the phase queue at once, or through the run's list.
  void list_next(Tile<D>& tile, Run<D>* run) {
    const std::uint64_t generation = round_.generation + 1;
    if (!run) return phases_.schedule(tile, generation);
    if (tile.list_in(generation)) run->scheduled.push_back(tile.index);
  }

  // A tile the front is crossing keeps its set-aside list's room for its next phase; one the front has
  // passed (nothing waiting) keeps no capacity, which would otherwise stay with every tile behind it.
  void release_set_aside(Tile<D>& tile, Run<D>* run) {
    tile.set_aside.clear();
    if (!tile.waiting.empty()) list_next(tile, run);
    else tile.free_lists();
  }

  // The tiles the run listed for the next generation go to the phase queue, by the run's thread as soon
  // as its hand-over is done (the tiles are in its cache), or by the completion step.
  void list_scheduled(Run<D>& run) {
    if (run.scheduled.empty()) return;
    phases_.list(run.scheduled, round_.generation + 1, tiles_);
    run.scheduled.clear();
  }

  int threads_;
  std::unique_ptr<Run<D>[]> runs_;  // each thread's run of the round's tiles
  TileMap<D>& tiles_;
  PhaseQueue<D>& phases_;
  const Round& round_;
  std::vector<std::pair<std::size_t, std::uint32_t>> new_tile_sources_;  // scratch of finish
};

}  // namespace nodegen::fill_detail
