#pragma once
// HeapTrim: gives the heap's free pages back to the kernel (storage/release_free_heap.hpp) when the
// front has shrunk, by one thread while the others finish their items.
//
// Rule: when the front, a whole generation's waiting nodes, has shrunk to half its largest size since
// the last trim. The front is largest near the boundary and then shrinks (a cube's, from six faces to
// its centre), so what its waiting lists took early would otherwise stay resident beside the growing
// store and tree until the end. Halving, rather than a fixed count of phases, gives back the same
// memory with fewer calls, and a call costs the round its length (bench/RESULTS.md, Fill).
//
// Concurrency: note_round runs while one thread works (beginning a round); the first thread out of
// items takes the trim (trim_if_due: one atomic exchange decides who). malloc_trim is thread-safe (it
// locks each arena in turn) and changes no node.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "nodegen/fill/internal/phase_times.hpp"
#include "nodegen/storage/release_free_heap.hpp"

namespace nodegen::fill_detail {

class HeapTrim {
 public:
  // A round of `generation` begins with `waiting` nodes in its tiles: the trim is due if the front shrank.
  void note_round(std::uint64_t generation, std::size_t waiting) {
    if (front_shrunk(generation, waiting)) due_.store(true, std::memory_order_relaxed);
  }
  // Trims if due and no other thread has taken it; the time goes to the phase log.
  void trim_if_due(PhaseTimes& times) {
    if (!due_.load(std::memory_order_relaxed) || !due_.exchange(false, std::memory_order_relaxed)) return;
    const auto start = PhaseTimes::Clock::now();
    release_free_heap();
    times.add_trim(start);
  }

 private:
  bool front_shrunk(std::uint64_t generation, std::size_t waiting) {
    bool shrunk = false;
    if (generation != front_.generation) {  // the generation before is complete
      shrunk = 2 * front_.nodes < front_.largest;
      front_.largest = shrunk ? front_.nodes : std::max(front_.largest, front_.nodes);
      front_ = {generation, 0, front_.largest};
    }
    front_.nodes += waiting;
    return shrunk;
  }

  std::atomic<bool> due_{false};  // set by note_round, taken by trim_if_due
  struct {
    std::uint64_t generation = 0;
    std::size_t nodes = 0, largest = 0;  // waiting nodes of that generation, and the most since the last trim
  } front_;
};

}  // namespace nodegen::fill_detail
