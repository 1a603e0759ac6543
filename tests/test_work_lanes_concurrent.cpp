// The work lanes under races: 8 threads on 2 cores push, pop and steal at once, the way the fill does
// (each thread pushes only onto its own lane). Every slot pushed must be handed out exactly once, and
// a thread that sees every lane empty and no work in flight must be right that everything is done.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "nodegen/fill/work_lanes.hpp"
#include "nodegen/storage/backoff.hpp"
#include "nodegen/storage/thread_team.hpp"

namespace nodegen {
namespace {

using fill_detail::WorkLanes;

TEST(WorkLanesConcurrent, EverySlotIsHandedOutExactlyOnce) {
  constexpr int kThreads = 8;
  constexpr std::size_t kSlots = 200000;  // every expanded slot "places" the next ones until this many
  WorkLanes lanes(kThreads);
  std::vector<std::atomic<int>> taken(kSlots);
  for (auto& t : taken) t.store(0, std::memory_order_relaxed);
  std::atomic<std::size_t> claimed{64}, finished{0};
  lanes.push(0, {0, 64});
  run_team(kThreads, [&](int tid, int) {
    Backoff idle;
    for (;;) {
      WorkLanes::Run run;
      if (lanes.pop(tid, 16, run) || (lanes.steal(tid) && lanes.pop(tid, 16, run))) {
        for (std::size_t i = run.first; i < run.first + run.count; ++i) taken[i].fetch_add(1, std::memory_order_relaxed);
        // Each run "places" about as many nodes as it expanded, as one new segment on its own lane.
        const std::size_t want = run.count + (run.first % 3 == 0 ? 1 : 0);
        std::size_t first = claimed.load(std::memory_order_relaxed);
        while (first < kSlots && !claimed.compare_exchange_weak(first, std::min(kSlots, first + want))) {
        }
        if (first < kSlots) lanes.push(tid, {first, std::min(kSlots, first + want) - first});
        finished.fetch_add(run.count, std::memory_order_release);
        idle = Backoff{};
        continue;
      }
      if (finished.load(std::memory_order_acquire) == claimed.load(std::memory_order_acquire)) return;
      idle.pause();
    }
  });
  ASSERT_EQ(claimed.load(), kSlots);
  EXPECT_EQ(finished.load(), kSlots);
  for (std::size_t i = 0; i < kSlots; ++i) ASSERT_EQ(taken[i].load(), 1) << "slot " << i;
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(lanes.queued(t), 0u);
}

}  // namespace
}  // namespace nodegen
