// The suballocator against std::allocator on the two seeds' own cases, each run in a forked child so
// its peak RSS is its own (read from wait4's rusage):
//   Tapia ("THE SUBALLOCATOR ALGORITHMS", 1.3):
//     alloc_u64    N single allocations of a 64-bit element, pointers kept, then all freed
//     set_insert   std::set<uint64_t> insertion of M random keys (the same sequence for every allocator)
//   pool-allocator README (seeds/pool-allocator-readme.txt):
//     forward_list_push_front, list_push_front, list_push_back, map_insert, set_insert_small (K elements)
// Allocators: std (std::allocator), suballoc (SuballocAllocator, shared pool behind std::mutex),
// suballoc_nolock (SuballocAllocator<T, NullLock>, the same pool without the lock), suballoc_heap
// (chunks from std::allocator instead of huge-page mappings: the seed's set-up, isolating what THP adds).
//
//   suballoc [--alloc-n 5e7] [--set-n 1e7] [--small-n 1e6] [--reps 3] [--cases a,b] [--csv output/suballoc.csv]
//
// Each case prints median seconds (min-max) of the timed phase and median peak RSS; allocators
// alternate order from one repetition to the next.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <forward_list>
#include <fstream>
#include <functional>
#include <list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "nodegen/storage/suballoc_allocator.hpp"

namespace {

using nodegen::bench::now_seconds;

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct Sizes {
  std::size_t alloc_n = 50'000'000, set_n = 10'000'000, small_n = 1'000'000;
};

// A case returns the seconds of its timed phase and a value derived from the data (printed, so the
// work cannot be optimised away and allocators can be checked to agree).
struct Outcome {
  double seconds;
  std::uint64_t check;
  double cpu_seconds = 0;  // CPU time of the timed phase (the machine is shared: wall includes waiting)
};

template <template <class> class Alloc>
struct Cases {
  static Outcome alloc_u64(const Sizes& s) {
    Alloc<std::uint64_t> alloc;
    std::vector<std::uint64_t*> pointers(s.alloc_n);
    const double t0 = now_seconds();
    for (std::size_t i = 0; i < s.alloc_n; ++i) {
      pointers[i] = alloc.allocate(1);
      *pointers[i] = i;
    }
    const double t1 = now_seconds();
    std::uint64_t check = 0;
    for (std::size_t i = 0; i < s.alloc_n; i += 4096) check += *pointers[i];
    for (std::size_t i = 0; i < s.alloc_n; ++i) alloc.deallocate(pointers[i], 1);
    return {t1 - t0, check};
  }

  static Outcome set_insert(std::size_t n) {
    std::set<std::uint64_t, std::less<std::uint64_t>, Alloc<std::uint64_t>> set;
    std::uint64_t state = 42;
    const double t0 = now_seconds();
    for (std::size_t i = 0; i < n; ++i) set.insert(splitmix64(state));
    const double t1 = now_seconds();
    return {t1 - t0, set.size() + *set.begin() % 1000};
  }

  static Outcome forward_list_push_front(const Sizes& s) {
    std::forward_list<int, Alloc<int>> list;
    const double t0 = now_seconds();
    for (std::size_t i = 0; i < s.small_n; ++i) list.push_front(int(i));
    return {now_seconds() - t0, std::uint64_t(list.front())};
  }

  static Outcome list_push_front(const Sizes& s) {
    std::list<int, Alloc<int>> list;
    const double t0 = now_seconds();
    for (std::size_t i = 0; i < s.small_n; ++i) list.push_front(int(i));
    return {now_seconds() - t0, list.size()};
  }

  static Outcome list_push_back(const Sizes& s) {
    std::list<int, Alloc<int>> list;
    const double t0 = now_seconds();
    for (std::size_t i = 0; i < s.small_n; ++i) list.push_back(int(i));
    return {now_seconds() - t0, list.size()};
  }

  static Outcome map_insert(const Sizes& s) {
    std::map<int, int, std::less<int>, Alloc<std::pair<const int, int>>> map;
    std::uint64_t state = 7;
    const double t0 = now_seconds();
    for (std::size_t i = 0; i < s.small_n; ++i) map.emplace(int(splitmix64(state) % (4 * s.small_n)), int(i));
    return {now_seconds() - t0, map.size()};
  }

  static std::map<std::string, std::function<Outcome(const Sizes&)>> all() {
    return {{"alloc_u64", alloc_u64},
            {"set_insert", [](const Sizes& s) { return set_insert(s.set_n); }},
            {"forward_list_push_front", forward_list_push_front},
            {"list_push_front", list_push_front},
            {"list_push_back", list_push_back},
            {"map_insert", map_insert},
            {"set_insert_small", [](const Sizes& s) { return set_insert(s.small_n); }}};
  }
};

template <class T>
using StdAlloc = std::allocator<T>;
template <class T>
using Suballoc = nodegen::SuballocAllocator<T>;
template <class T>
using SuballocNoLock = nodegen::SuballocAllocator<T, nodegen::NullLock>;
template <class T>
using SuballocHeap = nodegen::SuballocAllocator<T, std::mutex, std::allocator>;

const char* const kCaseOrder[] = {"alloc_u64", "set_insert", "forward_list_push_front", "list_push_front",
                                  "list_push_back", "map_insert", "set_insert_small"};
const char* const kAllocators[] = {"std", "suballoc", "suballoc_nolock", "suballoc_heap"};

Outcome run_in_process(const std::string& allocator, const std::string& name, const Sizes& sizes) {
  if (allocator == "std") return Cases<StdAlloc>::all().at(name)(sizes);
  if (allocator == "suballoc") return Cases<Suballoc>::all().at(name)(sizes);
  if (allocator == "suballoc_nolock") return Cases<SuballocNoLock>::all().at(name)(sizes);
  if (allocator == "suballoc_heap") return Cases<SuballocHeap>::all().at(name)(sizes);
  if (allocator == "none") return {0, 0};  // baseline: the child's RSS doing nothing
  throw std::invalid_argument(allocator);
}

struct Measured {
  Outcome outcome;
  std::size_t peak_rss;
};

// Runs one case in a forked child; the child sends its outcome through a pipe.
Measured run_forked(const std::string& allocator, const std::string& name, const Sizes& sizes) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe");
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const double cpu0 = nodegen::bench::process_cpu_seconds();
    Outcome o = run_in_process(allocator, name, sizes);
    // CPU time of the whole case (setup + timed phase + teardown), scaled to the timed phase by wall
    // shares would be guesswork; report it whole, next to the timed wall seconds.
    o.cpu_seconds = nodegen::bench::process_cpu_seconds() - cpu0;
    if (write(fds[1], &o, sizeof o) != sizeof o) _exit(3);
    _exit(0);
  }
  close(fds[1]);
  Outcome o{};
  const bool got = read(fds[0], &o, sizeof o) == sizeof o;
  close(fds[0]);
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("case " + name + " / " + allocator + " failed in its child process");
  return {o, static_cast<std::size_t>(usage.ru_maxrss) * 1024};
}

}  // namespace

int main(int argc, char** argv) {
  Sizes sizes;
  int reps = 3;
  std::string cases_arg, csv_path = "output/suballoc.csv";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--alloc-n") sizes.alloc_n = static_cast<std::size_t>(std::stod(value));
    else if (key == "--set-n") sizes.set_n = static_cast<std::size_t>(std::stod(value));
    else if (key == "--small-n") sizes.small_n = static_cast<std::size_t>(std::stod(value));
    else if (key == "--reps") reps = std::stoi(value);
    else if (key == "--cases") cases_arg = value;
    else if (key == "--csv") csv_path = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  std::vector<std::string> cases;
  if (cases_arg.empty()) cases.assign(std::begin(kCaseOrder), std::end(kCaseOrder));
  else cases = nodegen::bench::split_list(cases_arg);

  std::filesystem::create_directories(std::filesystem::path(csv_path).parent_path());
  std::ofstream csv(csv_path);
  csv << "case,allocator,rep,n,seconds,case_cpu_seconds,peak_rss_bytes,check\n";
  const std::size_t baseline = run_forked("none", "", sizes).peak_rss;
  std::map<std::pair<std::string, std::string>, std::vector<double>> seconds, rss;
  for (const auto& name : cases) {
    const std::size_t n = name == "alloc_u64" ? sizes.alloc_n : name == "set_insert" ? sizes.set_n : sizes.small_n;
    for (int rep = 0; rep < reps; ++rep) {
      for (std::size_t k = 0; k < std::size(kAllocators); ++k) {
        const std::string allocator = kAllocators[(k + std::size_t(rep)) % std::size(kAllocators)];
        const Measured m = run_forked(allocator, name, sizes);
        seconds[{name, allocator}].push_back(m.outcome.seconds);
        rss[{name, allocator}].push_back(double(m.peak_rss));
        csv << name << ',' << allocator << ',' << rep << ',' << n << ',' << m.outcome.seconds << ','
            << m.outcome.cpu_seconds << ',' << m.peak_rss << ',' << m.outcome.check << '\n';
        csv.flush();
        std::fprintf(stderr, "%-24s %-16s rep %d  %8.3f s (case cpu %8.3f s)  peak RSS %7.1f MiB  (check %llu)\n",
                     name.c_str(), allocator.c_str(), rep, m.outcome.seconds, m.outcome.cpu_seconds,
                     double(m.peak_rss) / (1 << 20), (unsigned long long)m.outcome.check);
      }
    }
  }
  std::printf("sizes: alloc_u64 %zu, set_insert %zu, container cases %zu; %d reps; child baseline RSS %.1f MiB\n\n",
              sizes.alloc_n, sizes.set_n, sizes.small_n, reps, double(baseline) / (1 << 20));
  std::printf("| case | allocator | seconds median (min-max) | peak RSS MiB | speed-up vs std | RSS vs std |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (const auto& name : cases) {
    const auto std_time = nodegen::bench::summarize(seconds[{name, "std"}]);
    const auto std_rss = nodegen::bench::summarize(rss[{name, "std"}]);
    for (const char* allocator : kAllocators) {
      const auto t = nodegen::bench::summarize(seconds[{name, allocator}]);
      const auto r = nodegen::bench::summarize(rss[{name, allocator}]);
      std::printf("| %s | %s | %.4f (%.4f-%.4f) | %.1f | %.2fx | %.2f |\n", name.c_str(), allocator, t.median,
                  t.min, t.max, r.median / (1 << 20), std_time.median / t.median, r.median / std_rss.median);
    }
  }
  return 0;
}
