// KdTree, single-threaded: every query type against brute force on random, clustered and
// front-ordered points in 2D and 3D, on each storage backend; depth on front-ordered input; memory
// per point (and its independence of n); edge cases (empty tree, strict radius, coincident points, far points).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

#include "support/kdtree_test_checks.hpp"
#include "support/kdtree_test_points.hpp"
#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/storage/vm_store.hpp"
#include "support/sanitized_build.hpp"

namespace nodegen {
namespace {

using test::PointOrder;

template <int Dim, template <class> class StoreT, int LeafSize = 32>
struct Config {
  static constexpr int D = Dim;
  using Tree = KdTree<Dim, StoreT, LeafSize>;
};

template <class C>
class KdTreeTyped : public ::testing::Test {};

#if NODEGEN_TEST_SANITIZED
// Under the sanitizers (whose build of the eight configurations alone is slow) each backend and
// each leaf size once, the dimensions alternating; the release run checks every pair.
using Configs = ::testing::Types<Config<2, VmStore>, Config<3, LockedVectorStore>, Config<2, SuballocStore>,
                                 Config<3, VmStore, 64>>;
#else
using Configs = ::testing::Types<Config<2, VmStore>, Config<3, VmStore>, Config<2, LockedVectorStore>,
                                 Config<3, LockedVectorStore>, Config<2, SuballocStore>,
                                 Config<3, SuballocStore>,
                                 Config<2, VmStore, 64>, Config<3, VmStore, 64>>;  // the fill's leaf size
#endif
TYPED_TEST_SUITE(KdTreeTyped, Configs);

TYPED_TEST(KdTreeTyped, EveryQueryMatchesBruteForce) {
  constexpr int D = TypeParam::D;
  for (PointOrder order : {PointOrder::random, PointOrder::clustered, PointOrder::front, PointOrder::sweep}) {
    SCOPED_TRACE(test::order_name(order));
    const auto pts = test::make_points<D>(order, 4000, 11 + static_cast<int>(order));
    typename TypeParam::Tree tree(pts.size());
    // Check part-way too: a tree with few points (root still a leaf) and one mid-way.
    std::size_t inserted = 0;
    for (std::size_t stop : {std::size_t{20}, std::size_t{700}, pts.size()}) {
      for (; inserted < stop; ++inserted) {
        tree.insert(pts[inserted], static_cast<std::uint32_t>(inserted));
        if (inserted % 16 == 0) tree.reuse_retired();  // later leaves reuse the buckets of earlier ones
      }
      ASSERT_EQ(tree.size(), inserted);
      test::check_against_brute_force<D>(tree, pts, inserted, 60, 100 + stop);
      if (this->HasFatalFailure()) return;
    }
  }
}

TYPED_TEST(KdTreeTyped, EachInsertIsVisibleToTheNextQuery) {
  constexpr int D = TypeParam::D;
  const auto pts = test::make_points<D>(PointOrder::front, 3000, 5);
  typename TypeParam::Tree tree(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) {
    tree.insert(pts[i], static_cast<std::uint32_t>(i));
    ASSERT_TRUE(tree.exists_within(pts[i], 1e-12)) << i;
    const auto nn = tree.nearest(pts[i]);
    ASSERT_TRUE(nn && nn->first == i && nn->second == 0.0) << i;
  }
}

// A grid tree keeps its points rounded to the grid: every query type matches brute force over the
// rounded points (positions reported exactly as rounded, distances up to the query's rounding against
// the grid), in every order, and a node is left out by its own coordinates as by its rounded ones.
template <int D>
void check_grid_tree() {
  for (PointOrder order : {PointOrder::random, PointOrder::clustered, PointOrder::front}) {
    SCOPED_TRACE(test::order_name(order));
    const auto pts = test::make_points<D>(order, 3000, 21 + static_cast<int>(order));
    Vec<D> lo = pts[0], hi = pts[0];
    for (const auto& p : pts) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
    const GridFrame<D> frame = GridFrame<D>::around(lo.data(), hi.data());
    KdTree<D, VmStore, 64, PointIds::kept, Coords::grid> tree(pts.size(), frame);
    std::vector<Vec<D>> kept(pts.size());
    std::size_t moved = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      tree.insert(pts[i], static_cast<std::uint32_t>(i));
      kept[i] = tree.kept(pts[i]);
      for (int d = 0; d < D; ++d) ASSERT_EQ(kept[i][d], frame.round(pts[i][d], d));
      moved += kept[i] != pts[i] ? 1 : 0;
      if (i % 16 == 0) tree.reuse_retired();
    }
    EXPECT_GT(moved, pts.size() / 2) << "the points should not already lie on the grid";
    ASSERT_EQ(tree.size(), pts.size());
    test::check_against_brute_force<D>(tree, kept, pts.size(), 60, 300);
    if (::testing::Test::HasFatalFailure()) return;
    // The caller's own point is left out by its original coordinates as by its kept ones.
    for (std::size_t i = 0; i < pts.size(); i += 97) {
      const double r = 1e-6;
      bool other = false;  // another point within r (brute force over the rounded points)
      for (std::size_t j = 0; j < pts.size(); ++j) other = other || (j != i && (kept[j] - pts[i]).norm() < r);
      EXPECT_TRUE(tree.exists_within(pts[i], r));
      EXPECT_EQ(tree.exists_within(pts[i], r, pts[i]), other);
      EXPECT_EQ(tree.exists_within(pts[i], r, kept[i]), other);
    }
  }
}
TEST(KdTree, GridTreeAnswersOverItsRoundedPoints2D) { check_grid_tree<2>(); }
TEST(KdTree, GridTreeAnswersOverItsRoundedPoints3D) { check_grid_tree<3>(); }

TEST(KdTree, GridTreeRefusesAPointOffItsFrameAndGoesOn) {
  const double lo[2] = {0, 0}, hi[2] = {1, 1};
  KdTree<2, VmStore, 32, PointIds::kept, Coords::grid> tree(100, GridFrame<2>::around(lo, hi));
  tree.insert(Vec<2>(0.5, 0.5), 1);
  EXPECT_THROW(tree.insert(Vec<2>(0.5, 3.0), 2), std::out_of_range);
  EXPECT_THROW(tree.insert(Vec<2>(-2.0, 0.5), 3), std::out_of_range);
  tree.insert(Vec<2>(1.2, -0.2), 4);  // within the frame's margin
  EXPECT_EQ(tree.size(), 2u);
  EXPECT_FALSE(tree.exists_within(Vec<2>(0.5, 3.0), 1.0));
  EXPECT_TRUE(tree.exists_within(Vec<2>(1.2, -0.2), 1e-9));
  EXPECT_FALSE(tree.exists_within(Vec<2>(0.5, 0.5), 1e-9, Vec<2>(0.5, 0.5)));
  EXPECT_TRUE(tree.exists_within(Vec<2>(0.5, 0.5), 0.1, Vec<2>(0.5, 9e9)));  // an `except` off the frame is no point
}

TEST(KdTree, EmptyTreeAnswersNothing) {
  KdTree<2> tree(100);
  const Vec<2> q(0.5, 0.5);
  EXPECT_FALSE(tree.exists_within(q, 1e9));
  EXPECT_FALSE(tree.nearest(q).has_value());
  std::vector<std::pair<std::uint32_t, double>> out{{1, 1.0}};
  tree.knn(q, 3, out);
  EXPECT_TRUE(out.empty());
  int calls = 0;
  tree.for_each_within(q, 1e9, [&](std::uint32_t, const Vec<2>&) { ++calls; });
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(tree.size(), 0u);
  EXPECT_EQ(tree.depth(), 0);
}

TEST(KdTree, RadiusIsStrict) {
  KdTree<2> tree(10);
  tree.insert(Vec<2>(0.0, 0.0), 7);
  EXPECT_FALSE(tree.exists_within(Vec<2>(0.5, 0.0), 0.5));
  EXPECT_TRUE(tree.exists_within(Vec<2>(0.5, 0.0), std::nextafter(0.5, 1.0)));
  EXPECT_FALSE(tree.exists_within(Vec<2>(0.5, 0.0), 0.0));
  EXPECT_FALSE(tree.exists_within(Vec<2>(0.5, 0.0), -1.0));
}

TEST(KdTree, CoincidentPointsUpToALeafAreKeptBeyondThrowWithoutDamage) {
  using Tree = KdTree<3>;
  Tree tree(1000);
  const Vec<3> p(1.0, 2.0, 3.0);
  for (int i = 0; i < Tree::kLeafSize; ++i) tree.insert(p, static_cast<std::uint32_t>(i));
  EXPECT_THROW(tree.insert(p, 999), std::length_error);
  // Other points still go in (they separate from the cluster), and nothing was lost.
  tree.insert(Vec<3>(5.0, 2.0, 3.0), 1000);
  tree.insert(Vec<3>(1.0, 2.0, 3.5), 1001);
  int count = 0;
  tree.for_each_within(p, 1e-9, [&](std::uint32_t id, const Vec<3>& pos) {
    EXPECT_LT(id, static_cast<std::uint32_t>(Tree::kLeafSize));
    EXPECT_EQ(pos, p);
    ++count;
  });
  EXPECT_EQ(count, Tree::kLeafSize);
  EXPECT_EQ(tree.nearest(Vec<3>(4.9, 2.0, 3.0))->first, 1000u);
}

TEST(KdTree, RejectsNonFiniteCoordinates) {
  KdTree<2> tree(10);
  EXPECT_THROW(tree.insert(Vec<2>(std::numeric_limits<double>::quiet_NaN(), 0.0), 0), std::invalid_argument);
  EXPECT_THROW(tree.insert(Vec<2>(0.0, std::numeric_limits<double>::infinity()), 0), std::invalid_argument);
  EXPECT_EQ(tree.size(), 0u);
}

TEST(KdTree, GrowsTheRootForPointsFarOutside) {
  // The root cell is set from the first points, then must double many times in every direction.
  const auto near = test::make_points<2>(PointOrder::random, 200, 3);
  std::vector<Vec<2>> pts;
  for (const auto& p : near) pts.push_back(p * 1e-3);
  for (double s : {1.0, -1.0}) {
    for (double far : {1e2, 1e5, 1e9}) {
      pts.push_back(Vec<2>(s * far, 0.0));
      pts.push_back(Vec<2>(0.0, s * far));
      pts.push_back(Vec<2>(s * far, -s * far));
    }
  }
  KdTree<2> tree(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) tree.insert(pts[i], static_cast<std::uint32_t>(i));
  test::check_against_brute_force<2>(tree, pts, pts.size(), 100, 9);
}

// Inserts and queries through a finger give exactly what the walks from the root give: on a lattice
// whose coordinates are the midpoint splits' own (so balls end exactly on cell faces), in front order,
// and with the root growing under the finger.
template <int D>
void expect_finger_walks_match_root_walks(const std::vector<Vec<D>>& pts) {
  KdTree<D> tree(pts.size());
  typename KdTree<D>::Finger finger;
  std::vector<std::uint32_t> a, b;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    tree.insert(pts[i], static_cast<std::uint32_t>(i), finger);
    if (i % 7 != 0) continue;
    for (double r : {1.0 / 64, 2.0 / 64, 3.0 / 64 + 1e-17, 0.3, 1e12}) {
      a.clear();
      b.clear();
      tree.for_each_within(pts[i], r, [&](std::uint32_t id, const Vec<D>&) { a.push_back(id); });
      tree.for_each_within(pts[i], r, [&](std::uint32_t id, const Vec<D>&) { b.push_back(id); }, finger);
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      ASSERT_EQ(a, b) << "point " << i << " r " << r;
      ASSERT_EQ(tree.exists_within(pts[i], r, finger), tree.exists_within(pts[i], r)) << "point " << i << " r " << r;
      ASSERT_EQ(tree.exists_within(pts[i], r, pts[i], finger), tree.exists_within(pts[i], r, pts[i]))
          << "point " << i << " r " << r;
    }
  }
  EXPECT_EQ(tree.size(), pts.size());
  test::check_against_brute_force<D>(tree, pts, pts.size(), 50, 13);
}

TEST(KdTree, FingerWalksMatchRootWalksOnALattice2D) {
  std::vector<Vec<2>> pts;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) pts.push_back(Vec<2>(i / 64.0, j / 64.0));
  expect_finger_walks_match_root_walks<2>(pts);
}
TEST(KdTree, FingerWalksMatchRootWalksOnALattice3D) {
  std::vector<Vec<3>> pts;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      for (int k = 0; k < 16; ++k) pts.push_back(Vec<3>(i / 64.0, j / 64.0, k / 64.0));
  expect_finger_walks_match_root_walks<3>(pts);
}
TEST(KdTree, FingerWalksMatchRootWalksInFrontOrder) {
  expect_finger_walks_match_root_walks<2>(test::make_points<2>(PointOrder::front, 5000, 8));
  expect_finger_walks_match_root_walks<3>(test::make_points<3>(PointOrder::front, 5000, 8));
}
TEST(KdTree, FingerWalksMatchRootWalksWhileTheRootGrows) {
  std::vector<Vec<2>> pts;
  for (const auto& p : test::make_points<2>(PointOrder::random, 300, 4)) pts.push_back(p * 1e-3);
  for (double far : {1e2, -1e4, 1e7})
    for (int k = 0; k < 40; ++k) pts.push_back(Vec<2>(far + k * 1e-3, -far + k * 2e-3));
  expect_finger_walks_match_root_walks<2>(pts);
}

// Depth on front-ordered input must stay logarithmic; a median-split bucket tree would reach about
// n / (LeafSize / 2) on the sweep order.
template <int D>
void expect_logarithmic_depth(std::size_t n) {
  for (PointOrder order : {PointOrder::front, PointOrder::sweep, PointOrder::random}) {
    const auto pts = test::make_points<D>(order, n, 21);
    KdTree<D> tree(n);
    for (std::size_t i = 0; i < n; ++i) tree.insert(pts[i], static_cast<std::uint32_t>(i));
    const double bound = std::log2(static_cast<double>(n) / KdTree<D>::kLeafSize) + 2 * D + 4;
    EXPECT_LE(tree.depth(), bound) << test::order_name(order) << " n=" << n;
  }
}
TEST(KdTree, DepthIsLogarithmicOnFrontOrderedInput2D) { expect_logarithmic_depth<2>(200000); }
TEST(KdTree, DepthIsLogarithmicOnFrontOrderedInput3D) { expect_logarithmic_depth<3>(100000); }

// The tree's budget: at most 32 bytes per point of tree overhead beyond the coordinates.
template <int D>
void expect_overhead_at_most_32_bytes(std::size_t n) {
  for (PointOrder order : {PointOrder::front, PointOrder::random}) {
    const auto pts = test::make_points<D>(order, n, 4);
    KdTree<D> tree(n);
    for (std::size_t i = 0; i < n; ++i) {
      tree.insert(pts[i], static_cast<std::uint32_t>(i));
      tree.reuse_retired();  // one thread: any moment is quiescent
    }
    const double overhead = static_cast<double>(tree.bytes_used()) / n - D * sizeof(double);
    EXPECT_LE(overhead, 32.0) << test::order_name(order);
  }
}
TEST(KdTree, OverheadPerPoint2D) { expect_overhead_at_most_32_bytes<2>(100000); }
TEST(KdTree, OverheadPerPoint3D) { expect_overhead_at_most_32_bytes<3>(100000); }

// Leaves keep their points in buckets of the size class they need (kdtree_buckets.hpp), so the
// tree's bytes per point stay close to the points' own 8 D + 4 (coordinates and id) wherever n falls
// between two generations of leaf splits. With one bucket size for every leaf the figure swung widely
// over a doubling of n (measured: bench/RESULTS.md, K-d tree).
template <int D>
void expect_bytes_per_point_flat_in_n() {
  const double own = 8.0 * D + 4;
  for (std::size_t n : {100000, 119000, 141000, 168000, 200000}) {
    const auto pts = test::make_points<D>(PointOrder::front, n, 6);
    KdTree<D> tree(n);
    for (std::size_t i = 0; i < n; ++i) {
      tree.insert(pts[i], static_cast<std::uint32_t>(i));
      tree.reuse_retired();
    }
    const double per_point = static_cast<double>(tree.bytes_used()) / static_cast<double>(n);
    EXPECT_LE(per_point, 1.1 * own + 3.0) << "n=" << n;
  }
}
TEST(KdTree, BytesPerPointStayLowForEveryN2D) { expect_bytes_per_point_flat_in_n<2>(); }
TEST(KdTree, BytesPerPointStayLowForEveryN3D) { expect_bytes_per_point_flat_in_n<3>(); }

// A retired bucket is reused only after reuse_retired() (a quiescent point of the tree's users): until
// then every move claims a fresh bucket, so a tree whose owner never calls it holds the buckets its
// leaves grew through besides the live ones (several times the live bytes here); one that calls it
// holds about the live ones.
TEST(KdTree, RetiredBucketsAreReusedOnlyAfterAQuiescentPoint) {
  const std::size_t n = 50000;
  const auto pts = test::make_points<2>(PointOrder::front, n, 8);
  KdTree<2> never(n), always(n);
  for (std::size_t i = 0; i < n; ++i) {
    never.insert(pts[i], static_cast<std::uint32_t>(i));
    always.insert(pts[i], static_cast<std::uint32_t>(i));
    always.reuse_retired();
  }
  EXPECT_EQ(never.size(), n);
  // Live leaves' slots (20 bytes a point slot with its id) and their 16-byte headers, about one per 16
  // slots; internal nodes, 16 bytes per leaf; the claim batches, 8 KiB per class.
  const auto live_bytes = [](const KdTree<2>& t) { return (20.0 + 2 * 16.0 / 16) * static_cast<double>(t.leaf_capacity()) + 8 * 8192; };
  EXPECT_LT(static_cast<double>(always.bytes_used()), 1.1 * live_bytes(always));
  EXPECT_GT(static_cast<double>(never.bytes_used()), 1.5 * live_bytes(never));
  test::check_against_brute_force<2>(always, pts, n, 40, 3);
}

// Inserts pts[from, to) from a new thread, waited for. Threads started one after the other get
// different claim stripes (claim_batches.hpp), i.e. different writer tags (kdtree_buckets.hpp).
template <int D>
void insert_from_new_thread(KdTree<D>& tree, const std::vector<Vec<D>>& pts, std::size_t from, std::size_t to) {
  std::thread([&] {
    for (std::size_t i = from; i < to; ++i) tree.insert(pts[i], static_cast<std::uint32_t>(i));
  }).join();
}

// A leaf that a second thread has appended to moves straight to the largest class at its next growth
// (kdtree.hpp, grow_leaf: fewer moves of the leaves two threads fill together); a leaf one thread
// fills grows one class (4 slots) at a time. The root leaf here: classes 4, 8, 12, ..., 32.
TEST(KdTree, ALeafTwoThreadsAppendToGrowsStraightToFullSize) {
  std::vector<Vec<2>> pts;
  for (int i = 0; i < 40; ++i) pts.emplace_back(0.013 * i + 0.001 * (i % 3), 0.007 * ((i * 5) % 11));

  KdTree<2> alone(100);
  insert_from_new_thread(alone, pts, 0, 9);  // 4 -> 8 -> 12
  EXPECT_EQ(alone.size(), 9u);
  EXPECT_EQ(alone.leaf_capacity(), 12u);

  KdTree<2> shared(100);
  insert_from_new_thread(shared, pts, 0, 6);  // 4 -> 8, holding 6
  insert_from_new_thread(shared, pts, 6, 7);  // a second thread appends: 7 of 8
  EXPECT_EQ(shared.leaf_capacity(), 8u);
  insert_from_new_thread(shared, pts, 7, 9);  // full at 8; the 9th moves the leaf to 32, not 12
  EXPECT_EQ(shared.size(), 9u);
  EXPECT_EQ(shared.leaf_capacity(), 32u);
  test::check_against_brute_force<2>(shared, pts, 9, 30, 12);

  // The split at 33 points starts its (at most two non-empty) halves over in the classes they need,
  // each then grown one class at a time by one thread: fewer than 4 empty slots per leaf.
  insert_from_new_thread(shared, pts, 9, 40);
  EXPECT_EQ(shared.size(), 40u);
  EXPECT_LE(shared.leaf_capacity(), 40u + 2 * 3);
  test::check_against_brute_force<2>(shared, pts, 40, 30, 13);
}

// A tree that keeps no ids (the fill's) answers every range query as one that keeps them, on every
// backend, with 4 bytes less per point slot (the same leaves, buckets without the id array).
template <int D, template <class> class StoreT>
void expect_no_id_tree_same_answers_fewer_bytes() {
  for (PointOrder order : {PointOrder::front, PointOrder::random}) {
    SCOPED_TRACE(test::order_name(order));
    const auto pts = test::make_points<D>(order, 100000, 21);
    KdTree<D, StoreT> with_ids(pts.size());
    KdTree<D, StoreT, 32, PointIds::none> without(pts.size());
    typename KdTree<D, StoreT, 32, PointIds::none>::Finger finger;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      with_ids.insert(pts[i], static_cast<std::uint32_t>(i));
      without.insert(pts[i], finger);
      with_ids.reuse_retired();
      without.reuse_retired();
    }
    ASSERT_EQ(without.size(), pts.size());
    ASSERT_EQ(without.leaf_capacity(), with_ids.leaf_capacity());
    const auto queries = test::make_queries<D>(pts, 300, 7);
    for (std::size_t q = 0; q < queries.size(); ++q) {
      const Vec<D>& c = queries[q];
      const double r = 0.002 + 0.0002 * static_cast<double>(q % 200);
      std::vector<Vec<D>> a, b;
      with_ids.for_each_within(c, r, [&](std::uint32_t, const Vec<D>& p) { a.push_back(p); });
      without.for_each_within(c, r, [&](std::uint32_t id, const Vec<D>& p) {
        EXPECT_EQ(id, (KdTree<D, StoreT, 32, PointIds::none>::kNoId));
        b.push_back(p);
      });
      const auto less = [](const Vec<D>& x, const Vec<D>& y) {
        return std::lexicographical_compare(x.begin(), x.end(), y.begin(), y.end());
      };
      std::sort(a.begin(), a.end(), less);
      std::sort(b.begin(), b.end(), less);
      ASSERT_EQ(a, b) << "query " << q;
      ASSERT_EQ(with_ids.exists_within(c, r), without.exists_within(c, r));
    }
    // Up to 8 KiB of buckets per class (8 classes) claimed ahead in a batch count in both trees.
    const double saved = static_cast<double>(with_ids.bytes_used()) - static_cast<double>(without.bytes_used());
    EXPECT_GE(saved, 4.0 * static_cast<double>(without.leaf_capacity()) - 8 * 8192);
  }
}
TEST(KdTree, WithoutIdsSameAnswersFewerBytes2D) { expect_no_id_tree_same_answers_fewer_bytes<2, VmStore>(); }
TEST(KdTree, WithoutIdsSameAnswersFewerBytes3D) { expect_no_id_tree_same_answers_fewer_bytes<3, VmStore>(); }
TEST(KdTree, WithoutIdsSameAnswersFewerBytesLockedVector) {
  expect_no_id_tree_same_answers_fewer_bytes<3, LockedVectorStore>();
}
TEST(KdTree, WithoutIdsSameAnswersFewerBytesSuballoc) { expect_no_id_tree_same_answers_fewer_bytes<2, SuballocStore>(); }

TEST(KdTree, KnnReusesTheCallersBuffer) {
  const auto pts = test::make_points<2>(PointOrder::random, 500, 8);
  KdTree<2> tree(pts.size());
  for (std::size_t i = 0; i < pts.size(); ++i) tree.insert(pts[i], static_cast<std::uint32_t>(i));
  std::vector<std::pair<std::uint32_t, double>> out;
  out.reserve(16);
  const auto* buffer = out.data();
  for (int i = 0; i < 50; ++i) {
    tree.knn(pts[static_cast<std::size_t>(i)], 16, out);
    ASSERT_EQ(out.size(), 16u);
    EXPECT_EQ(out.data(), buffer);
  }
}

}  // namespace
}  // namespace nodegen
