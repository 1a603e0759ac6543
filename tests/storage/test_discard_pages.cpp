// discard_pages_within(): the pages wholly inside a range go back to the kernel (resident memory drops,
// they read as zeros), the partial pages at both ends are kept; a range inside one page changes nothing;
// and the fill's collect, which discards the VM store block by block while copying it out (on
// one thread or several), gives exactly the nodes of a store that is only read.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <unistd.h>
#include <vector>

#include "support/fill_test_support.hpp"
#include "support/sanitized_build.hpp"
#include "nodegen/storage/discard_pages.hpp"
#include "nodegen/fill/fill.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {
namespace {

using Point = std::array<double, 3>;
const std::size_t kPage = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));

// A VM store holding n points, every one written (so every page is resident).
VmStore<Point> filled_store(std::size_t n) {
  VmStore<Point> store(4 * n);
  const std::size_t first = store.claim(n);
  for (std::size_t i = 0; i < n; ++i) store.set(first + i, Point{double(i), double(i) + 0.5, -double(i)});
  return store;
}

bool intact(const VmStore<Point>& store, std::size_t i) {
  const Point p = store.get(i);
  return p[0] == double(i) && p[1] == double(i) + 0.5 && p[2] == -double(i);
}

TEST(DiscardPages, RangeInsideOnePageChangesNothing) {
  VmStore<Point> store = filled_store(1000);
  const std::size_t before = store.bytes_resident_measured();
  const std::size_t per_page = kPage / sizeof(Point);
  EXPECT_TRUE(discard_pages_within(store.data() + 1, store.data() + per_page - 1));
  EXPECT_EQ(store.bytes_resident_measured(), before);
  for (std::size_t i = 0; i < 1000; ++i) ASSERT_TRUE(intact(store, i)) << i;
}

TEST(DiscardPages, WithinKeepsThePagesSharedWithTheNeighbours) {
  constexpr std::size_t n = 100'000;
  VmStore<Point> store = filled_store(n);
  const std::size_t before = store.bytes_resident_measured();
  const std::size_t from = 10'001, to = 60'001;  // neither on a page boundary
  ASSERT_TRUE(discard_pages_within(store.data() + from, store.data() + to));
  const std::size_t first_page = (from * sizeof(Point) + kPage - 1) / kPage, end_page = to * sizeof(Point) / kPage;
  EXPECT_EQ(before - store.bytes_resident_measured(), (end_page - first_page) * kPage);
  // Every point with no byte on the discarded pages is intact, those on the two shared pages included.
  for (std::size_t i = 0; i < n; ++i) {
    const bool touched = i * sizeof(Point) < end_page * kPage && (i + 1) * sizeof(Point) > first_page * kPage;
    if (!touched) {
      ASSERT_TRUE(intact(store, i)) << i;
    }
  }
  EXPECT_EQ(store.get(first_page * kPage / sizeof(Point) + 1)[1], 0.0);
}

// The fill's collect discards the VM store in 2 MiB blocks as it copies; these fills span several
// blocks (2D: 131 072 nodes per block, 3D: 87 381), and the locked-vector store, never discarded,
// gives the reference (one thread: every backend places the same nodes).
template <int D>
void expect_same_nodes_as_vector_store(double h) {
  const auto domain = testing::unit_box<D>();
  const Spacing spacing = Spacing::constant(h);
  const auto boundary = testing::box_boundary<D>(domain.bounding_box(), h);
  FillParams params = FillParams::defaults_for(D);
  params.max_nodes = 2'000'000;
  const auto vm = pnp_fill<D, VmStore>(domain, spacing, boundary, params, FillOptions{});
  const auto vec = pnp_fill<D, LockedVectorStore>(domain, spacing, boundary, params, FillOptions{});
  ASSERT_GT(vm.positions.size(), 2 * (std::size_t{2} << 20) / (D * sizeof(double)));
  ASSERT_EQ(vm.positions.size(), vec.positions.size());
  for (std::size_t i = 0; i < vm.positions.size(); ++i) ASSERT_EQ(vm.positions[i], vec.positions[i]) << i;
  EXPECT_EQ(vm.types, vec.types);
  EXPECT_EQ(vm.bmap, vec.bmap);
}

TEST(CollectDiscardingTheStore, SameNodesAsAStoreThatIsOnlyRead2D) { expect_same_nodes_as_vector_store<2>(0.0015); }
TEST(CollectDiscardingTheStore, SameNodesAsAStoreThatIsOnlyRead3D) {
  // Under the sanitizers (slow for the two fills) ParallelBlockCopyKeepsEveryNode checks the 3D blocks.
  if (test::kSanitized) GTEST_SKIP() << "the 3D blocks are checked by ParallelBlockCopyKeepsEveryNode there";
  expect_same_nodes_as_vector_store<3>(0.015);
}

// With several threads the blocks are shared among them, each discarding only the pages wholly inside
// its own block (3D points are 24 bytes, so block boundaries cut pages that a neighbour still reads). A
// fill of several blocks at 2 and 3 threads must give every interior node strictly inside the domain
// (a zeroed node sits on the cube's corner, outside the open box) and no two nodes closer than zeta h.
TEST(CollectDiscardingTheStore, ParallelBlockCopyKeepsEveryNode) {
  const double h = 0.0135;  // ~3.5e5 nodes: 4 blocks of 87 381 points
  const auto domain = testing::unit_box<3>();
  const Spacing spacing = Spacing::constant(h);
  const FillParams params = testing::fill_params(3, 1, 2'000'000);
  // Under the sanitizers 3 threads alone (a fill of this size is slow there): blocks shared unevenly.
  for (int threads : test::kSanitized ? std::vector<int>{3} : std::vector<int>{2, 3}) {
    const auto d = pnp_fill<3, VmStore>(domain, spacing, testing::box_boundary<3>(domain.bounding_box(), h), params,
                                        testing::threads(threads));
    ASSERT_GT(d.positions.size(), 4u * ((std::size_t{2} << 20) / 24));
    for (std::size_t i = d.boundary_count; i < d.positions.size(); ++i)
      ASSERT_TRUE(testing::strictly_inside(domain.bounding_box(), d.positions[i]))
          << "node " << i << " at " << d.positions[i].transpose();
    EXPECT_GE(testing::min_pair_ratio<3>(d, [&](const Vec<3>&) { return h; }, h), kZeta - 1e-12);
  }
}

}  // namespace
}  // namespace nodegen
