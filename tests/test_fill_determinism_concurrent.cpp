// The fill's nodes are a function of (domain, spacing, seed): byte-identical at every thread count, on
// every backend. Run under ThreadSanitizer too (the tsan preset builds *_concurrent suites), with more
// threads than the machine's cores, so the phases' hand-over between threads is checked for races.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "fill_test_support.hpp"
#include "nodegen/fill/pnp_fill.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {
namespace {

using testing::box_boundary;
using testing::fill_params;
using testing::threads;

using testing::expect_same_nodes;

// Seeds 1-20: the nodes at each of `thread_counts` are those of one thread.
template <int D, class DomainT>
void expect_seeds_identical(const DomainT& domain, const Spacing& spacing, const std::vector<BoundaryNode<D>>& boundary,
                            std::initializer_list<int> thread_counts) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto one = pnp_fill<D, VmStore>(domain, spacing, boundary, fill_params(D, seed), threads(1));
    EXPECT_GT(one.positions.size(), 1500u) << one.positions.size();
    for (int t : thread_counts)
      expect_same_nodes(one, pnp_fill<D, VmStore>(domain, spacing, boundary, fill_params(D, seed), threads(t)),
                       "seed " + std::to_string(seed) + ", " + std::to_string(t) + " threads");
  }
}

// Small domains whose spacing varies 10x (2D) and 6x (3D), so nodes of several tile levels meet.
TEST(FillDeterminismConcurrent, GradedSquareSeeds1To20) {
  const auto domain = testing::unit_box<2>();
  expect_seeds_identical<2>(domain, Spacing::expression("0.01 + 0.1 * x * y"), box_boundary<2>(domain.box, 0.01), {4, 7});
}

TEST(FillDeterminismConcurrent, GradedCubeSeeds1To20) {
  const auto domain = testing::unit_box<3>();
  expect_seeds_identical<3>(domain, Spacing::expression("0.06 + 0.3 * x * x"), box_boundary<3>(domain.box, 0.06), {4});
}

// Every backend gives the same nodes, and different seeds give different ones.
TEST(FillDeterminismConcurrent, EveryBackendSameNodesSeedsDiffer) {
  const testing::DiskDomain disk;
  const Spacing spacing = Spacing::expression("0.01 + 0.03 * sqrt(x*x + y*y)");
  const auto boundary = testing::disk_boundary(disk, spacing);
  const auto vm = pnp_fill<2, VmStore>(disk, spacing, boundary, fill_params(2, 3), threads(1));
  expect_same_nodes(vm, pnp_fill<2, LockedVectorStore>(disk, spacing, boundary, fill_params(2, 3), threads(5)), "vector");
  expect_same_nodes(vm, pnp_fill<2, SuballocStore>(disk, spacing, boundary, fill_params(2, 3), threads(3)), "suballoc");
  const auto other = pnp_fill<2, VmStore>(disk, spacing, boundary, fill_params(2, 4), threads(1));
  EXPECT_NE(0, std::memcmp(vm.positions.data() + vm.boundary_count, other.positions.data() + other.boundary_count,
                           std::min(vm.positions.size(), other.positions.size()) - vm.boundary_count))
      << "seeds 3 and 4 gave the same interior nodes";
}

}  // namespace
}  // namespace nodegen
