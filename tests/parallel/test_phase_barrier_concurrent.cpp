// PhaseBarrier under races: more threads than cores (waiters sleep) and as many as the machine has
// (waiters spin), thousands of phases. Every thread's plain write before arriving is seen by the
// completion step, and the completion step's plain write by every thread after the wait
// (ThreadSanitizer, in the tsan preset, reports a race if either ordering is missing).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "nodegen/parallel/phase_barrier.hpp"
#include "nodegen/parallel/thread_team.hpp"

namespace nodegen {
namespace {

void check_team(int threads, int phases) {
  PhaseBarrier barrier(threads);
  std::vector<long> written(static_cast<std::size_t>(threads), 0);  // slot t: written by thread t only
  long total = 0;                                                    // written by the completion step only
  int completions = 0;
  std::vector<int> mismatches(static_cast<std::size_t>(threads), 0);
  run_team(threads, [&](int t, int) {
    for (int phase = 1; phase <= phases; ++phase) {
      written[static_cast<std::size_t>(t)] += phase;
      barrier.arrive_and_wait([&]() noexcept {
        long sum = 0;
        for (long w : written) sum += w;
        total = sum;
        ++completions;
      });
      const long expected = static_cast<long>(threads) * phase * (phase + 1) / 2;
      if (total != expected) ++mismatches[static_cast<std::size_t>(t)];
      barrier.arrive_and_wait([]() noexcept {});  // nobody writes again until everyone has read `total`
    }
  });
  EXPECT_EQ(completions, phases);
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(PhaseBarrierConcurrent, MoreThreadsThanCoresSleep) { check_team(7, 2000); }

TEST(PhaseBarrierConcurrent, OneThreadPerCoreSpin) {
  check_team(static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 2u, 4u)), 2000);
}

// The first meeting (meet) waits for a member that starts late, here 20 ms, ten times the spin of a
// round's wait, and orders its writes before the others' reads; the rounds after it count on.
void check_late_start(int threads) {
  PhaseBarrier barrier(threads);
  int late_write = 0;  // written by member 0 before it meets, read by every member after
  std::vector<int> seen(static_cast<std::size_t>(threads), -1);
  int completions = 0;
  run_team(threads, [&](int t, int) {
    if (t == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      late_write = 1;
    }
    barrier.meet();
    seen[static_cast<std::size_t>(t)] = late_write;
    for (int round = 0; round < 100; ++round) barrier.arrive_and_wait([&]() noexcept { ++completions; });
  });
  for (int s : seen) EXPECT_EQ(s, 1);
  EXPECT_EQ(completions, 100);
}

TEST(PhaseBarrierConcurrent, FirstMeetingWaitsForALateMemberWhenSpinning) {
  check_late_start(static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 2u, 4u)));
}
TEST(PhaseBarrierConcurrent, FirstMeetingWaitsForALateMemberWhenSleeping) { check_late_start(7); }

TEST(PhaseBarrierConcurrent, OneThreadRunsTheCompletionInline) {
  PhaseBarrier barrier(1);
  int runs = 0;
  for (int i = 0; i < 5; ++i) barrier.arrive_and_wait([&]() noexcept { ++runs; });
  EXPECT_EQ(runs, 5);
}

}  // namespace
}  // namespace nodegen
