// The Collatz experiment of "A Resizable C++ Container using Virtual Memory" (section 4): for every i in
// [1, n) the orbit length (steps to reach 1), memoised in a container limited to a maximum size M.
// Successors at or above M are iterated without storing them. Variants (the paper's four):
//   vector_empty   std::vector starting empty, resized to hold each successor it meets
//   vector_target  std::vector constructed with n elements, resized beyond that on demand
//   vector_max     std::vector constructed with M elements (never resized)
//   vm             VmStore of M elements (default options: 4 KiB pages): nothing moves, pages commit on
//                  first touch, so sparse memo entries commit 4 KiB each
//   vm_thp         the same with huge_pages = true: every memo entry touched commits its whole 2 MiB
//   vm_sparse      VmSparseArray of M elements: the same reservation, plus a bitmap of written pages so a
//                  lookup of a never-written page answers "not computed" without touching it. A plain
//                  VM memo reads before it writes: the read maps the shared zero page, the write then
//                  copies it, and that PTE replacement flushes the TLB of every other CPU running the
//                  process (an IPI per page; with 2 threads most of the run, see vm_sparse_array.hpp)
//   vm_sparse_thp  the same with huge pages
// With more than one thread the vectors sit under a readers-writer lock (std::shared_mutex): lookups
// and memo writes under the shared lock, resizes under the exclusive one; the VM store takes no lock.
// Memo entries are read and written with relaxed atomic_ref (two threads may store the same value).
// Setup, compute and resize (wall time inside resizes, which hold the exclusive lock) are reported
// separately; total = setup + compute + resize.
//
//   collatz [--n 1e5,1e6,1e7] [--threads 1,2,4] [--reps 3] [--max-bytes 1073741824]
//           [--variants vector_empty,vector_target,vector_max,vm,vm_thp,vm_sparse,vm_sparse_thp] [--csv output/collatz.csv]
//           [--once-n 1e8 --once-threads 1,2]   (extra sizes run once, e.g. the largest n)
//
// Every run's checksum (sum of orbit lengths) must agree across variants; the program exits 1 otherwise.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/storage/vm_sparse_array.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace {

using nodegen::bench::now_seconds;
using Orbit = std::uint32_t;

std::uint64_t successor(std::uint64_t k) { return (k & 1) ? 3 * k + 1 : k / 2; }

// Memo backends. read(x) = 0 means "not computed" (x >= 2); ensure(x) makes x addressable.
class VmMemo {
 public:
  VmMemo(std::size_t max_elements, std::size_t /*n*/, nodegen::VmStoreOptions options)
      : store_(max_elements, options) {
    store_.claim(max_elements);  // claims address space only: no page is touched
  }
  static constexpr bool kResizes = false;
  void ensure(std::uint64_t) {}
  Orbit read(std::uint64_t x) { return std::atomic_ref<Orbit>(store_[x]).load(std::memory_order_relaxed); }
  void write(std::uint64_t x, Orbit v) { std::atomic_ref<Orbit>(store_[x]).store(v, std::memory_order_relaxed); }
  double resize_seconds() const { return 0; }

 private:
  nodegen::VmStore<Orbit> store_;
};

class VmSparseMemo {
 public:
  VmSparseMemo(std::size_t max_elements, std::size_t /*n*/, nodegen::VmSparseArrayOptions options)
      : values_(max_elements, options) {}
  static constexpr bool kResizes = false;
  void ensure(std::uint64_t) {}
  Orbit read(std::uint64_t x) { return values_.get(x); }
  void write(std::uint64_t x, Orbit v) { values_.set(x, v); }
  double resize_seconds() const { return 0; }

 private:
  nodegen::VmSparseArray<Orbit> values_;
};

template <bool Locked>
class VectorMemo {
 public:
  enum class Start { empty, target, max };
  VectorMemo(std::size_t max_elements, std::size_t n, Start start)
      : values_(start == Start::empty ? 0 : start == Start::target ? n : max_elements) {}
  static constexpr bool kResizes = true;

  void ensure(std::uint64_t x) {
    if constexpr (Locked) {
      {
        std::shared_lock lock(mutex_);
        if (x < values_.size()) return;
      }
      std::unique_lock lock(mutex_);
      grow(x);
    } else {
      if (x >= values_.size()) grow(x);
    }
  }
  Orbit read(std::uint64_t x) {
    maybe_shared lock(mutex_);
    return std::atomic_ref<Orbit>(values_[x]).load(std::memory_order_relaxed);
  }
  void write(std::uint64_t x, Orbit v) {
    maybe_shared lock(mutex_);
    std::atomic_ref<Orbit>(values_[x]).store(v, std::memory_order_relaxed);
  }
  double resize_seconds() const { return resize_seconds_; }

 private:
  struct no_lock {
    explicit no_lock(std::shared_mutex&) {}
  };
  using maybe_shared = std::conditional_t<Locked, std::shared_lock<std::shared_mutex>, no_lock>;

  void grow(std::uint64_t x) {  // caller holds the exclusive lock (or is alone)
    if (x < values_.size()) return;
    const double t0 = now_seconds();
    values_.resize(x + 1);  // libstdc++ grows capacity geometrically, as push_back would
    resize_seconds_ += now_seconds() - t0;
  }

  std::vector<Orbit> values_;
  std::shared_mutex mutex_;
  double resize_seconds_ = 0;
};

// Orbit lengths of every i in [1, n), each thread taking interleaved chunks of 4096 values. Returns the
// sum of all orbit lengths (the checksum).
template <class Memo>
std::uint64_t compute_orbits(Memo& memo, std::uint64_t n, std::uint64_t max_elements, int threads) {
  std::atomic<std::uint64_t> checksum{0};
  nodegen::run_team(threads, [&](int tid, int nt) {
    std::vector<std::pair<std::uint64_t, Orbit>> chain;  // (value < M, steps to the next stored value)
    chain.reserve(4096);
    std::uint64_t local_sum = 0;
    constexpr std::uint64_t kChunk = 4096;
    for (std::uint64_t start = 1 + std::uint64_t(tid) * kChunk; start < n; start += std::uint64_t(nt) * kChunk) {
      const std::uint64_t stop = std::min(n, start + kChunk);
      for (std::uint64_t i = start; i < stop; ++i) {
        // Walk forward until a known orbit (or 1), remembering the stored values passed on the way.
        std::uint64_t cur = i;
        Orbit base = 0;
        chain.clear();
        while (cur != 1) {
          memo.ensure(cur);
          const Orbit known = memo.read(cur);
          if (known != 0) {
            base = known;
            break;
          }
          std::uint64_t next = successor(cur);
          Orbit steps = 1;
          while (next >= max_elements) {
            next = successor(next);
            ++steps;
          }
          chain.emplace_back(cur, steps);
          cur = next;
        }
        // Unwind: each value's orbit is its successor's plus the steps between them.
        Orbit length = base;
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
          length += it->second;
          memo.write(it->first, length);
        }
        local_sum += i == 1 ? 0 : (chain.empty() ? base : length);
      }
    }
    checksum.fetch_add(local_sum, std::memory_order_relaxed);
  });
  return checksum.load();
}

struct Timing {
  double setup = 0, compute = 0, resize = 0;
  double cpu = 0;  // CPU seconds of all threads over setup + compute (excludes waiting for a core)
  std::uint64_t checksum = 0;
};

template <class Memo, class... Args>
Timing run_variant(std::uint64_t n, std::uint64_t max_elements, int threads, Args... args) {
  Timing t;
  const double cpu0 = nodegen::bench::process_cpu_seconds();
  const double t0 = now_seconds();
  Memo memo(max_elements, n, args...);
  t.setup = now_seconds() - t0;
  const double t1 = now_seconds();
  t.checksum = compute_orbits(memo, n, max_elements, threads);
  t.resize = memo.resize_seconds();
  // Resizes run under the exclusive lock (all other threads wait), so their time is wall time inside
  // the compute window: take it out of compute.
  t.compute = now_seconds() - t1 - t.resize;
  t.cpu = nodegen::bench::process_cpu_seconds() - cpu0;
  return t;
}

Timing run(const std::string& variant, std::uint64_t n, std::uint64_t max_elements, int threads) {
  if (variant == "vm") return run_variant<VmMemo>(n, max_elements, threads, nodegen::VmStoreOptions{});
  if (variant == "vm_thp")
    return run_variant<VmMemo>(n, max_elements, threads, nodegen::VmStoreOptions{.huge_pages = true});
  if (variant == "vm_sparse")
    return run_variant<VmSparseMemo>(n, max_elements, threads, nodegen::VmSparseArrayOptions{});
  if (variant == "vm_sparse_thp")
    return run_variant<VmSparseMemo>(n, max_elements, threads, nodegen::VmSparseArrayOptions{.huge_pages = true});
  auto vector_run = [&](auto start) {
    if (threads > 1) return run_variant<VectorMemo<true>>(n, max_elements, threads, VectorMemo<true>::Start(start));
    return run_variant<VectorMemo<false>>(n, max_elements, threads, VectorMemo<false>::Start(start));
  };
  using S = VectorMemo<false>::Start;
  if (variant == "vector_empty") return vector_run(S::empty);
  if (variant == "vector_target") return vector_run(S::target);
  if (variant == "vector_max") return vector_run(S::max);
  throw std::invalid_argument("unknown variant " + variant);
}

std::vector<std::uint64_t> parse_sizes(const std::string& text) {
  std::vector<std::uint64_t> out;
  for (const auto& s : nodegen::bench::split_list(text)) out.push_back(static_cast<std::uint64_t>(std::stod(s)));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::string n_arg = "1e5,1e6,1e7", threads_arg = "1,2,4", once_n_arg, once_threads_arg = "1,2";
  std::string variants_arg = "vector_empty,vector_target,vector_max,vm,vm_thp,vm_sparse,vm_sparse_thp", csv_path = "output/collatz.csv";
  int reps = 3;
  std::uint64_t max_bytes = std::uint64_t{1} << 30;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--n") n_arg = value;
    else if (key == "--threads") threads_arg = value;
    else if (key == "--reps") reps = std::stoi(value);
    else if (key == "--max-bytes") max_bytes = static_cast<std::uint64_t>(std::stod(value));
    else if (key == "--variants") variants_arg = value;
    else if (key == "--csv") csv_path = value;
    else if (key == "--once-n") once_n_arg = value;
    else if (key == "--once-threads") once_threads_arg = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  const std::uint64_t max_elements = max_bytes / sizeof(Orbit);
  const auto variants = nodegen::bench::split_list(variants_arg);
  // (n, threads, reps) cells: the main grid, then the run-once sizes.
  struct Cell {
    std::uint64_t n;
    int threads, reps;
  };
  std::vector<Cell> cells;
  for (auto n : parse_sizes(n_arg))
    for (const auto& t : nodegen::bench::split_list(threads_arg)) cells.push_back({n, std::stoi(t), reps});
  for (auto n : parse_sizes(once_n_arg))
    for (const auto& t : nodegen::bench::split_list(once_threads_arg)) cells.push_back({n, std::stoi(t), 1});
  for (const auto& c : cells)
    if (c.n > max_elements) {
      std::fprintf(stderr, "n = %llu exceeds the maximum size %llu\n", (unsigned long long)c.n,
                   (unsigned long long)max_elements);
      return 2;
    }

  std::filesystem::create_directories(std::filesystem::path(csv_path).parent_path());
  std::ofstream csv(csv_path);
  csv << "variant,n,threads,rep,max_elements,setup_s,compute_s,resize_s,total_s,cpu_s,checksum\n";
  bool checksums_agree = true;
  // (n * 100 + threads, variant) -> wall totals / CPU seconds
  std::map<std::pair<std::uint64_t, std::string>, std::vector<double>> totals, cpus;
  for (const auto& cell : cells) {
    std::uint64_t reference = 0;
    for (int rep = 0; rep < cell.reps; ++rep) {
      for (std::size_t k = 0; k < variants.size(); ++k) {
        const std::string& variant = variants[(k + std::size_t(rep)) % variants.size()];
        const Timing t = run(variant, cell.n, max_elements, cell.threads);
        const double total = t.setup + t.compute + t.resize;
        if (reference == 0) reference = t.checksum;
        if (t.checksum != reference) {
          std::fprintf(stderr, "CHECKSUM MISMATCH %s n=%llu threads=%d: %llu != %llu\n", variant.c_str(),
                       (unsigned long long)cell.n, cell.threads, (unsigned long long)t.checksum,
                       (unsigned long long)reference);
          checksums_agree = false;
        }
        csv << variant << ',' << cell.n << ',' << cell.threads << ',' << rep << ',' << max_elements << ','
            << t.setup << ',' << t.compute << ',' << t.resize << ',' << total << ',' << t.cpu << ','
            << t.checksum << '\n';
        csv.flush();
        totals[{cell.n * 100 + std::uint64_t(cell.threads), variant}].push_back(total);
        cpus[{cell.n * 100 + std::uint64_t(cell.threads), variant}].push_back(t.cpu);
        std::fprintf(stderr, "n=%-10llu threads=%d %-14s setup %.3f compute %.3f resize %.3f total %.3f s (cpu %.3f s)\n",
                     (unsigned long long)cell.n, cell.threads, variant.c_str(), t.setup, t.compute, t.resize,
                     total, t.cpu);
      }
    }
  }
  // Two tables: wall seconds (what the paper plots) and CPU seconds of all threads (immune to waiting
  // for a core on a shared machine, but blind to time asleep on a lock).
  for (int table = 0; table < 2; ++table) {
    auto& data = table == 0 ? totals : cpus;
    std::printf("%smax size %llu elements (%llu MiB); %s median (min-max)\n\n| n | threads |", table ? "\n" : "",
                (unsigned long long)max_elements, (unsigned long long)(max_bytes >> 20),
                table == 0 ? "total wall seconds" : "CPU seconds (all threads)");
    for (const auto& v : variants) std::printf(" %s |", v.c_str());
    std::printf(" best vector / best vm |\n|---|---|");
    for (std::size_t k = 0; k < variants.size() + 1; ++k) std::printf("---|");
    std::printf("\n");
    std::set<std::uint64_t> printed;
    for (const auto& cell : cells) {
      const std::uint64_t key = cell.n * 100 + std::uint64_t(cell.threads);
      if (!printed.insert(key).second) continue;
      std::printf("| %.0e | %d |", double(cell.n), cell.threads);
      double vm = 0, best_vector = 1e300;
      for (const auto& v : variants) {
        const auto s = nodegen::bench::summarize(data[{key, v}]);
        std::printf(" %.3f (%.3f-%.3f) |", s.median, s.min, s.max);
        if (v.rfind("vm", 0) == 0) vm = vm > 0 ? std::min(vm, s.median) : s.median;
        else best_vector = std::min(best_vector, s.median);
      }
      if (vm > 0 && best_vector < 1e300) std::printf(" %.1fx |\n", best_vector / vm);
      else std::printf(" - |\n");
    }
  }
  return checksums_agree ? 0 : 1;
}
