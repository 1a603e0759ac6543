#pragma once
// StoreSlots: which store slot every node gets, and the copies that write the nodes there.
//
// Order: the store holds the boundary nodes first, in the geometry's order, then each phase's nodes,
// tile by tile in the merge order (tile_grid.hpp), each tile's in the order it placed them. So a
// node's slot depends on the phases and the merge order alone, never on the threads.
//
// Algorithm: a phase's nodes are not written to the store while it runs. Its hand-over queues each
// tile's placed nodes as a CopyJob at an offset from the first slot of its run (a thread's range of
// the merge order, hand_over.hpp); the completion step claims the phase's slots at once (claim) and
// gives each run its first slot after the runs before it (give). The next round writes the jobs as
// items of its own (cut_copies, write): each run's jobs go to the thread that handed them over, whose
// cache holds them and, unless another thread took the tile, the nodes.
//
// Concurrency: claim, give, cut_copies and the rest run while one thread works (a completion step);
// write runs on the team, each job by the one thread that took its item. Each thread's due jobs lie on
// cache lines of their own.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "nodegen/fill/internal/point_list.hpp"
#include "nodegen/fill/internal/round_items.hpp"
#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

// The nodes one tile placed in one phase, and the store slot of the first (from a run's base, or
// absolute).
template <int D>
struct CopyJob {
  std::size_t first;
  std::vector<Vec<D>> nodes;
};

// A tile's placed nodes go to `into` as a job for the store from `slot` on (then moved past them);
// `largest` keeps the most nodes one tile placed.
template <int D>
void queue_copy(std::vector<Vec<D>>& placed, std::size_t& slot, std::size_t& largest, std::vector<CopyJob<D>>& into) {
  largest = std::max(largest, placed.size());
  if (placed.empty()) return;
  into.push_back({slot, std::move(placed)});
  slot += into.back().nodes.size();
  placed = {};
}

template <int D>
class StoreSlots {
 public:
  explicit StoreSlots(int threads)
      : threads_(static_cast<std::size_t>(threads)), due_(std::make_unique<Due[]>(threads_)) {}

  // Nodes in the store (slots claimed).
  std::size_t count() const { return count_; }
  // Store slots for n nodes; returns the first.
  template <class Store>
  std::size_t claim(Store& store, std::size_t n) {
    const std::size_t slot = n ? store.claim(n) : count_;
    count_ = slot + n;
    return slot;
  }

  // Thread t's jobs (offsets from `base`) are due in the next round; `jobs` gets the written list back.
  void give(std::size_t t, std::vector<CopyJob<D>>& jobs, std::size_t base) {
    due_[t].jobs.swap(jobs);  // the jobs stay where the run's thread wrote them
    due_[t].base = base;
  }
  // A tile's placed nodes, due from the absolute slot `slot` on (then moved past them) for `worker`,
  // the thread that placed them (several processes, whose completion step hands over alone).
  void queue(int worker, std::vector<Vec<D>>& placed, std::size_t& slot, std::size_t& largest) {
    queue_copy(placed, slot, largest, due_[static_cast<std::size_t>(worker)].jobs);
  }

  // The round's copy items, after its tiles in `cut`: each thread's due jobs to that thread.
  void cut_copies(Cut& cut) {
    const std::size_t teams = threads_;
    std::size_t item = 0;
    for (std::size_t t = 0; t < teams; ++t) {
      Due& due = due_[t];
      due.item = item;
      cut.ranges[teams + t].first = cut.order.size();
      for (std::size_t j = 0; j < due.jobs.size(); ++j)
        cut.order.push_back(static_cast<std::uint32_t>(cut.tiles + item++));
      cut.ranges[teams + t].second = cut.order.size();
    }
  }
  // Writes the round's copy item `copy` (cut_copies), one of thread `owner`'s due jobs.
  template <class Store>
  void write(Store& store, std::size_t owner, std::size_t copy) {
    Due& due = due_[owner];
    CopyJob<D>& job = due.jobs[copy - due.item];
    const std::size_t first = due.base + job.first;
    for (std::size_t k = 0; k < job.nodes.size(); ++k) store.set(first + k, to_stored<D>(job.nodes[k]));
    std::vector<Vec<D>>().swap(job.nodes);
  }

  // The round's jobs are written: none is due (slots are absolute until give sets a base).
  void clear_written() {
    for (std::size_t t = 0; t < threads_; ++t) {
      due_[t].jobs.clear();
      due_[t].base = 0;
    }
  }
  // Drops every job not written (a thread failed).
  void drop() {
    for (std::size_t t = 0; t < threads_; ++t) due_[t].jobs.clear();
  }
  // Whether a thread has jobs for the next round.
  bool any_due() const {
    for (std::size_t t = 0; t < threads_; ++t)
      if (!due_[t].jobs.empty()) return true;
    return false;
  }

 private:
  // A thread's jobs for the round: from slot base on; the first is the round's copy item `item`.
  struct alignas(kFalseSharingBytes) Due {
    std::vector<CopyJob<D>> jobs;
    std::size_t base = 0, item = 0;
  };

  std::size_t threads_;
  std::unique_ptr<Due[]> due_;
  std::size_t count_ = 0;  // nodes in the store
};

}  // namespace nodegen::fill_detail
