#pragma once
// HandOver: the nodes a phase's tiles set aside go to the tiles they belong to, and each tile's placed
// nodes are queued for their store slots, as if one thread had handed over every tile in the merge
// order.
//
// Deliveries: the thread that expanded a tile hands its set-aside nodes over at once (deliver_expanded):
// each run of them for one tile goes to that tile (made if need be, tile_map.hpp) as one arrival that
// names the phase, the source tile and the run's place in the source's list, and a tile expands its
// arrivals in that order (Tile::take), whichever thread delivered first: so its waiting list is the
// one a single thread handing every tile over in the merge order builds.
//
// Runs: the store slots do follow the merge order. A round's tiles are cut into one run per thread
// (round_items.hpp), a range of the merge order; runs in thread order cover the phase's tiles in the
// merge order. Each run is handed over by its own thread as soon as it has run out of tiles
// (hand_over_expanded), tile by tile in the merge order: the tile's placed nodes are queued for the
// store at offsets from the run's first slot (store_slots.hpp). The completion step hands over what
// the runs left in the same way (hand_over_rest).
//
// Concurrency: a tile of the phase sets nodes aside only to tiles outside the phase (other colours or
// levels, tile_grid.hpp), which no thread expands in it, or to itself, before its expansion is marked
// done; deliveries to one tile from several threads take its lock; and the tiles they list for the
// next generation wait in the delivering thread's list until its run is handed over, then go to the
// phase queue under its lock (list_scheduled), into phases of the next generation, which the round's
// planner does not take. A run's thread hands over only tiles that are expanded (Tile::expanded_round,
// release / acquire). Each thread delivers what it expanded itself, to the tiles next to them, so few
// cache lines move between cores (bench/RESULTS.md, Fill).
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
  // The completion step's end of the hand-over: the tiles the runs listed go to the phase queue. The
  // runs' queued nodes then wait for their slots (StoreSlots::give).
  void finish() {
    for (int t = 0; t < threads_; ++t) list_scheduled(runs_[static_cast<std::size_t>(t)]);
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

  // By the thread that expanded `tile` (thread t), before it marks the expansion done: the tile's
  // set-aside nodes go to their tiles, and the tiles to list for the next generation to its run's list.
  void deliver_expanded(Tile<D>& tile, int t) {
    hand_over(tile, &runs_[static_cast<std::size_t>(t)], [](const TileKey<D>&) { return true; }, nullptr);
  }

  // Several processes: every tile of the round, by the completion step alone, straight in (new tiles
  // made, tiles listed at once); the nodes for tiles `owns` refuses (other processes') are left. The
  // nodes arrive in the merge order, numbered from `sequence` on (then moved past them).
  template <class Owns>
  void hand_over_all(Owns&& owns, std::uint32_t& sequence) {
    for (std::uint32_t t : round_.tiles) hand_over(tiles_[t], nullptr, owns, &sequence);
  }

  // An arrival of the next generation in this round's phase from `source`'s set-aside node `i` (or
  // numbered `sequence` in arrival order, with source kNoTile).
  Arrival from(std::uint32_t source, std::size_t i) const {
    return {round_.generation + 1, round_.phase, source, static_cast<std::uint32_t>(i + 1)};
  }
  Arrival in_sequence(std::uint32_t sequence) const {
    return {round_.generation + 1, round_.phase, kNoTile, sequence};
  }

 private:
  // Hands over the tile at run t's position next.
  void hand_over_next(int t) {
    Run<D>& run = runs_[static_cast<std::size_t>(t)];
    queue_copy(tiles_[round_.tiles[run.next]].placed, run.placed, run.largest, run.copies);
  }

  // The tile's set-aside nodes (those for tiles `owns` accepts) go to their tiles, made if need be, each
  // run of them for one tile as one arrival (`sequence`: numbered in arrival order, else by their
  // place in the list); the tiles to list go to the run's list, or with no run straight to the queue.
  template <class Owns>
  void hand_over(Tile<D>& tile, Run<D>* run, Owns&& owns, std::uint32_t* sequence) {
    const std::vector<SetAside<D>>& aside = tile.set_aside;
    for (std::size_t i = 0; i < aside.size();) {
      const SetAside<D>& n = aside[i];
      if (!owns(n.key)) {
        ++i;
        continue;
      }
      // the nodes for one tile mostly come together: one delivery for them all
      std::size_t j = i + 1;
      while (j < aside.size() && aside[j].tile == n.tile && (n.tile != kNoTile || aside[j].key == n.key)) ++j;
      Tile<D>& to = n.tile == kNoTile ? tiles_.at(n.key) : tiles_[n.tile];
      deliver(to, aside.data() + i, aside.data() + j, sequence ? in_sequence((*sequence)++) : from(tile.index, i), run);
      i = j;
    }
    release_set_aside(tile, run);
  }

  // Appends the nodes [first, last) to the tile's waiting list as one arrival (the next generation).
  void deliver(Tile<D>& tile, const SetAside<D>* first, const SetAside<D>* last, const Arrival& arrival, Run<D>* run) {
    SpinGuard guard(tile.lock);
    tile.arrive(first, last, arrival);
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
};

}  // namespace nodegen::fill_detail
