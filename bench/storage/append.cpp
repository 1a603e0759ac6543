// Append throughput of the storage backends at 1 and 2 threads, beside tbb::concurrent_vector and the
// machine's own limits measured in the same run:
//   faulted_limit     plain stores into memory faulted in beforehand (THP-advised): the ceiling
//   first_touch_4k    stores into a fresh mapping, 4 KiB pages (MADV_NOHUGEPAGE): every page faults
//   first_touch_thp   stores into a fresh MADV_HUGEPAGE mapping
// Each thread appends N / threads records of 24 bytes. Store variants claim one slot per record (c1)
// or runs of 1024 (c1024), then write the record; nothing unwritten is ever read.
//
//   append [--n 1e8] [--reps 3] [--threads 1,2] [--variants a,b,...] [--cooldown 0] [--csv output/append.csv]
//
// Variant order is shuffled anew for every repetition so drift, and what one variant leaves behind for
// the next, hit every variant alike. --cooldown S sleeps S seconds before each variant: on a VM with
// free page reporting (this project's machine) memory freed by the previous variant is only handed
// back to the host after ~2 s, and re-using it before that is much cheaper than touching fresh memory,
// so a cooldown measures every variant on fresh memory, as a new process would see it.
// Prints a table of medians (min-max) in M appends/s and the same-run ratios of the storage targets.
#include <sys/mman.h>
#include <sys/resource.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <thread>
#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/storage/vm_store.hpp"
#if defined(NODEGEN_HAVE_TBB)
#include <tbb/concurrent_vector.h>
#endif

namespace {

using nodegen::bench::now_seconds;

struct Record {
  double a, b, c;
};
static_assert(sizeof(Record) == 24);

Record record_of(std::size_t i) { return Record{double(i), 0.5 * double(i), -double(i)}; }

// The [begin, end) share of n items of thread tid.
std::pair<std::size_t, std::size_t> share(std::size_t n, int tid, int threads) {
  return {n * std::size_t(tid) / std::size_t(threads), n * std::size_t(tid + 1) / std::size_t(threads)};
}

// A fresh anonymous mapping, with or without transparent huge pages.
struct Mapping {
  Record* data = nullptr;
  std::size_t bytes = 0;
  Mapping(std::size_t n, bool huge) : bytes(nodegen::round_up(n * sizeof(Record), nodegen::kHugePageBytes)) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    ::madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    data = static_cast<Record*>(p);
  }
  ~Mapping() { ::munmap(data, bytes); }
};

// One timed run of n appends on `threads` threads: returns seconds.
using Run = std::function<double(std::size_t n, int threads)>;

// CPU seconds (all threads) of the last timed_team call.
double last_cpu_seconds = 0;

double timed_team(int threads, const std::function<void(int, int)>& body) {
  const double cpu0 = nodegen::bench::process_cpu_seconds();
  const double t0 = now_seconds();
  nodegen::run_team(threads, body);
  const double seconds = now_seconds() - t0;
  last_cpu_seconds = nodegen::bench::process_cpu_seconds() - cpu0;
  return seconds;
}

// Slot-by-slot writes into raw memory, the two limits.
Run raw_stores(bool prefault, bool huge) {
  return [=](std::size_t n, int threads) {
    Mapping m(n, huge);
    if (prefault) std::memset(static_cast<void*>(m.data), 1, m.bytes);
    return timed_team(threads, [&](int tid, int nt) {
      const auto [b, e] = share(n, tid, nt);
      for (std::size_t i = b; i < e; ++i) m.data[i] = record_of(i);
    });
  };
}

// claim(block) then write each slot, through the store's stable array when it has one.
template <class Store>
Run store_appends(std::size_t block, typename Store::Options options = {}) {
  return [=](std::size_t n, int threads) {
    Store store(n, options);
    return timed_team(threads, [&](int tid, int nt) {
      const auto [b, e] = share(n, tid, nt);
      for (std::size_t done = b; done < e;) {
        const std::size_t m = std::min(block, e - done);
        const std::size_t first = store.claim(m);
        for (std::size_t k = 0; k < m; ++k) {
          if constexpr (requires { store[first + k]; })
            store[first + k] = record_of(done + k);
          else
            store.set(first + k, record_of(done + k));
        }
        done += m;
      }
    });
  };
}

Run vector_mutex() {
  return [](std::size_t n, int threads) {
    std::vector<Record> v;
    std::mutex mutex;
    return timed_team(threads, [&](int tid, int nt) {
      const auto [b, e] = share(n, tid, nt);
      for (std::size_t i = b; i < e; ++i) {
        std::lock_guard lock(mutex);
        v.push_back(record_of(i));
      }
    });
  };
}

#if defined(NODEGEN_HAVE_TBB)
Run tbb_vector(std::size_t block) {
  return [=](std::size_t n, int threads) {
    tbb::concurrent_vector<Record> v;
    return timed_team(threads, [&](int tid, int nt) {
      const auto [b, e] = share(n, tid, nt);
      if (block == 1) {
        for (std::size_t i = b; i < e; ++i) v.push_back(record_of(i));
        return;
      }
      for (std::size_t done = b; done < e;) {
        const std::size_t m = std::min(block, e - done);
        auto it = v.grow_by(m);
        for (std::size_t k = 0; k < m; ++k, ++it) *it = record_of(done + k);
        done += m;
      }
    });
  };
}
#endif

// Chunked PROT_NONE reservation as the paper describes (mprotect opens the next chunk), kept here to
// measure the design VmStore did not take: claims are a fetch_add, and a thread whose claim ends past
// the open watermark opens chunks under a mutex while the others wait for the watermark.
Run vm_mprotect_chunks(std::size_t chunk_bytes, std::size_t block) {
  return [=](std::size_t n, int threads) {
    const std::size_t bytes = nodegen::round_up(n * sizeof(Record), chunk_bytes);
    void* p = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
    auto* data = static_cast<Record*>(p);
    std::atomic<std::size_t> next{0}, open_bytes{0};
    std::mutex opener;
    const double seconds = timed_team(threads, [&](int tid, int nt) {
      const auto [b, e] = share(n, tid, nt);
      for (std::size_t done = b; done < e;) {
        const std::size_t m = std::min(block, e - done);
        const std::size_t first = next.fetch_add(m, std::memory_order_relaxed);
        const std::size_t end_byte = (first + m) * sizeof(Record);
        if (end_byte > open_bytes.load(std::memory_order_acquire)) {
          std::lock_guard lock(opener);
          std::size_t open = open_bytes.load(std::memory_order_relaxed);
          while (open < end_byte) {
            ::mprotect(static_cast<char*>(p) + open, chunk_bytes, PROT_READ | PROT_WRITE);
            open += chunk_bytes;
            open_bytes.store(open, std::memory_order_release);
          }
        }
        for (std::size_t k = 0; k < m; ++k) data[first + k] = record_of(done + k);
        done += m;
      }
    });
    ::munmap(p, bytes);
    return seconds;
  };
}

std::map<std::string, Run> all_variants() {
  using nodegen::VmStore;
  using nodegen::VmStoreOptions;
  // Spelled out in full, so each keeps its meaning if the default changes. VmStoreOptions{} is the
  // default (4 KiB pages, no prefault: the same as plain), measured as vm_default.
  const VmStoreOptions plain{.prefault = false, .huge_pages = false},
      prefault{.prefault = true, .huge_pages = false}, both{.prefault = true, .huge_pages = true};
  std::map<std::string, Run> v;
  v["faulted_limit"] = raw_stores(true, true);
  v["first_touch_4k"] = raw_stores(false, false);
  v["first_touch_thp"] = raw_stores(false, true);
  v["vector_mutex"] = vector_mutex();
  v["locked_vector_c1"] = store_appends<nodegen::LockedVectorStore<Record>>(1);
  v["locked_vector_c1024"] = store_appends<nodegen::LockedVectorStore<Record>>(1024);
#if defined(NODEGEN_HAVE_TBB)
  v["tbb_push_back"] = tbb_vector(1);
  v["tbb_grow_by_1024"] = tbb_vector(1024);
#endif
  for (std::size_t block : {std::size_t{1}, std::size_t{1024}}) {
    const std::string c = "_c" + std::to_string(block);
    v["vm_plain" + c] = store_appends<VmStore<Record>>(block, plain);
    v["vm_prefault" + c] = store_appends<VmStore<Record>>(block, prefault);
    v["vm_prefault_thp" + c] = store_appends<VmStore<Record>>(block, both);
    v["vm_default" + c] = store_appends<VmStore<Record>>(block, VmStoreOptions{});
    v["suballoc" + c] = store_appends<nodegen::SuballocStore<Record>>(block);
  }
  v["vm_mprotect_1g_c1024"] = vm_mprotect_chunks(std::size_t{1} << 30, 1024);
  v["vm_mprotect_8m_c1024"] = vm_mprotect_chunks(std::size_t{8} << 20, 1024);
  return v;
}

long minor_faults() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_minflt;
}

struct Options {
  std::size_t n = 100'000'000;
  int reps = 3;
  double cooldown = 0;
  std::string threads_arg = "1,2", variants_arg, csv_path = "output/append.csv";
};

// The options, or nothing (with a message on stderr) for an unknown one.
std::optional<Options> parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--n") o.n = static_cast<std::size_t>(std::stod(value));
    else if (key == "--reps") o.reps = std::stoi(value);
    else if (key == "--threads") o.threads_arg = value;
    else if (key == "--variants") o.variants_arg = value;
    else if (key == "--csv") o.csv_path = value;
    else if (key == "--cooldown") o.cooldown = std::stod(value);
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return std::nullopt;
    }
  }
  return o;
}

// The variants named in `list` (all of them if it is empty), or nothing (with a message on stderr)
// for an unknown name.
std::optional<std::vector<std::string>> chosen_variants(const std::map<std::string, Run>& variants,
                                                        const std::string& list) {
  std::vector<std::string> names;
  if (list.empty()) {
    for (const auto& [name, run] : variants) names.push_back(name);
    return names;
  }
  names = nodegen::bench::split_list(list);
  for (const auto& name : names)
    if (!variants.count(name)) {
      std::fprintf(stderr, "unknown variant %s\n", name.c_str());
      return std::nullopt;
    }
  return names;
}

struct Measurements {
  std::map<std::pair<std::string, int>, std::vector<double>> rates, cpu_rates;
  // Same-run ratios: per (threads, rep) keep each variant's rate.
  std::map<std::pair<int, int>, std::map<std::string, std::pair<double, double>>> by_run;  // wall, cpu
};

// Every variant at every thread count, reps times, in a new shuffled order each time; each run is
// a line of the CSV file and of stderr.
Measurements measure(const Options& o, const std::map<std::string, Run>& variants,
                     const std::vector<std::string>& names, const std::vector<int>& thread_counts) {
  std::filesystem::create_directories(std::filesystem::path(o.csv_path).parent_path());
  std::ofstream csv(o.csv_path);
  csv << "variant,threads,rep,n,seconds,mappends_per_s,cpu_seconds,cpu_mappends_per_s,minor_faults\n";
  Measurements m;
  for (int rep = 0; rep < o.reps; ++rep) {
    for (int threads : thread_counts) {
      std::vector<std::string> order = names;
      std::mt19937 shuffle_rng(static_cast<unsigned>(1000 * rep + threads));
      std::shuffle(order.begin(), order.end(), shuffle_rng);
      for (const std::string& name : order) {
        if (o.cooldown > 0) std::this_thread::sleep_for(std::chrono::duration<double>(o.cooldown));
        const long faults0 = minor_faults();
        const double seconds = variants.at(name)(o.n, threads);
        const long faults = minor_faults() - faults0;
        const double rate = double(o.n) / seconds / 1e6;
        // Rate if every thread had had a core to itself: n / (CPU seconds per thread).
        const double cpu_rate = double(o.n) / (last_cpu_seconds / threads) / 1e6;
        m.rates[{name, threads}].push_back(rate);
        m.cpu_rates[{name, threads}].push_back(cpu_rate);
        m.by_run[{threads, rep}][name] = {rate, cpu_rate};
        csv << name << ',' << threads << ',' << rep << ',' << o.n << ',' << seconds << ',' << rate << ','
            << last_cpu_seconds << ',' << cpu_rate << ',' << faults << '\n';
        csv.flush();
        std::fprintf(stderr, "rep %d threads %d %-22s %8.1f M/s (cpu-time %8.1f M/s) %9ld faults\n", rep, threads,
                     name.c_str(), rate, cpu_rate, faults);
      }
    }
  }
  return m;
}

void print_rate_table(const Options& o, const std::vector<std::string>& names, const std::vector<int>& thread_counts,
                      Measurements& m) {
  std::printf("n = %zu appends of %zu bytes, %d reps; M appends/s median (min-max), from wall time and from\n"
              "CPU time per thread (what a thread with a core to itself would do; excludes time asleep on a lock)\n\n",
              o.n, sizeof(Record), o.reps);
  std::printf("| variant | %s |\n|---|", [&] {
    std::string h;
    for (int t : thread_counts) {
      const std::string label = std::to_string(t) + " thread" + (t > 1 ? "s" : "");
      h += (h.empty() ? "" : " | ") + label + " wall | " + label + " cpu";
    }
    return h;
  }().c_str());
  for (std::size_t t = 0; t < 2 * thread_counts.size(); ++t) std::printf("---|");
  std::printf("\n");
  for (const auto& name : names) {
    std::printf("| %s |", name.c_str());
    for (int t : thread_counts) {
      const auto s = nodegen::bench::summarize(m.rates[{name, t}]);
      const auto c = nodegen::bench::summarize(m.cpu_rates[{name, t}]);
      std::printf(" %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) |", s.median, s.min, s.max, c.median, c.min, c.max);
    }
    std::printf("\n");
  }
}

// Same-run ratios for the targets: VM default against vector + mutex and against the faulted limit.
void print_same_run_ratios(int reps, const std::vector<int>& thread_counts, Measurements& m) {
  std::printf("\nsame-run ratios, median (min-max) over reps:\n");
  for (int t : thread_counts) {
    for (const char* vm : {"vm_default_c1", "vm_default_c1024"}) {
      for (int clock = 0; clock < 2; ++clock) {
        auto pick = [clock](const std::pair<double, double>& r) { return clock == 0 ? r.first : r.second; };
        std::vector<double> vs_vector, vs_limit;
        for (int rep = 0; rep < reps; ++rep) {
          auto& run = m.by_run[{t, rep}];
          if (!run.count(vm)) continue;
          if (run.count("vector_mutex")) vs_vector.push_back(pick(run[vm]) / pick(run["vector_mutex"]));
          if (run.count("faulted_limit")) vs_limit.push_back(pick(run[vm]) / pick(run["faulted_limit"]));
        }
        const auto a = nodegen::bench::summarize(vs_vector), b = nodegen::bench::summarize(vs_limit);
        if (!vs_vector.empty() || !vs_limit.empty())
          std::printf("  threads %d %-17s %s: / vector_mutex %.1fx (%.1f-%.1f)   / faulted_limit %.0f%% (%.0f-%.0f)\n",
                      t, vm, clock == 0 ? "wall" : "cpu ", a.median, a.min, a.max, 100 * b.median, 100 * b.min,
                      100 * b.max);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::optional<Options> o = parse_options(argc, argv);
  if (!o) return 2;
  const auto variants = all_variants();
  const std::optional<std::vector<std::string>> names = chosen_variants(variants, o->variants_arg);
  if (!names) return 2;
  std::vector<int> thread_counts;
  for (const auto& t : nodegen::bench::split_list(o->threads_arg)) thread_counts.push_back(std::stoi(t));
  Measurements m = measure(*o, variants, *names, thread_counts);
  print_rate_table(*o, *names, thread_counts, m);
  print_same_run_ratios(o->reps, thread_counts, m);
  return 0;
}
