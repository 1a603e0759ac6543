#pragma once
// The parallel fill's work queue: one lane of segments per thread, with stealing.
//
// A segment is a range of store slots [first, first + count) that one thread appended at the end of one
// run of expansions: a compact patch of the front. A thread pushes its segments onto its own lane and
// takes its next run from the front of that same lane (first in, first out: breadth-first, as in the
// sequential fill, within the lane). So each thread keeps advancing its own stretch of the front, and
// two threads meet only where their stretches touch. With one shared queue instead, the cursor walks
// around the whole front and hands neighbouring patches to different threads at every step: they work
// side by side all the time, on the same k-d tree leaves and the same stripe locks, and on two cores
// that sharing cost 5-10 % of the 2-thread rate (bench/RESULTS.md, third session).
//
// A thread whose lane is empty steals the newer half (by slots) of the fullest lane, cutting a
// segment if it has to. That is also how the work is first spread: the boundary is pushed as one
// segment onto lane 0, and the other threads split it by stealing, so each starts on a contiguous
// stretch of the boundary.
//
// Each lane is a deque behind its own mutex. A lane operation happens once per run of up to
// kMaxBatch expansions (tens of microseconds of work), so the uncontended lock is noise; the mutex
// also orders a segment's store writes (before push) before its expansion (after pop or steal).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>

namespace nodegen::fill_detail {

class WorkLanes {
 public:
  struct Run {
    std::size_t first = 0, count = 0;
  };

  explicit WorkLanes(int lanes) : lanes_(std::make_unique<Lane[]>(static_cast<std::size_t>(std::max(1, lanes)))),
                                  count_(std::max(1, lanes)) {}

  int lane_count() const { return count_; }

  // Appends a segment to the back of `lane`.
  void push(int lane, Run segment) {
    if (segment.count == 0) return;
    Lane& l = lanes_[static_cast<std::size_t>(lane)];
    std::lock_guard lock(l.mutex);
    l.segments.push_back(segment);
    l.queued.store(l.queued.load(std::memory_order_relaxed) + segment.count, std::memory_order_relaxed);
  }

  // Takes the next run of `lane`: the front segment, or its first `limit` slots when it is longer.
  // False when the lane is empty.
  bool pop(int lane, std::size_t limit, Run& run) {
    Lane& l = lanes_[static_cast<std::size_t>(lane)];
    std::lock_guard lock(l.mutex);
    if (l.segments.empty()) return false;
    Run& front = l.segments.front();
    run.first = front.first;
    run.count = std::min(front.count, std::max<std::size_t>(1, limit));
    front.first += run.count;
    front.count -= run.count;
    if (front.count == 0) l.segments.pop_front();
    l.queued.store(l.queued.load(std::memory_order_relaxed) - run.count, std::memory_order_relaxed);
    return true;
  }

  // Moves the newer half (by slots, rounded up) of the fullest other lane onto the back of `thief`'s
  // lane. False when every other lane was empty when looked at.
  bool steal(int thief) {
    for (;;) {
      int victim = -1;
      std::size_t most = 0;
      for (int v = 0; v < count_; ++v) {
        const std::size_t q = lanes_[static_cast<std::size_t>(v)].queued.load(std::memory_order_relaxed);
        if (v != thief && q > most) most = q, victim = v;
      }
      if (victim < 0) return false;
      std::deque<Run> taken;
      {
        Lane& l = lanes_[static_cast<std::size_t>(victim)];
        std::lock_guard lock(l.mutex);
        const std::size_t queued = l.queued.load(std::memory_order_relaxed);
        if (queued == 0) continue;  // emptied since it was looked at: look again
        std::size_t want = (queued + 1) / 2;
        l.queued.store(queued - want, std::memory_order_relaxed);
        while (want > 0) {
          Run& back = l.segments.back();
          if (back.count <= want) {
            want -= back.count;
            taken.push_front(back);
            l.segments.pop_back();
          } else {  // cut the segment: the thief takes its newer end
            back.count -= want;
            taken.push_front(Run{back.first + back.count, want});
            want = 0;
          }
        }
      }
      Lane& mine = lanes_[static_cast<std::size_t>(thief)];
      std::lock_guard lock(mine.mutex);
      std::size_t added = 0;
      for (const Run& r : taken) mine.segments.push_back(r), added += r.count;
      mine.queued.store(mine.queued.load(std::memory_order_relaxed) + added, std::memory_order_relaxed);
      return true;
    }
  }

  // Slots waiting in `lane` (a hint: it may change at once).
  std::size_t queued(int lane) const { return lanes_[static_cast<std::size_t>(lane)].queued.load(std::memory_order_relaxed); }

 private:
  struct alignas(64) Lane {
    std::mutex mutex;
    std::deque<Run> segments;
    std::atomic<std::size_t> queued{0};  // slots in `segments`; written under the mutex, read without it by thieves
  };

  std::unique_ptr<Lane[]> lanes_;
  int count_;
};

}  // namespace nodegen::fill_detail
