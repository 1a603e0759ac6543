#pragma once
// One state byte per node slot: the parallel fill's work queue is the node store itself, and these
// bytes say which slots may be handed out for expansion.
//
//   kEmpty     not written yet (the claimer is still writing)
//   kSegment   written, and the first slot of a segment: the nodes one thread appended at the end of
//              one batch of expansions (so a segment is a spatially compact patch of the front)
//   kWritten   written, inside a segment
//
// A claimer writes its whole segment, flags slots 1..k-1 kWritten and then slot 0 kSegment (release),
// so a taker that sees kSegment at a slot may expand the whole segment: the scan for its end stops at
// the next slot that is not kWritten, which is the next segment's first slot (kEmpty or kSegment).
// Handing out whole segments keeps each thread on its own patch of the front; cutting the queue at
// arbitrary points interleaves two threads' children and the threads end up side by side, fighting
// over the same cache lines and locks.
//
// The bytes live in an untouched MAP_NORESERVE reservation of `capacity` bytes, committed page by
// page as the fill advances, and handed back behind the cursor (discard_before): a few pages at a time.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "nodegen/fill/discard_pages.hpp"
#include "nodegen/storage/vm_region.hpp"

namespace nodegen::fill_detail {

class QueueFlags {
 public:
  static constexpr std::uint8_t kEmpty = 0, kSegment = 1, kWritten = 2;

  explicit QueueFlags(std::size_t capacity) : region_(capacity) {}

  // Marks [first, first + count) written, as one segment. Every flag is a release store (free on
  // x86), so whoever acquires any slot's flag sees that slot's contents; the first slot's comes last.
  void publish_segment(std::size_t first, std::size_t count) {
    for (std::size_t k = 1; k < count; ++k) flag(first + k).store(kWritten, std::memory_order_release);
    flag(first).store(kSegment, std::memory_order_release);
  }

  std::uint8_t state(std::size_t i) const { return flag(i).load(std::memory_order_acquire); }

  // Hands the pages wholly below slot i back to the kernel: the flags of slots the cursor has passed
  // are never written again and only read by a taker whose cursor CAS is then bound to fail (such a
  // read sees 0, kEmpty, which makes it retry anyway). Saves the ~1 byte per node the flags would
  // otherwise keep resident to the end of the fill. Each call discards only what earlier calls did not,
  // so the total cost stays proportional to the pages.
  void discard_before(std::size_t i) {
    std::size_t from = discarded_.load(std::memory_order_relaxed);
    while (from < i && !discarded_.compare_exchange_weak(from, i, std::memory_order_relaxed)) {
    }
    if (from < i) discard_pages(region_.data() + from, region_.data() + i);
  }

  // Length of the run of slots to hand out from `first` (a segment start, or the rest of a segment
  // that was cut): up to `limit` slots, stopping before the next segment and before `end`.
  std::size_t run_length(std::size_t first, std::size_t end, std::size_t limit) const {
    std::size_t n = 1;
    while (n < limit && first + n < end && flag(first + n).load(std::memory_order_acquire) == kWritten) ++n;
    return n;
  }

 private:
  std::atomic_ref<std::uint8_t> flag(std::size_t i) const {
    return std::atomic_ref<std::uint8_t>(reinterpret_cast<std::uint8_t*>(region_.data())[i]);
  }

  VmRegion region_;
  std::atomic<std::size_t> discarded_{0};  // flags below this slot have been discarded
};

}  // namespace nodegen::fill_detail
