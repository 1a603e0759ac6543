// How long one cache line takes to travel from one CPU to another on this machine right now: two
// threads pinned to two CPUs pass a counter back and forth through one atomic word, and the time of a
// round trip, halved, is printed in nanoseconds (the median of --blocks blocks of --trips trips).
//
// Why the fill's benchmarks want it: on this shared VM the host moves the two vCPUs between nearby
// cores (the line travels in about 26 ns) and distant ones (about 165 ns) for minutes at a time, and
// a parallel fill pays for every line its threads share at that price, while single-thread and
// independent runs do not notice. bench/fill/fill_scaling.sh records it with every round, so each
// 2-thread figure says on which kind of host placement it was measured.
//
//   core_latency [--cpus 0,1] [--trips 20000] [--blocks 5]
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench_stats.hpp"

namespace {

using nodegen::bench::pin_to;

// The word alone in an aligned pair of cache lines, so only the two threads' passes move it: with the
// word on the stack beside the pinger's own variables the figure came out 40 ns instead of 29 (the
// cores also fetch a line's neighbour in its pair).
struct alignas(128) Line {
  std::atomic<long> value{0};
};
Line line;

// One-way nanoseconds of each block: the pinger writes odd values, the ponger answers with the next even.
std::vector<double> measure(int cpu_a, int cpu_b, long trips, int blocks) {
  line.value.store(0);
  std::vector<double> ns;
  // The ponger reads nothing but the line while it plays (its bounds are copies): any other shared word
  // would add its own trips to the figure.
  std::atomic<bool> ponger_pinned{false};
  std::thread ponger([&ponger_pinned, cpu_b, total = trips * blocks] {
    ponger_pinned.store(pin_to(cpu_b));
    for (long i = 0; i < total; ++i) {
      while (line.value.load(std::memory_order_acquire) != 2 * i + 1) {
      }
      line.value.store(2 * i + 2, std::memory_order_release);
    }
  });
  bool pinned = pin_to(cpu_a);
  for (int b = 0; b < blocks; ++b) {
    const double start = nodegen::bench::now_seconds();
    for (long i = static_cast<long>(b) * trips; i < static_cast<long>(b + 1) * trips; ++i) {
      line.value.store(2 * i + 1, std::memory_order_release);
      while (line.value.load(std::memory_order_acquire) != 2 * i + 2) {
      }
    }
    const double s = nodegen::bench::now_seconds() - start;
    ns.push_back(s / static_cast<double>(trips) * 1e9 / 2.0);
  }
  ponger.join();
  if (!pinned || !ponger_pinned.load()) {
    std::fprintf(stderr, "core_latency: cannot pin threads to CPUs %d and %d\n", cpu_a, cpu_b);
    std::exit(1);
  }
  return ns;
}

}  // namespace

int main(int argc, char** argv) {
  int cpu_a = 0, cpu_b = 1, blocks = 5;
  long trips = 20000;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) {
      std::fprintf(stderr, "core_latency: %s needs a value\n", arg.c_str());
      return 2;
    }
    const std::string value = argv[++i];
    if (arg == "--cpus" && std::sscanf(value.c_str(), "%d,%d", &cpu_a, &cpu_b) == 2) continue;
    if (arg == "--trips" && (trips = std::atol(value.c_str())) > 0) continue;
    if (arg == "--blocks" && (blocks = std::atoi(value.c_str())) > 0) continue;
    std::fprintf(stderr, "usage: core_latency [--cpus A,B] [--trips N] [--blocks K]\n");
    return 2;
  }
  if (std::thread::hardware_concurrency() < 2) {
    std::fprintf(stderr, "core_latency: needs two CPUs\n");
    return 1;
  }
  const nodegen::bench::Summary ns = nodegen::bench::summarize(measure(cpu_a, cpu_b, trips, blocks));
  std::printf("cpus=%d,%d core_latency_ns=%.0f min=%.0f max=%.0f\n", cpu_a, cpu_b, ns.median, ns.min, ns.max);
  return 0;
}
