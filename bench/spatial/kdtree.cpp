// k-d tree benchmark: interleaved insert + exists-within-radius, the node generator's inner
// loop. Each step inserts point i and asks whether any point lies within r of a candidate at a random
// distance in [0.5 r, 1.5 r] from it (the candidate pattern of a PNP fill); r is the radius that
// holds about 6 points at full size.
//
// Point sets: a jittered lattice (quasi-uniform, like generated nodes) of n points in the unit square
// or cube, inserted in random order or in advancing-front order (sorted by distance from a corner).
// Variants: our KdTree on each storage backend with 1 and 2 threads (threads take chunks of 4096
// consecutive steps; each thread inserts and queries through its own KdTree::Finger, as the fill's
// threads do: the query then starts from the path its step's insert has just walked, not from the
// root), and nanoflann's KDTreeSingleIndexDynamicAdaptor (single thread; its adaptor
// reports the current count, so its constructor inserts nothing and addPoints(i, i) adds one point).
//
// A third order, "front-patches" (not in the default run; --orders front-patches), models how the
// parallel fill shares the front between threads (docs/parallel-fill.md): the fill's threads take runs
// of up to 64 queued nodes and place their children, so each thread grows a compact patch of the front
// and two threads meet only where their patches touch. Here the points are sorted into layers one
// lattice spacing thick (by distance from the corner), each layer in Morton order, and threads take
// chunks of 64 consecutive steps: neighbouring patches of the same layer. With "front" (chunks of 4096
// steps of a distance-sorted sequence) the two threads instead work along the whole front at once, a
// few lattice rows apart, and append to the same leaves all the time.
//
// Usage: kdtree [--quick] [--repeats R] [--sizes 1e6,1e7] [--dims 2,3] [--orders random,front,...]
//              [--variants WORD,...]
//   --quick: n = 1e6 only, one repeat. Default: 1e6 with 3 repeats and 1e7 with 1 repeat (~6 min).
//   --variants: only the variants whose "name tN" contains one of the words, e.g. "vm t" (our tree on
//   the VM store, 1 and 2 threads) or "nanoflann,vm t1".
// Output: one markdown table (median steps/s with min-max over repeats, speed-up over nanoflann,
// bytes per point, tree depth).
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/parallel/phase_barrier.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/storage/vm_store.hpp"

#if defined(NODEGEN_HAVE_NANOFLANN)
// nanoflann's copy constructors trip GCC's maybe-uninitialized analysis (root_bbox); not our code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <nanoflann.hpp>
#pragma GCC diagnostic pop
#endif

namespace {

using nodegen::Vec;
using Clock = std::chrono::steady_clock;

enum class Order { random, front, front_patches };

const char* order_name(Order o) {
  return o == Order::random ? "random" : o == Order::front ? "front" : "front-patches";
}

template <int D>
struct Workload {
  std::vector<Vec<D>> points;   // insertion order
  std::vector<Vec<D>> queries;  // candidate of step i
  double radius = 0;
  std::size_t chunk = 4096;  // consecutive steps a thread takes at a time
};

// Bits of the cell coordinates interleaved (Morton order): cells close in space get close keys.
template <int D>
std::uint64_t morton_key(const Vec<D>& p, double h) {
  std::uint64_t key = 0;
  for (int bit = 0; bit < 64 / D; ++bit)
    for (int d = 0; d < D; ++d) {
      const auto cell = static_cast<std::uint64_t>(std::max(0.0, p[d] / h));
      key |= ((cell >> bit) & 1u) << (bit * D + d);
    }
  return key;
}

template <int D>
Workload<D> make_workload(std::size_t n, Order order, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int side = static_cast<int>(std::ceil(std::pow(static_cast<double>(n), 1.0 / D)));
  const double h = 1.0 / side;
  Workload<D> w;
  w.points.reserve(n);
  int index[3] = {0, 0, 0};
  while (w.points.size() < n) {
    Vec<D> p;
    for (int d = 0; d < D; ++d) p[d] = (index[d] + 0.5 + 0.6 * (unit(rng) - 0.5)) * h;
    w.points.push_back(p);
    for (int d = 0; d < D; ++d) {
      if (++index[d] < side) break;
      index[d] = 0;
    }
  }
  if (order == Order::front) {
    std::sort(w.points.begin(), w.points.end(),
              [](const Vec<D>& a, const Vec<D>& b) { return a.squaredNorm() < b.squaredNorm(); });
  } else if (order == Order::front_patches) {
    std::vector<std::pair<std::pair<long, std::uint64_t>, std::size_t>> keyed(n);
    for (std::size_t i = 0; i < n; ++i)
      keyed[i] = {{static_cast<long>(w.points[i].norm() / h), morton_key<D>(w.points[i], h)}, i};
    std::sort(keyed.begin(), keyed.end());
    std::vector<Vec<D>> sorted(n);
    for (std::size_t i = 0; i < n; ++i) sorted[i] = w.points[keyed[i].second];
    w.points = std::move(sorted);
    w.chunk = 64;
  } else {
    std::shuffle(w.points.begin(), w.points.end(), rng);
  }
  // About 6 points within r at full density: area (volume) of the ball = 6 / n.
  const double nd = static_cast<double>(n);
  w.radius = D == 2 ? std::sqrt(6.0 / (M_PI * nd)) : std::cbrt(6.0 / (4.0 / 3.0 * M_PI * nd));
  std::normal_distribution<double> gauss(0.0, 1.0);
  w.queries.reserve(n);
  for (const auto& p : w.points) {
    Vec<D> dir;
    for (int d = 0; d < D; ++d) dir[d] = gauss(rng);
    w.queries.push_back(p + dir.normalized() * w.radius * (0.5 + unit(rng)));
  }
  return w;
}

std::size_t rss_bytes() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<std::size_t>(resident) * 4096;
}

// CPU seconds (user + system) this process has used: the machine is shared, so each run also
// reports how much of its wall time it actually ran (cpu / (wall * threads)).
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

struct Result {
  double steps_per_second = 0;
  double cpu_share = 0;  // cpu seconds / (wall seconds * threads)
  double bytes_per_point = 0;  // tree bytes_used / n (ours) or RSS growth / n (nanoflann)
  double rss_per_point = 0;    // RSS growth during the run / n
  int depth = -1;
  std::size_t hits = 0;
};

template <int D, template <class> class Store>
Result run_ours(const Workload<D>& w, int threads) {
  const std::size_t n = w.points.size();
  malloc_trim(0);
  const std::size_t rss0 = rss_bytes();
  nodegen::KdTree<D, Store> tree(n);
  std::atomic<std::size_t> next{0};
  std::atomic<std::size_t> hits{0};
  const double cpu0 = cpu_seconds();
  const auto start = Clock::now();
  // In rounds of kRound steps, as the fill runs in phases: at the barrier between rounds no thread is
  // in the tree, so the buckets its leaves moved out of become reusable (KdTree::reuse_retired). The
  // fill's phases place a few hundred nodes each; rounds of 2^16 steps held 5-8 more bytes a point.
  constexpr std::size_t kRound = 8192;
  std::size_t round_end = std::min(n, kRound);
  bool done = false;
  std::exception_ptr failure;  // guarded by failure_mutex until the team ends
  std::mutex failure_mutex;
  std::atomic<bool> failed{false};  // the others stop taking chunks
  nodegen::PhaseBarrier barrier(threads);
  nodegen::run_team(threads, [&](int, int) {
    std::size_t local_hits = 0;
    typename nodegen::KdTree<D, Store>::Finger finger;  // this thread's place in the tree, as in the fill
    while (!done) {
      try {  // a throw (a full arena) must still reach the barrier, or the others wait forever
        for (;;) {
          const std::size_t begin = next.fetch_add(w.chunk, std::memory_order_relaxed);
          if (begin >= round_end || failed.load(std::memory_order_relaxed)) break;
          const std::size_t end = std::min(round_end, begin + w.chunk);
          for (std::size_t i = begin; i < end; ++i) {
            tree.insert(w.points[i], static_cast<std::uint32_t>(i), finger);
            local_hits += tree.exists_within(w.queries[i], w.radius, finger) ? 1 : 0;
          }
        }
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
      barrier.arrive_and_wait([&]() noexcept {
        tree.reuse_retired();
        next.store(round_end, std::memory_order_relaxed);
        round_end = std::min(n, round_end + kRound);
        done = next.load(std::memory_order_relaxed) >= n || failed.load(std::memory_order_relaxed);
      });
    }
    hits.fetch_add(local_hits, std::memory_order_relaxed);
  });
  if (failure) std::rethrow_exception(failure);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  Result r;
  r.steps_per_second = static_cast<double>(n) / seconds;
  r.cpu_share = (cpu_seconds() - cpu0) / (seconds * threads);
  r.bytes_per_point = static_cast<double>(tree.bytes_used()) / static_cast<double>(n);
  r.rss_per_point = static_cast<double>(rss_bytes() - rss0) / static_cast<double>(n);
  r.depth = tree.depth();
  r.hits = hits.load();
  return r;
}

#if defined(NODEGEN_HAVE_NANOFLANN)
template <int D>
struct CloudAdaptor {
  const std::vector<Vec<D>>* points;
  std::size_t count = 0;  // the points inserted so far: what the index may see
  std::size_t kdtree_get_point_count() const { return count; }
  double kdtree_get_pt(std::size_t i, std::size_t d) const { return (*points)[i][static_cast<int>(d)]; }
  template <class Box>
  bool kdtree_get_bbox(Box&) const {
    return false;
  }
};

// Stops the search at the first point strictly within the radius (the same early exit as ours).
struct ExistsResultSet {
  using DistanceType = double;
  using IndexType = std::size_t;
  double radius2;
  bool found = false;
  double worstDist() const { return found ? 0.0 : radius2; }
  bool full() const { return found; }
  bool addPoint(double dist2, std::size_t) {
    if (dist2 < radius2) found = true;
    return !found;
  }
};

template <int D>
Result run_nanoflann(const Workload<D>& w) {
  using Index = nanoflann::KDTreeSingleIndexDynamicAdaptor<
      nanoflann::L2_Simple_Adaptor<double, CloudAdaptor<D>>, CloudAdaptor<D>, D>;
  const std::size_t n = w.points.size();
  malloc_trim(0);
  const std::size_t rss0 = rss_bytes();
  CloudAdaptor<D> cloud{&w.points, 0};
  std::size_t hits = 0;
  Result r;
  {
    Index index(D, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(10), n);
    const double radius2 = w.radius * w.radius;
    const double cpu0 = cpu_seconds();
    const auto start = Clock::now();
    for (std::size_t i = 0; i < n; ++i) {
      cloud.count = i + 1;
      index.addPoints(i, i);
      ExistsResultSet result{radius2};
      index.findNeighbors(result, w.queries[i].data(), nanoflann::SearchParams());
      hits += result.found ? 1 : 0;
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    r.steps_per_second = static_cast<double>(n) / seconds;
    r.cpu_share = (cpu_seconds() - cpu0) / seconds;
    r.rss_per_point = static_cast<double>(rss_bytes() - rss0) / static_cast<double>(n);
    r.bytes_per_point = r.rss_per_point;
  }
  r.hits = hits;
  return r;
}
#endif

struct Variant {
  std::string name;
  int threads;
  std::function<Result(const void*)> run;  // takes a const Workload<D>*
};

// Keeps the variants whose "name tN" (e.g. "KdTree vm t2") contains one of the filter words (all when
// the filter is empty).
std::vector<Variant> select(std::vector<Variant> all, const std::vector<std::string>& filter) {
  if (filter.empty()) return all;
  std::vector<Variant> kept;
  for (auto& v : all) {
    const std::string label = v.name + " t" + std::to_string(v.threads);
    for (const auto& word : filter)
      if (label.find(word) != std::string::npos) {
        kept.push_back(std::move(v));
        break;
      }
  }
  return kept;
}

template <int D>
std::vector<Variant> variants() {
  auto wl = [](const void* w) -> const Workload<D>& { return *static_cast<const Workload<D>*>(w); };
  std::vector<Variant> v;
#if defined(NODEGEN_HAVE_NANOFLANN)
  v.push_back({"nanoflann dynamic", 1, [wl](const void* w) { return run_nanoflann<D>(wl(w)); }});
#endif
  for (int t : {1, 2}) {
    v.push_back({"KdTree vm", t, [wl, t](const void* w) { return run_ours<D, nodegen::VmStore>(wl(w), t); }});
    v.push_back({"KdTree suballoc", t,
                 [wl, t](const void* w) { return run_ours<D, nodegen::SuballocStore>(wl(w), t); }});
    v.push_back({"KdTree vector+lock", t,
                 [wl, t](const void* w) { return run_ours<D, nodegen::LockedVectorStore>(wl(w), t); }});
  }
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

template <int D>
void run_case(std::size_t n, Order order, int repeats, const std::vector<std::string>& filter) {
  const auto vs = select(variants<D>(), filter);
  if (vs.empty()) return;
  const Workload<D> w = make_workload<D>(n, order, 42 + n + (order == Order::random ? 0 : 1));
  std::vector<std::vector<Result>> results(vs.size());
  for (int rep = 0; rep < repeats; ++rep) {
    // Alternate the order of variants between repeats so drift in machine noise spreads evenly.
    for (std::size_t k = 0; k < vs.size(); ++k) {
      const std::size_t v = rep % 2 == 0 ? k : vs.size() - 1 - k;
      results[v].push_back(vs[v].run(&w));
      std::fprintf(stderr, "  %dD n=%zu %s %s t=%d: %.3g steps/s (cpu share %.0f%%)\n", D, n,
                   order_name(order), vs[v].name.c_str(), vs[v].threads,
                   results[v].back().steps_per_second, 100 * results[v].back().cpu_share);
    }
  }
  double baseline = 0;
  std::map<std::string, double> single_thread;
  for (std::size_t v = 0; v < vs.size(); ++v) {
    std::vector<double> rate, bytes, rss, share;
    for (const auto& r : results[v]) {
      share.push_back(r.cpu_share);
      rate.push_back(r.steps_per_second);
      bytes.push_back(r.bytes_per_point);
      rss.push_back(r.rss_per_point);
    }
    const double med = median(rate);
    if (vs[v].name.rfind("nanoflann", 0) == 0) baseline = med;
    if (vs[v].threads == 1) single_thread[vs[v].name] = med;
    char speedup[32] = "-";
    if (baseline > 0 && vs[v].name.rfind("nanoflann", 0) != 0)
      std::snprintf(speedup, sizeof speedup, "%.1fx", med / baseline);
    char scaling[32] = "-";
    if (vs[v].threads > 1 && single_thread.count(vs[v].name))
      std::snprintf(scaling, sizeof scaling, "%.2fx", med / single_thread[vs[v].name]);
    const double overhead = median(bytes) - (vs[v].name.rfind("nanoflann", 0) == 0 ? 0.0 : 8.0 * D);
    char depth[16] = "-";
    if (results[v].front().depth >= 0) std::snprintf(depth, sizeof depth, "%d", results[v].front().depth);
    std::printf("| %dD | %.0e | %s | %s | %d | %.3g | %.3g-%.3g | %s | %s | %.1f | %.1f | %.1f | %s | %.0f%% |\n",
                D, static_cast<double>(n), order_name(order), vs[v].name.c_str(), vs[v].threads, med,
                *std::min_element(rate.begin(), rate.end()), *std::max_element(rate.begin(), rate.end()),
                speedup, scaling, median(bytes), overhead, median(rss), depth, 100 * median(share));
    std::fflush(stdout);
  }
}

std::vector<std::string> split_list(const char* s) {
  std::vector<std::string> out;
  std::string item;
  for (const char* c = s;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!item.empty()) out.push_back(item);
      item.clear();
      if (*c == '\0') break;
    } else {
      item += *c;
    }
  }
  return out;
}

std::vector<double> parse_list(const char* s) {
  std::vector<double> out;
  for (const auto& item : split_list(s)) out.push_back(std::atof(item.c_str()));
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false;
  int repeats = -1;
  std::vector<double> sizes, dims{2, 3};
  std::vector<std::string> filter, orders{"random", "front"};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--repeats" && i + 1 < argc) repeats = std::atoi(argv[++i]);
    else if (a == "--sizes" && i + 1 < argc) sizes = parse_list(argv[++i]);
    else if (a == "--dims" && i + 1 < argc) dims = parse_list(argv[++i]);
    else if (a == "--orders" && i + 1 < argc) {
      orders = split_list(argv[++i]);
      for (const auto& o : orders)
        if (o != "random" && o != "front" && o != "front-patches") {
          std::fprintf(stderr, "kdtree: unknown order %s\n", o.c_str());
          return 2;
        }
    }
    else if (a == "--variants" && i + 1 < argc) filter = split_list(argv[++i]);
    else {
      std::fprintf(stderr, "usage: kdtree [--quick] [--repeats R] [--sizes 1e6,1e7] [--dims 2,3] "
                           "[--orders random,front,front-patches] [--variants WORD,...]\n");
      return 2;
    }
  }
  if (sizes.empty()) sizes = quick ? std::vector<double>{1e6} : std::vector<double>{1e6, 1e7};
#if !defined(NODEGEN_HAVE_NANOFLANN)
  std::fprintf(stderr, "kdtree: built without nanoflann (libnanoflann-dev): no baseline column\n");
#endif
  std::printf("| dim | n | order | variant | threads | steps/s (median) | min-max | vs nanoflann | vs 1 thread "
              "| bytes/point | overhead beyond coords | RSS growth/point | depth | CPU share |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (double size : sizes) {
    const auto n = static_cast<std::size_t>(size);
    const int reps = repeats > 0 ? repeats : (quick ? 1 : (n >= 5'000'000 ? 1 : 3));
    for (double dim : dims) {
      for (const auto& order : orders) {
        const Order o = order == "front" ? Order::front
                        : order == "front-patches" ? Order::front_patches
                                                    : Order::random;
        if (dim == 2) run_case<2>(n, o, reps, filter);
        else run_case<3>(n, o, reps, filter);
      }
    }
  }
  return 0;
}
