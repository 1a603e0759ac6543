// KdTree under concurrency: 8 threads (more than the cores) insert and query the same tree at once.
// During the run every query is checked against what is known to be complete at its start: a point
// whose insert returned before the query began (published through a per-thread progress counter) must
// be found, and no point may be reported twice. Afterwards the tree is checked against brute force.
// With fingers, every thread inserts and queries through its own KdTree::Finger (half of its queries
// around its own last point, where the finger's cells hold the ball, half anywhere). Every 64 inserts
// the threads meet at a barrier whose completion makes the retired leaf buckets reusable
// (KdTree::reuse_retired), as the fill's phases do, so later leaves are written into buckets that
// readers scanned before. Built by the tsan preset too.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "support/kdtree_test_checks.hpp"
#include "support/kdtree_test_points.hpp"
#include "nodegen/spatial/arena.hpp"
#include "nodegen/spatial/claim_batches.hpp"
#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/parallel/phase_barrier.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {
namespace {

using test::PointOrder;
constexpr int kThreads = 8;

// For each point, the indices of the points within r (a uniform grid of cell r, independent of the
// tree under test).
template <int D>
std::vector<std::vector<std::uint32_t>> neighbours_within(const std::vector<Vec<D>>& pts, double r) {
  std::map<std::array<long, D>, std::vector<std::uint32_t>> grid;
  auto cell_of = [&](const Vec<D>& p) {
    std::array<long, D> c;
    for (int d = 0; d < D; ++d) c[d] = static_cast<long>(std::floor(p[d] / r));
    return c;
  };
  for (std::size_t i = 0; i < pts.size(); ++i) grid[cell_of(pts[i])].push_back(static_cast<std::uint32_t>(i));
  std::vector<std::vector<std::uint32_t>> out(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const auto c = cell_of(pts[i]);
    const int cells = D == 2 ? 9 : 27;
    for (int k = 0; k < cells; ++k) {
      auto n = c;
      int code = k;
      for (int d = 0; d < D; ++d, code /= 3) n[d] += code % 3 - 1;
      const auto it = grid.find(n);
      if (it == grid.end()) continue;
      for (std::uint32_t j : it->second)
        if ((pts[j] - pts[i]).norm() < r * (1 - 1e-9)) out[i].push_back(j);  // clear of the boundary
    }
  }
  return out;
}

enum class Walk { from_root, fingers };

template <int D, template <class> class Store>
void run_concurrent(PointOrder order, std::size_t per_thread, Walk walk = Walk::from_root) {
  const std::size_t n = per_thread * kThreads;
  const auto pts = test::make_points<D>(order, n, 77);
  const double spacing = std::pow(1.0 / static_cast<double>(n), 1.0 / D);
  const double r = 2.5 * spacing;
  const auto neighbours = neighbours_within<D>(pts, r);

  KdTree<D, Store> tree(n);
  // Thread t inserts points t, t + T, t + 2T, ... so all threads work on the same part of the front.
  std::array<std::atomic<std::size_t>, kThreads> progress{};
  auto completed = [&](const std::array<std::size_t, kThreads>& snapshot, std::uint32_t index) {
    return index / kThreads < snapshot[index % kThreads];
  };
  std::atomic<int> failures{0};
  auto fail = [&] { failures.fetch_add(1, std::memory_order_relaxed); };
  PhaseBarrier quiescent(kThreads);

  run_team(kThreads, [&](int tid, int) {
    std::vector<std::pair<std::uint32_t, double>> knn_out;
    knn_out.reserve(8);
    std::set<std::uint32_t> seen;
    auto finger = std::make_unique<typename KdTree<D, Store>::Finger>();
    const bool fingers = walk == Walk::fingers;
    for (std::size_t j = 0; j < per_thread; ++j) {
      // A throw (a full arena) counts as a failure, and the thread still meets the others at the
      // barrier, which would otherwise wait for it forever.
      try {
        const auto index = static_cast<std::uint32_t>(j * kThreads + static_cast<std::size_t>(tid));
        const Vec<D>& p = pts[index];
        if (fingers) tree.insert(p, index, *finger);
        else tree.insert(p, index);
        progress[static_cast<std::size_t>(tid)].store(j + 1, std::memory_order_release);

        // Own insert: visible at once.
        if (!tree.exists_within(p, 1e-12)) fail();

        // Everything published before this query starts must be found, and only once.
        std::array<std::size_t, kThreads> snapshot;
        for (int u = 0; u < kThreads; ++u)
          snapshot[static_cast<std::size_t>(u)] = progress[static_cast<std::size_t>(u)].load(std::memory_order_acquire);
        const std::uint32_t probe = fingers && j % 2 == 0 ? index : static_cast<std::uint32_t>((index * 7919u) % n);
        const Vec<D>& q = pts[probe];
        seen.clear();
        bool duplicate = false;
        auto check = [&](std::uint32_t id, const Vec<D>& pos) {
          duplicate |= !seen.insert(id).second;
          if (id >= n || pos != pts[id] || (pos - q).norm() >= r) fail();
        };
        if (fingers) tree.for_each_within(q, r, check, *finger);
        else tree.for_each_within(q, r, check);
        if (duplicate) fail();
        std::size_t must = 0;
        for (std::uint32_t k : neighbours[probe]) {
          if (!completed(snapshot, k)) continue;
          ++must;
          if (!seen.count(k)) fail();
        }
        if (must > 0 && !(fingers ? tree.exists_within(q, r, *finger) : tree.exists_within(q, r))) fail();
        if (completed(snapshot, probe)) {
          const auto nn = tree.nearest(q);
          if (!nn || nn->first != probe || nn->second != 0.0) fail();
        }
        if (j % 8 == 0) {
          tree.knn(q, 5, knn_out);
          std::set<std::uint32_t> ids;
          for (std::size_t a = 0; a < knn_out.size(); ++a) {
            ids.insert(knn_out[a].first);
            if (a > 0 && knn_out[a - 1].second > knn_out[a].second) fail();
          }
          if (ids.size() != knn_out.size() || knn_out.size() < std::min<std::size_t>(5, must)) fail();
        }
      } catch (...) {
        fail();
      }
      if (j % 64 == 63) quiescent.arrive_and_wait([&]() noexcept { tree.reuse_retired(); });
    }
  });
  EXPECT_EQ(failures.load(), 0);
  ASSERT_EQ(tree.size(), n);

  // Every point exactly once in a query covering everything.
  std::vector<int> hits(n, 0);
  tree.for_each_within(Vec<D>::Constant(0.5), 1e6, [&](std::uint32_t id, const Vec<D>&) { ++hits[id]; });
  EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), static_cast<long>(n));

  test::check_against_brute_force<D>(tree, pts, n, 40, 5);
  EXPECT_LE(tree.depth(), std::log2(static_cast<double>(n) / KdTree<D>::kLeafSize) + 2 * D + 4);
}

TEST(KdTreeConcurrent, FrontOrder2DVmStore) { run_concurrent<2, VmStore>(PointOrder::front, 2500); }
TEST(KdTreeConcurrent, RandomOrder2DVmStore) { run_concurrent<2, VmStore>(PointOrder::random, 2500); }
TEST(KdTreeConcurrent, FrontOrder3DVmStore) { run_concurrent<3, VmStore>(PointOrder::front, 2000); }
TEST(KdTreeConcurrent, FrontOrder2DLockedVectorStore) {
  run_concurrent<2, LockedVectorStore>(PointOrder::front, 2000);
}
TEST(KdTreeConcurrent, FrontOrder3DSuballocStore) { run_concurrent<3, SuballocStore>(PointOrder::front, 2000); }
TEST(KdTreeConcurrent, FrontOrder2DFingers) { run_concurrent<2, VmStore>(PointOrder::front, 2500, Walk::fingers); }
TEST(KdTreeConcurrent, RandomOrder2DFingers) { run_concurrent<2, VmStore>(PointOrder::random, 2500, Walk::fingers); }
TEST(KdTreeConcurrent, FrontOrder3DFingers) { run_concurrent<3, VmStore>(PointOrder::front, 2000, Walk::fingers); }

// The tree's per-thread claim batches with more threads than stripes (so stripes are shared): every
// slot is handed out at most once, claims of every size (small ones from the batch, large ones
// straight from the arena) are all served, and at most one batch per stripe is left unused.
TEST(KdTreeConcurrent, ClaimBatchesHandOutEachSlotOnce) {
  using Arena = spatial_detail::Arena<VmStore<std::uint32_t>>;
  constexpr int kTeam = 24;
  constexpr std::size_t kBatch = 64;
  constexpr std::size_t kSizes[] = {1, 2, 3, 1, 16, 1, 17, 40};  // 17 and 40 exceed a quarter batch
  constexpr int kClaimsPerThread = 2000;
  Arena arena(std::size_t{1} << 22, VmStoreOptions{});
  spatial_detail::ClaimBatches<Arena> batches(arena, kBatch);
  std::atomic<std::size_t> handed_out{0};
  run_team(kTeam, [&](int tid, int) {
    std::size_t mine = 0;
    for (int k = 0; k < kClaimsPerThread; ++k) {
      const std::size_t n = kSizes[static_cast<std::size_t>(k + tid) % std::size(kSizes)];
      const std::size_t first = batches.claim(n);
      for (std::size_t i = first; i < first + n; ++i)
        arena.with(i, [](std::uint32_t& slot) { std::atomic_ref<std::uint32_t>(slot).fetch_add(1); });
      mine += n;
    }
    handed_out.fetch_add(mine);
  });
  std::size_t once = 0, more = 0;
  for (std::size_t i = 0; i < arena.size(); ++i)
    arena.with(i, [&](std::uint32_t& slot) {
      once += slot == 1 ? 1 : 0;
      more += slot > 1 ? 1 : 0;
    });
  EXPECT_EQ(more, 0u);
  EXPECT_EQ(once, handed_out.load());
  EXPECT_LE(arena.size() - once, spatial_detail::kClaimStripes * kBatch);
}

}  // namespace
}  // namespace nodegen
