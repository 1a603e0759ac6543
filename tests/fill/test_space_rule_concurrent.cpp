// The space-rule fill (FillOptions::space_rule; fill/internal/space_rule_fill.hpp) runs each tile's
// items as soon as the space rule lets them, with no rounds: its nodes must be those of the phases,
// byte for byte, at every thread count, on graded domains where tiles of several levels meet, on every
// backend. Run under ThreadSanitizer too (the tsan preset builds *_concurrent suites), with more
// threads than the machine's cores, so threads are preempted while holding the schedule's lock, while
// spinning for work and mid-expansion.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "nodegen/fill/fill.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/storage/vm_store.hpp"
#include "support/fill_test_support.hpp"
#include "support/sanitized_build.hpp"

namespace nodegen {
namespace {

using testing::box_boundary;
using testing::expect_same_nodes;
using testing::fill_params;

FillOptions space_rule(int threads) {
  FillOptions o = testing::threads(threads);
  o.space_rule = true;
  return o;
}

// Seeds 1-8 (1-3 under a sanitizer): the space rule's nodes at each thread count are the phases'.
template <int D, template <class> class Store = VmStore, class DomainT>
void expect_phases_nodes(const DomainT& domain, const Spacing& spacing, const std::vector<BoundaryNode<D>>& boundary,
                         std::initializer_list<int> thread_counts) {
  const std::uint64_t last_seed = test::kSanitized || test::kThreadSanitized ? 3 : 8;
  for (std::uint64_t seed = 1; seed <= last_seed; ++seed) {
    const auto phases = pnp_fill<D, Store>(domain, spacing, boundary, fill_params(D, seed), testing::threads(1));
    EXPECT_GT(phases.positions.size(), 1500u);
    for (int t : thread_counts)
      expect_same_nodes(phases, pnp_fill<D, Store>(domain, spacing, boundary, fill_params(D, seed), space_rule(t)),
                        "seed " + std::to_string(seed) + ", " + std::to_string(t) + " threads");
  }
}

TEST(SpaceRuleConcurrent, ConstantSpacingSquareAndCube) {
  const auto square = testing::unit_box<2>();
  expect_phases_nodes<2>(square, Spacing::constant(0.006), box_boundary<2>(square.bounding_box(), 0.006), {1, 2, 7});
  const auto cube = testing::unit_box<3>();
  expect_phases_nodes<3>(cube, Spacing::constant(0.05), box_boundary<3>(cube.bounding_box(), 0.05), {1, 3, 8});
}

// Spacings that vary 10x (2D) and 6x (3D): nodes hand over to tiles of other levels, arrive in a tile
// from sources of several phases, and the rule's reaches differ between neighbours.
TEST(SpaceRuleConcurrent, GradedSquareAndCube) {
  const auto square = testing::unit_box<2>();
  expect_phases_nodes<2>(square, Spacing::expression("0.01 + 0.1 * x * y"), box_boundary<2>(square.bounding_box(), 0.01),
                         {1, 2, 7});
  const auto cube = testing::unit_box<3>();
  expect_phases_nodes<3>(cube, Spacing::expression("0.06 + 0.3 * x * x"), box_boundary<3>(cube.bounding_box(), 0.06),
                         {2, 5});
}

// A spacing that grows 75x across a disk, a curved boundary, and the other two backends.
TEST(SpaceRuleConcurrent, SteeplyGradedDiskEveryBackend) {
  const auto disk = testing::unit_disk();
  const Spacing spacing = Spacing::expression("0.004 + 0.3 * ((x + 1) / 2)^6");
  const auto boundary = testing::unit_disk_boundary(spacing);
  expect_phases_nodes<2>(disk, spacing, boundary, {2, 9});
  const auto vm = pnp_fill<2, VmStore>(disk, spacing, boundary, fill_params(2, 3), testing::threads(1));
  expect_same_nodes(vm, pnp_fill<2, LockedVectorStore>(disk, spacing, boundary, fill_params(2, 3), space_rule(5)), "vector");
  expect_same_nodes(vm, pnp_fill<2, SuballocStore>(disk, spacing, boundary, fill_params(2, 3), space_rule(3)), "suballoc");
}

// A larger square at more threads than cores: items of one generation run side by side in one
// tile's cell (deliveries to a running tile wait for its hand-over) and a tile gets nodes of an
// earlier generation after a later item was made for it (the item is re-tagged). Both showed under
// preemption first; the nodes must still be the phases'.
TEST(SpaceRuleConcurrent, LargerSquareMoreThreadsThanCores) {
  const auto square = testing::unit_box<2>();
  const double h = test::kSanitized || test::kThreadSanitized ? 0.004 : 0.0015;
  const auto boundary = box_boundary<2>(square.bounding_box(), h);
  const auto phases = pnp_fill<2, VmStore>(square, Spacing::constant(h), boundary, fill_params(2, 5), testing::threads(1));
  for (int t : {3, 6, 9})
    expect_same_nodes(phases, pnp_fill<2, VmStore>(square, Spacing::constant(h), boundary, fill_params(2, 5), space_rule(t)),
                      std::to_string(t) + " threads");
}

// The node cap reached mid-fill by any thread ends the fill with StoreFull, with no thread left waiting.
TEST(SpaceRuleConcurrent, NodeCapStopsEveryThread) {
  const auto square = testing::unit_box<2>();
  FillParams p = fill_params(2, 13);
  p.max_nodes = 2000;  // the square at h = 0.01 needs ~9000
  const auto boundary = box_boundary<2>(square.bounding_box(), 0.01);
  for (int t : {1, 2, 8})
    EXPECT_THROW((pnp_fill<2, VmStore>(square, Spacing::constant(0.01), boundary, p, space_rule(t))), StoreFull) << t;
}

// A stop request from another thread ends the fill with FillStopped.
TEST(SpaceRuleConcurrent, StopEndsTheFill) {
  const auto square = testing::unit_box<2>();
  std::atomic<bool> stop{true};
  FillOptions o = space_rule(6);
  o.stop = &stop;
  const auto boundary = box_boundary<2>(square.bounding_box(), 0.004);
  EXPECT_THROW((pnp_fill<2, VmStore>(square, Spacing::constant(0.004), boundary, fill_params(2, 1), o)), FillStopped);
}

}  // namespace
}  // namespace nodegen
