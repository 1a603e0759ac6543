#pragma once
// SpaceRuleFill: the fill's items run as soon as the space rule lets them (space_rule.hpp), with no
// rounds and no barriers; the nodes are those of the phases, bit for bit.
//
// A worker takes the first ready item (phase order), sorts its tile's arrivals into the phases' order
// (arrival_order.hpp) and expands it (tile_expansion.hpp) with no lock held. Then it delivers: the
// nodes it set aside go to their tiles as runs of its own, each target under the target's own lock,
// found among the tiles the item's tile met before (or, for a tile not met yet, found or made under
// the lock). Then, under the lock, it hands over: the targets' items are made, its placed nodes wait
// for their phase's store slots (phase_commit.hpp), its tile's next item is made, and the items it
// held back are checked again. The complete phases' copy jobs are written after the lock is let go.
//
// Why the nodes are the phases': an item reads and writes the tree only where items that touch it do,
// and the space rule starts it only after every earlier item that touches it and before every later
// one; its waiting list is the phases fill's once sorted; the store's order is the phases'.
//
// Concurrency: one mutex guards the schedule, the tile map and the commit. A tile's lists (waiting,
// arrivals, deferred) are written by the thread running its item, with no lock, or by deliveries,
// under the tile's lock, which see its `running` flag (set and cleared under that lock): while it runs
// they go to the deferred lists, which its hand-over takes in under the lock before clearing the flag.
// A delivery comes before the deliverer's hand-over, whose arrive makes the target's item: until
// then the deliverer's item is unfinished, so the space rule keeps every item it can feed from
// starting (docs/parallel-fill.md, "The space-rule fill"). Tiles never move or go (tile_map.hpp), so
// pointers to them stay valid. The tree is shared as in the phases fill; its retired buckets are made
// reusable only while no item is expanding (then no thread is in the tree). The heap is trimmed as
// the phases fill trims it (heap_trim.hpp), by a thread after its copies.
// Termination: when no item is unfinished and none expanding, every worker leaves; a failure wakes
// them all and each leaves after its current item.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/internal/arrival_order.hpp"
#include "nodegen/fill/internal/first_failure.hpp"
#include "nodegen/fill/internal/heap_trim.hpp"
#include "nodegen/fill/internal/phase_times.hpp"
#include "nodegen/fill/internal/phase_commit.hpp"
#include "nodegen/fill/internal/phase_queue.hpp"
#include "nodegen/fill/internal/space_rule.hpp"
#include "nodegen/fill/internal/store_slots.hpp"
#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/spin_lock.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/parallel/wait_for_change.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D, class StoreT, class TreeOf, class Expansion>
class SpaceRuleFill {
 public:
  SpaceRuleFill(int threads, TileMap<D>& tiles, const TileGrid<D>& grid, const Expansion& expansion,
                StoreSlots<D>& slots, StoreT& store, TreeOf& tree, FirstFailure& failure, HeapTrim& trim,
                PhaseTimes& times)
      : threads_(threads), tiles_(tiles), rule_(tiles, grid, threads), commit_(tiles), expansion_(expansion),
        slots_(slots), store_(store), tree_(tree), failure_(failure), trim_(trim), times_(times) {}

  // The phases (committed), items and the most nodes one item placed, once run.
  std::size_t phases() const { return commit_.committed(); }
  std::size_t items() const { return items_; }
  std::size_t largest() const { return commit_.largest(); }

  // Runs the fill on `threads` threads from generation 0 as seeded (`phases`: the seeds' tiles).
  // scratch(t): thread t's expansion scratch; claim(n): n store slots, the first returned;
  // stopped(): whether the fill is to stop.
  template <class ScratchOf, class Claim, class Stopped>
  void run(PhaseQueue<D>& phases, ScratchOf&& scratch, Claim&& claim, Stopped&& stopped) {
    seed_items(phases);
    spin_ = static_cast<unsigned>(threads_) <= std::thread::hardware_concurrency();
    run_team(threads_, [&](int t, int) {
      try {
        work(t, scratch(t), claim, stopped);
      } catch (...) {
        fail(std::current_exception());
      }
    });
    times_.count_lock_items(items_);
  }

 private:
  // Every seeded tile learns its neighbours, then each with nodes waiting gets its generation-0 item;
  // those ready at once go to the threads in ranges of the merge order, so each starts on a region.
  void seed_items(PhaseQueue<D>& phases) {
    for (std::uint32_t i = 0; i < tiles_.size(); ++i) rule_.meet_neighbours(tiles_[i]);
    std::uint64_t generation = 0;
    std::vector<std::uint32_t> listed;
    while (phases.take_first(0, true, generation, listed)) {
      tiles_.sort_merge_order(listed);
      for (std::size_t k = 0; k < listed.size(); ++k) {
        rule_.act_as(static_cast<int>(k * static_cast<std::size_t>(threads_) / listed.size()));
        Tile<D>& t = tiles_[listed[k]];
        if (t.waiting.empty()) continue;
        t.arrivals.assign(1, Arrival<D>{});
        t.arrivals[0].count = t.waiting.size();
        arrive(t, generation);
      }
    }
  }

  // Nodes of generation g arrived in tile t (or, for a seed, were placed there): its item made, or
  // re-tagged to g (SpaceRule::arrive).
  void arrive(Tile<D>& t, std::uint64_t g) {
    const std::uint64_t had = rule_.arrive(t, g);
    if (had == g) return;
    commit_.add(SpaceRule<D>::phase(t, g));
    if (had != TileSchedule::kNone) commit_.drop(SpaceRule<D>::phase(t, had));
  }

  template <class Scratch, class Claim, class Stopped>
  void work(int thread, Scratch& s, Claim& claim, Stopped& stopped) {
    std::vector<CopyJob<D>> jobs;
    std::vector<Target> targets;
    std::unique_lock lock(mutex_);
    PhaseTimes::Clock::time_point held{};  // since when it has held the lock (the log's)
    auto let_go = [&] {
      if (held != PhaseTimes::Clock::time_point{}) times_.add_lock(held);
      held = {};
      lock.unlock();
    };
    auto take_lock = [&] {
      lock.lock();
      held = times_.item_start();
    };
    while (!failure_.failed()) {
      Tile<D>* t = rule_.take(thread);
      if (!t) {
        if (rule_.idle() && expanding_ == 0) break;
        const std::uint32_t seen = events_.load(std::memory_order_relaxed);  // under the lock: no wake lost
        let_go();
        wait(seen);
        lock.lock();
        continue;
      }
      mark_running(*t);
      ++expanding_;
      ++items_;
      const std::uint64_t g = rule_.generation(*t);
      let_go();
      bool expanded = false;
      try {
        if (stopped()) throw FillStopped();
        order_arrivals(*t, g, s.arrivals);
        expansion_.expand(*t, g, s);
        group_by_target(*t);
        expanded = true;
      } catch (...) {
        failure_.fail(std::current_exception());
      }
      if (expanded && !find_targets(*t, targets)) {  // a target not met before: found under the lock
        take_lock();
        make_targets(*t, targets);
        let_go();
      }
      if (expanded) deliver(*t, g, targets);
      take_lock();
      --expanding_;
      if (!expanded) break;
      rule_.act_as(thread);
      hand_over(*t, g, targets, claim, jobs);
      if (expanding_ == 0) tree_.reuse_retired(slots_.count());
      if (rule_.take_readied() > 0 || (rule_.idle() && expanding_ == 0)) wake();
      if (jobs.empty()) continue;
      let_go();
      write(jobs);
      trim_.trim_if_due(times_);
      lock.lock();
    }
    wake();
  }

  // Waits, without the lock, until another thread has made an item ready, ended the fill or failed
  // (wait_for_change: spinning first when every thread has a core, an item being a few microseconds).
  // `seen`: the wakes counted while the caller still held the lock, which it has let go since.
  void wait(std::uint32_t seen) { wait_for_change(events_, seen, spin_, kSpin); }
  // Under the lock: wakes the waiting threads.
  void wake() {
    events_.fetch_add(1, std::memory_order_release);
    events_.notify_all();
  }

  // After the expansion: the tile's set-aside nodes grouped by target, each group in the order they
  // were placed (what the runs keep), so each target is found once and delivered to in bulk.
  static void group_by_target(Tile<D>& t) {
    std::stable_sort(t.set_aside.begin(), t.set_aside.end(), [](const SetAside<D>& a, const SetAside<D>& b) {
      if (a.key.level != b.key.level) return a.key.level < b.key.level;
      return a.key.c < b.key.c;
    });
  }

  // A tile the item's set-aside nodes go to: set_aside[begin, end) (grouped by target).
  struct Target {
    Tile<D>* tile;
    std::size_t begin, end;
  };

  // Without the lock: the item's targets from the tiles its tile met before (Tile::met, read and
  // written only by the thread running its item); false when some target is not among them.
  static bool find_targets(Tile<D>& t, std::vector<Target>& targets) {
    targets.clear();
    bool all = true;
    const std::vector<SetAside<D>>& aside = t.set_aside;
    for (std::size_t i = 0; i < aside.size();) {
      std::size_t j = i + 1;
      while (j < aside.size() && aside[j].key == aside[i].key) ++j;
      Tile<D>* to = nullptr;
      for (const auto& [key, tile] : t.met)
        if (key == aside[i].key) to = tile;
      all = all && to;
      targets.push_back({to, i, j});
      i = j;
    }
    return all;
  }
  // Under the lock: the targets not met before, found or made (the tile map is written under it).
  void make_targets(Tile<D>& t, std::vector<Target>& targets) {
    for (Target& to : targets)
      if (!to.tile) {
        to.tile = &rule_.tile_at(t.set_aside[to.begin].key);
        t.met.emplace_back(to.tile->key, to.tile);
      }
  }

  // Without the lock: the set-aside nodes join their tiles' lists as runs of generation g + 1, each
  // target's under its own lock. A target whose item runs is being read by its thread: its deliveries
  // wait in its deferred lists (see deliver_deferred). The item's own tile is running (this thread's).
  static void deliver(Tile<D>& t, std::uint64_t g, const std::vector<Target>& targets) {
    for (const Target& target : targets) {
      Tile<D>& to = *target.tile;
      std::optional<SpinGuard> guard;
      if (&to != &t) guard.emplace(to.lock);
      const bool defer = &to != &t && to.running;
      std::vector<Waiting<D>>& nodes = defer ? to.deferred : to.waiting;
      for (std::size_t k = target.begin; k < target.end; ++k) nodes.push_back(t.set_aside[k].node);
      (defer ? to.deferred_runs : to.arrivals).push_back(run_of(t, g + 1, target.end - target.begin));
    }
    t.set_aside.clear();
  }

  // Under the lock, after deliver: tile t's item of generation g is expanded, its nodes delivered; its
  // targets learn of them, its own list takes what arrived while it ran, and its next item is made.
  template <class Claim>
  void hand_over(Tile<D>& t, std::uint64_t g, const std::vector<Target>& targets, Claim& claim,
                 std::vector<CopyJob<D>>& jobs) {
    for (const Target& to : targets)
      if (to.tile != &t) arrive(*to.tile, g + 1);
    std::uint64_t next = TileSchedule::kNone;
    {
      SpinGuard guard(t.lock);  // deliveries to t from here on go to its waiting list
      keep_own_run(t, g);
      deliver_deferred(t);
      t.running = false;
      if (!t.waiting.empty()) next = least_generation(t);
      else t.free_lists();
    }
    commit_.finish(SpaceRule<D>::phase(t, g), t.index, t.placed);
    if (next != TileSchedule::kNone) commit_.add(SpaceRule<D>::phase(t, next));
    rule_.finish(t, next);
    // The heap is trimmed as in the phases fill, when a generation's front has halved (heap_trim.hpp).
    commit_.commit(rule_.least_unfinished(), claim, jobs,
                   [this](std::uint64_t generation, std::size_t nodes) { trim_.note_round(generation, nodes); });
  }
  // Under the lock, as t's item is taken: from here deliveries to t (under its own lock) are deferred.
  // The hand-over clears the flag in the section that takes the deferred nodes in.
  static void mark_running(Tile<D>& t) {
    SpinGuard guard(t.lock);
    t.running = true;
  }

  // The runs of generation g are expanded; what the tile kept of its own is a run of generation g + 1
  // after the others it holds (those arrived before it ran, from sources before it).
  static void keep_own_run(Tile<D>& t, std::uint64_t g) {
    std::vector<Arrival<D>>& runs = t.arrivals;
    std::size_t k = 0, others = 0;
    while (k < runs.size() && runs[k].generation == g) ++k;
    runs.erase(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(k));
    for (const Arrival<D>& r : runs) others += r.count;
    if (t.waiting.size() > others) runs.push_back(run_of(t, g + 1, t.waiting.size() - others));
  }
  // What was delivered to the tile while its item ran joins its list, as runs of their own (sorted
  // into place before its next item, arrival_order.hpp). Such a source is of the item's generation,
  // later in the phases' order and clear of the item's work, but its nodes landed in the tile's cell.
  static void deliver_deferred(Tile<D>& t) {
    if (t.deferred_runs.empty()) return;
    t.waiting.insert(t.waiting.end(), t.deferred.begin(), t.deferred.end());
    t.arrivals.insert(t.arrivals.end(), t.deferred_runs.begin(), t.deferred_runs.end());
    t.deferred.clear();
    t.deferred_runs.clear();
  }
  static std::uint64_t least_generation(const Tile<D>& t) {
    std::uint64_t least = TileSchedule::kNone;
    for (const Arrival<D>& r : t.arrivals) least = std::min(least, r.generation);
    return least;
  }
  static Arrival<D> run_of(const Tile<D>& source, std::uint64_t generation, std::size_t count) {
    return {generation, source.key.level, TileGrid<D>::colour(source.key), source.block, source.key, count};
  }

  void write(std::vector<CopyJob<D>>& jobs) {
    for (CopyJob<D>& job : jobs)
      for (std::size_t k = 0; k < job.nodes.size(); ++k) store_.set(job.first + k, to_stored<D>(job.nodes[k]));
    jobs.clear();
  }

  void fail(std::exception_ptr e) {
    failure_.fail(e);
    std::lock_guard guard(mutex_);
    wake();
  }

  int threads_;
  TileMap<D>& tiles_;
  SpaceRule<D> rule_;
  PhaseCommit<D> commit_;
  const Expansion& expansion_;
  StoreSlots<D>& slots_;
  StoreT& store_;
  TreeOf& tree_;
  FirstFailure& failure_;
  HeapTrim& trim_;
  PhaseTimes& times_;
  static constexpr std::chrono::microseconds kSpin{2000};
  SpinMutex mutex_;
  alignas(kFalseSharingBytes) std::atomic<std::uint32_t> events_{0};  // bumped by every wake
  bool spin_ = false;
  std::size_t expanding_ = 0, items_ = 0;
};

}  // namespace nodegen::fill_detail
