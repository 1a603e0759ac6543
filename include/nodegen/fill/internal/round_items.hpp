#pragma once
// RoundItems: a round's work cut into items and shared among the team's threads.
//
// A round runs one phase: its items are the phase's tiles (each expanded by one thread) and the store
// copies of the previous phase's nodes (store_slots.hpp). No item's result depends on who takes it or
// when; the cut decides only how well the threads' caches and the round's end fare.
//
// Algorithm (cut_tiles): the phase's tiles, in the merge order, which follows space, are cut into one
// run per thread of about equal waiting nodes, so a thread keeps expanding the same part of the front,
// whose tiles, tree leaves and store pages are in its core's cache, phase after phase. A run is taken
// the most waiting nodes first, and every thread's copies come after every tile (each copy to the
// thread that handed it over), so a round ends on short items. A thread that has finished its share
// takes the others' next items: whoever takes from a share takes its next item, so both the owner and
// the helper end the round on short items (a thief taking from the back would leave the owner a longer
// last one; bench/RESULTS.md, Fill).
//
// Concurrency: cut_tiles and begin run while one thread works (the round's planner, a completion
// step); during the round the threads take items through each share's atomic cursor (take).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "nodegen/parallel/false_sharing.hpp"

namespace nodegen::fill_detail {

// The running phase, as the completion step leaves it for the next round: its tiles, in the merge
// order, its generation, and the round's number (rounds begun).
struct Round {
  std::vector<std::uint32_t> tiles;
  std::uint64_t generation = 0;
  std::uint64_t number = 0;
};

// A round's items as cut_tiles and the copies' cut (StoreSlots::cut_copies) cut them: the order, and
// each share's range of it (the threads' runs of tiles, then their copies), with the nodes waiting in
// the phase's tiles.
struct Cut {
  std::vector<std::uint32_t> order;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  std::size_t tiles = 0;    // items below this are tiles, the others copies
  std::size_t waiting = 0;  // nodes waiting in the tiles
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // each thread's tiles, as merge positions [first, second)
};

class RoundItems {
 public:
  explicit RoundItems(int threads)
      : threads_(static_cast<std::size_t>(threads)),
        share_lists_(threads_),
        shares_(std::make_unique<Share[]>(2 * threads_)) {}

  // Cuts the phase's tiles `active` (sorted) into `cut`, waiting_of(tile) giving the nodes waiting in a
  // tile; the copies are added after (StoreSlots::cut_copies).
  template <class WaitingOf>
  void cut_tiles(const std::vector<std::uint32_t>& active, WaitingOf&& waiting_of, Cut& cut) {
    const std::size_t teams = threads_;
    for (auto& list : share_lists_) list.clear();
    // Every share is sorted as plain integers, (most waiting first, then k) packed into one key whose
    // low half is the item: cheaper than a comparison that reads both tiles' counts, in a step that
    // runs once a phase while the other threads wait or finish their items.
    std::size_t total = 0;
    waiting_.resize(active.size());
    for (std::size_t k = 0; k < active.size(); ++k) total += waiting_[k] = waiting_of(active[k]);  // each tile read once
    std::size_t before = 0;
    cut.runs.assign(teams, {0, 0});
    for (std::size_t k = 0; k < active.size(); ++k) {
      const std::size_t w = waiting_[k];
      const std::size_t who = total ? std::min(teams - 1, (2 * before + w) * teams / (2 * total)) : 0;
      const std::uint64_t fewer = 0xFFFF'FFFFu - std::min<std::uint64_t>(w, 0xFFFF'FFFFu);
      share_lists_[who].push_back(fewer << 32 | k);
      if (share_lists_[who].size() == 1) cut.runs[who].first = k;  // `who` never decreases with k
      cut.runs[who].second = k + 1;
      before += w;
    }
    for (auto& list : share_lists_) std::sort(list.begin(), list.end());
    cut.order.clear();
    cut.ranges.resize(2 * teams);
    append_runs(cut);
    cut.tiles = active.size();
    cut.waiting = total;
  }

  // The round's items are those of `cut` (which is left empty).
  void begin(Cut& cut) {
    order_.swap(cut.order);
    cut.order.clear();
    for (std::size_t i = 0; i < cut.ranges.size(); ++i) {
      shares_[i].next.store(cut.ranges[i].first, std::memory_order_relaxed);
      shares_[i].end = cut.ranges[i].second;
    }
  }

  // Calls f(i, item) for the items of share `share` (thread t's run of tiles: t; its copies:
  // threads + t) that no thread has taken yet, taking each, until `stop()`.
  template <class Stop, class F>
  void take(std::size_t share, Stop&& stop, F&& f) {
    Share& s = shares_[share];
    for (std::size_t i; (i = s.next.fetch_add(1, std::memory_order_relaxed)) < s.end;) {
      if (stop()) break;
      f(i, order_[i]);
    }
  }

  std::size_t size() const { return order_.size(); }
  bool empty() const { return order_.empty(); }
  void clear() { order_.clear(); }

 private:
  // A thread's share of the round, order_[next, end).
  struct alignas(kFalseSharingBytes) Share {
    std::atomic<std::size_t> next{0};
    std::size_t end = 0;
  };

  // Appends each thread's list (share_lists_, emptied; an item in the low half of each key) to the
  // cut's order as the range of the thread's share.
  void append_runs(Cut& cut) {
    for (std::size_t t = 0; t < share_lists_.size(); ++t) {
      cut.ranges[t].first = cut.order.size();
      for (std::uint64_t key : share_lists_[t]) cut.order.push_back(static_cast<std::uint32_t>(key));
      cut.ranges[t].second = cut.order.size();
      share_lists_[t].clear();
    }
  }

  std::size_t threads_;
  std::vector<std::vector<std::uint64_t>> share_lists_;  // scratch of cut_tiles
  std::vector<std::size_t> waiting_;                     // scratch of cut_tiles: each tile's waiting nodes
  std::unique_ptr<Share[]> shares_;                      // each thread's run of tiles, then each thread's copies
  std::vector<std::uint32_t> order_;  // the round's items: k < the phase's tiles is tile k, the others copies
};

}  // namespace nodegen::fill_detail
