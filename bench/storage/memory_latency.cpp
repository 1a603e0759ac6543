// How long a load takes that needs the one before it, by the size of the memory it reads, for one
// thread alone and for two at once: what the caches give a latency-bound loop (the fill's tree walks
// are one) on this machine right now, and what a second busy CPU takes from the first.
//
// Each thread chases its own cycle through a private array, one 64-byte line a step, in a random order
// through every line (so the chase never settles into a part that fits a smaller cache). A first lap
// commits the pages before any timing. Every repetition runs the chase on the first CPU alone and on
// both CPUs at once, in alternating order, each thread pinned; a row gives the medians (and ranges) of
// the nanoseconds a step, and of the two threads' steps a second over the one thread's: 2.0 when the
// second CPU costs the first nothing.
//
// Rows that end in `_x8` run eight independent chains at once, interleaved, each round its own eighth
// of the lines, and count a step of all eight as one: they are bound by throughput, not latency, which
// is what a core's other hyperthread or a memory system shared with another busy CPU takes away (a
// latency-bound chain leaves the core's ports and the memory's queues mostly idle, so it scales 2.0
// even on two hyperthreads of one core). `compute` is a chain of multiplications that reads no memory:
// below 2.0 there, the host does not give the two CPUs full time (a quota). `compute_x8` saturates the
// multiplier: near 1.0 there, the two CPUs are hyperthreads of one core, or share one with another
// guest.
//
//   memory_latency [--sizes-mib 0.5,2,8,32] [--steps 4000000] [--reps 5] [--cpus 0,1]
#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_stats.hpp"

namespace {

constexpr std::size_t kLine = 64;

using nodegen::bench::pin_to;

std::atomic<std::uint64_t> sink{0};  // where the rows put their last values, so no loop is optimised away

// One thread's array: line i holds the index of the line its chain visits after it. The lines, in a
// random order, are cut into `Chains` runs of consecutive ones, each linked into a cycle: so every chain
// goes round its own eighth (or whole) of the array, and no chain reads lines another has just brought in.
template <int Chains>
struct Chase {
  std::vector<std::uint32_t> words;  // kLine / 4 words a line, the first one used
  std::array<std::uint32_t, Chains> first{};

  Chase(std::size_t lines, std::uint64_t seed) : words(lines * (kLine / sizeof(std::uint32_t))) {
    std::vector<std::uint32_t> order(lines);
    for (std::size_t i = 0; i < lines; ++i) order[i] = static_cast<std::uint32_t>(i);
    std::shuffle(order.begin(), order.end(), std::mt19937_64(seed));
    for (std::size_t c = 0; c < Chains; ++c) {
      const std::size_t lo = lines * c / Chains, hi = lines * (c + 1) / Chains;
      first[c] = order[lo];
      for (std::size_t i = lo; i < hi; ++i) at(order[i]) = order[i + 1 < hi ? i + 1 : lo];
    }
    run(static_cast<long>(lines / Chains + 1));  // one lap of every chain: commits the pages
  }
  std::uint32_t& at(std::size_t line) { return words[line * (kLine / sizeof(std::uint32_t))]; }
  // Seconds for `steps` steps of every chain, a dependent load each.
  double run(long steps) {
    std::array<std::uint32_t, Chains> i = first;
    const double start = nodegen::bench::now_seconds();
    for (long s = 0; s < steps; ++s)
      for (std::size_t c = 0; c < Chains; ++c) i[c] = at(i[c]);
    const double seconds = nodegen::bench::now_seconds() - start;
    for (std::uint32_t line : i) sink.fetch_add(line, std::memory_order_relaxed);  // keeps the loads
    return seconds;
  }
};

// `Chains` independent chains of multiplications, a multiply-add each a step: the compute rows.
template <int Chains>
double compute(long steps) {
  std::uint64_t x[Chains];
  for (int c = 0; c < Chains; ++c) x[c] = std::uint64_t(c) + 1;
  const double start = nodegen::bench::now_seconds();
  for (long s = 0; s < steps; ++s) {
    for (int c = 0; c < Chains; ++c) {
      x[c] = x[c] * 6364136223846793005ULL + 1442695040888963407ULL;
      asm volatile("" : "+r"(x[c]));  // not folded or vectorised
    }
  }
  const double seconds = nodegen::bench::now_seconds() - start;
  for (int c = 0; c < Chains; ++c) sink.fetch_add(x[c], std::memory_order_relaxed);
  return seconds;
}

// The step of a row of chases: thread t runs `Chains` chains through its own array.
template <int Chains>
auto chase_step(std::vector<Chase<Chains>>& chases, long steps) {
  return [&chases, steps](int t) { return chases[static_cast<std::size_t>(t)].run(steps); };
}

// Runs work(thread) on `threads` pinned threads started together; the seconds each took.
template <class Work>
std::vector<double> together(int threads, const int* cpus, Work&& work) {
  std::vector<double> seconds(static_cast<std::size_t>(threads));
  std::atomic<int> ready{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> team;
  for (int t = 0; t < threads; ++t) {
    team.emplace_back([&, t] {
      if (!pin_to(cpus[t])) failed.store(true);
      ready.fetch_add(1);
      while (ready.load() < threads) {
      }
      seconds[static_cast<std::size_t>(t)] = work(t);
    });
  }
  for (auto& member : team) member.join();
  if (failed.load()) {
    std::fprintf(stderr, "memory_latency: cannot pin threads to CPUs %d and %d\n", cpus[0], cpus[1]);
    std::exit(1);
  }
  return seconds;
}

void report(const char* name, const std::vector<double>& one_ns, const std::vector<double>& two_ns,
            const std::vector<double>& ratio) {
  const auto a = nodegen::bench::summarize(one_ns), b = nodegen::bench::summarize(two_ns),
             r = nodegen::bench::summarize(ratio);
  std::printf("size_mib=%s one_thread_ns=%.1f (%.1f-%.1f) two_threads_ns=%.1f (%.1f-%.1f) two_over_one=%.2f (%.2f-%.2f)\n",
              name, a.median, a.min, a.max, b.median, b.min, b.max, r.median, r.min, r.max);
  std::fflush(stdout);
}

// One row: reps alternated runs of step(thread) alone on cpus[0] and on both CPUs at once.
template <class Step>
void measure(const char* name, long steps, int reps, const int* cpus, Step&& step) {
  std::vector<double> one_ns, two_ns, ratio;
  for (int r = 0; r < reps; ++r) {
    double one = 0;
    std::vector<double> two;
    auto alone = [&] { one = together(1, cpus, step)[0]; };
    auto pair = [&] { two = together(2, cpus, step); };
    if (r % 2) { pair(); alone(); } else { alone(); pair(); }
    const double per_step = 1e9 / static_cast<double>(steps);
    one_ns.push_back(one * per_step);
    for (double s : two) two_ns.push_back(s * per_step);
    ratio.push_back((1.0 / two[0] + 1.0 / two[1]) * one);
  }
  report(name, one_ns, two_ns, ratio);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> sizes{"0.5", "2", "8", "32"};
  long steps = 4'000'000;
  int reps = 5;
  int cpus[2] = {0, 1};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const char* value = i + 1 < argc ? argv[++i] : "";
    if (arg == "--sizes-mib" && !(sizes = nodegen::bench::split_list(value)).empty()) continue;
    if (arg == "--steps" && (steps = std::atol(value)) > 0) continue;
    if (arg == "--reps" && (reps = std::atoi(value)) > 0) continue;
    if (arg == "--cpus" && std::sscanf(value, "%d,%d", &cpus[0], &cpus[1]) == 2) continue;
    std::fprintf(stderr, "usage: memory_latency [--sizes-mib 0.5,2,8,32] [--steps N] [--reps K] [--cpus A,B]\n");
    return 2;
  }
  if (std::thread::hardware_concurrency() < 2) {
    std::fprintf(stderr, "memory_latency: needs two CPUs\n");
    return 1;
  }
  std::vector<std::size_t> lines;  // of each size, checked before anything runs
  for (const std::string& size : sizes) {
    const double mib = std::atof(size.c_str());
    const double n = mib * 1024 * 1024 / kLine;
    if (!(n >= 16) || n > 0xFFFF'FFFFu) {
      std::fprintf(stderr, "memory_latency: --sizes-mib: %s is not a size from 1 KiB to 256 GiB\n", size.c_str());
      return 2;
    }
    lines.push_back(static_cast<std::size_t>(n));
  }
  measure("compute", steps, reps, cpus, [&](int) { return compute<1>(steps); });
  measure("compute_x8", steps, reps, cpus, [&](int) { return compute<8>(steps); });
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    std::vector<Chase<1>> one;
    std::vector<Chase<8>> eight;
    for (std::uint64_t t = 0; t < 2; ++t) one.emplace_back(lines[k], 0x9E3779B97F4A7C15ULL * (t + 1));
    measure(sizes[k].c_str(), steps, reps, cpus, chase_step<1>(one, steps));
    one.clear();
    for (std::uint64_t t = 0; t < 2; ++t) eight.emplace_back(lines[k], 0x9E3779B97F4A7C15ULL * (t + 1));
    measure((sizes[k] + "_x8").c_str(), steps, reps, cpus, chase_step<8>(eight, steps));
  }
  return 0;
}
