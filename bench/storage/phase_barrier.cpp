// What one crossing of the fill's PhaseBarrier costs on this machine, at a given thread count: the
// figure bench/fill/fill_scaling_model.py takes as --barrier-us, so a user with 16 or 64 cores can model
// the fill with their own machine's barrier instead of this VM's.
//
// Every thread does `--work-us` of private arithmetic a round (a dependent chain, no memory traffic)
// for `--rounds` rounds (a 2D 1e6-node fill has 1682 rounds of about 100 us a thread at 2 threads),
// once with the barrier (an empty completion step) between rounds and once without; the two alternate
// `--reps` times (this host's speed drifts). The cost of a crossing is (with - without) / rounds, from
// each pair; printed as the median and range over the pairs, in microseconds. With more threads than
// cores the barrier sleeps instead of spinning (phase_barrier.hpp), and the figure includes that.
//
//   phase_barrier [--threads 2] [--rounds 1682] [--work-us 100] [--reps 9]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "nodegen/parallel/phase_barrier.hpp"
#include "nodegen/parallel/thread_team.hpp"

namespace {

// About `steps` dependent multiply-adds: a fixed amount of work per round that touches no shared memory.
double chain(double x, long steps) {
  for (long i = 0; i < steps; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

// Wall seconds of `rounds` rounds of `steps` on `threads` threads, with or without the barrier.
double run(int threads, int rounds, long steps, bool barrier) {
  nodegen::PhaseBarrier sync(threads);
  const double start = nodegen::bench::now_seconds();
  nodegen::run_team(threads, [&](int t, int) {
    double x = t;
    for (int r = 0; r < rounds; ++r) {
      x = chain(x, steps);
      if (barrier) sync.arrive_and_wait([]() noexcept {});
    }
    volatile double kept = x;  // keeps the chain from being optimised away
    (void)kept;
  });
  const double seconds = nodegen::bench::now_seconds() - start;
  return seconds;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 2, rounds = 1682, reps = 9;
  double work_us = 100;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--threads" && has_value) threads = std::atoi(argv[++i]);
    else if (a == "--rounds" && has_value) rounds = std::atoi(argv[++i]);
    else if (a == "--work-us" && has_value) work_us = std::atof(argv[++i]);
    else if (a == "--reps" && has_value) reps = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: phase_barrier [--threads T] [--rounds R] [--work-us W] [--reps K]\n");
      return 2;
    }
  }
  if (threads < 1 || rounds < 1 || reps < 1 || !(work_us > 0)) {
    std::fprintf(stderr, "phase_barrier: --threads, --rounds, --reps and --work-us must be positive\n");
    return 2;
  }
  // Steps per round for work_us, calibrated by a run on one thread without the barrier.
  long steps = 1000;
  for (int pass = 0; pass < 3; ++pass) {
    const double per_round = run(1, 200, steps, false) / 200;
    steps = std::max(1L, static_cast<long>(double(steps) * work_us * 1e-6 / per_round));
  }
  std::vector<double> without, with, cost_us;
  for (int k = 0; k < reps; ++k) {
    const bool barrier_first = k % 2 == 1;
    const double a = run(threads, rounds, steps, barrier_first);
    const double b = run(threads, rounds, steps, !barrier_first);
    const double w = barrier_first ? a : b, wo = barrier_first ? b : a;
    with.push_back(w);
    without.push_back(wo);
    cost_us.push_back((w - wo) / rounds * 1e6);
  }
  const auto s_with = nodegen::bench::summarize(with), s_without = nodegen::bench::summarize(without);
  const auto s_cost = nodegen::bench::summarize(cost_us);
  std::printf("threads=%d rounds=%d work_us=%.0f reps=%d: without %.4f s, with %.4f s (medians); "
              "a crossing %.2f us (pairs median, range %.2f to %.2f)\n",
              threads, rounds, work_us, reps, s_without.median, s_with.median, s_cost.median, s_cost.min, s_cost.max);
  return 0;
}
