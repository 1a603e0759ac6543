// The fill's nodes are a function of (domain, spacing, seed): byte-identical at every thread count, on
// every backend. Run under ThreadSanitizer too (the tsan preset builds *_concurrent suites), with as
// many threads as a 2-core machine's cores (where a thread out of items waits for the tiles it hands
// over: hand_over_done) and more, so the phases' hand-over between threads is checked for races.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <set>
#include <variant>
#include <string>

#include "support/fill_test_support.hpp"
#include "nodegen/fill/fill.hpp"
#include "nodegen/input/fill_domain.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/storage/vm_store.hpp"
#include "support/sanitized_build.hpp"

namespace nodegen {
namespace {

using testing::box_boundary;
using testing::fill_params;
using testing::threads;

using testing::expect_same_nodes;

// Seeds 1-20: the nodes at each of `thread_counts` are those of one thread. Under a sanitizer seeds 1-7
// (the memory and race checks see the same code in each fill; the release run takes all 20).
template <int D, class DomainT>
void expect_seeds_identical(const DomainT& domain, const Spacing& spacing, const std::vector<BoundaryNode<D>>& boundary,
                            std::initializer_list<int> thread_counts) {
  const std::uint64_t last_seed = test::kSanitized || test::kThreadSanitized ? 7 : 20;
  for (std::uint64_t seed = 1; seed <= last_seed; ++seed) {
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
  expect_seeds_identical<2>(domain, Spacing::expression("0.01 + 0.1 * x * y"),
                            box_boundary<2>(domain.bounding_box(), 0.01), {2, 4, 7});
}

TEST(FillDeterminismConcurrent, GradedCubeSeeds1To20) {
  const auto domain = testing::unit_box<3>();
  // 4 threads alone: at 2 and 4 the cube's 60 fills took much of the tsan run. The cube meets 3 threads
  // in CandidatesAskingTheTreeOneByOneKeepTheNodes, the square 2, 4 and 7 here.
  expect_seeds_identical<3>(domain, Spacing::expression("0.06 + 0.3 * x * x"),
                            box_boundary<3>(domain.bounding_box(), 0.06), {4});
}

// Every backend gives the same nodes, and different seeds give different ones.
TEST(FillDeterminismConcurrent, EveryBackendSameNodesSeedsDiffer) {
  const auto disk = testing::unit_disk();
  const Spacing spacing = Spacing::expression("0.01 + 0.03 * sqrt(x*x + y*y)");
  const auto boundary = testing::unit_disk_boundary(spacing);
  const auto vm = pnp_fill<2, VmStore>(disk, spacing, boundary, fill_params(2, 3), threads(1));
  expect_same_nodes(vm, pnp_fill<2, LockedVectorStore>(disk, spacing, boundary, fill_params(2, 3), threads(5)), "vector");
  expect_same_nodes(vm, pnp_fill<2, SuballocStore>(disk, spacing, boundary, fill_params(2, 3), threads(3)), "suballoc");
  const auto other = pnp_fill<2, VmStore>(disk, spacing, boundary, fill_params(2, 4), threads(1));
  EXPECT_NE(0, std::memcmp(vm.positions.data() + vm.boundary_count, other.positions.data() + other.boundary_count,
                           std::min(vm.positions.size(), other.positions.size()) - vm.boundary_count))
      << "seeds 3 and 4 gave the same interior nodes";
}

// The candidates of a node with a crowd within reach ask the tree one by one (FillOptions::crowd, and
// gather_neighbours in fill/internal/node_rule.hpp says why): the nodes are those that checking them against the
// gathered neighbours gives, at every thread count. Crowd 0 takes that path at every node; the spacing
// that jumps 100x has real crowds (the fine nodes just across the jump get the coarse h, and 23 000
// fine nodes lie within their reach) next to nodes that gather.
TEST(FillDeterminismConcurrent, CandidatesAskingTheTreeOneByOneKeepTheNodes) {
  auto with_crowd = [](int t, std::size_t crowd) {
    FillOptions o = threads(t);
    o.crowd = crowd;
    return o;
  };
  constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();
  const auto square = testing::unit_box<2>();
  for (const char* h : {"0.01 + 0.1 * x * y", "x < 0.5 ? 0.005 : 0.5"}) {
    const Spacing spacing = Spacing::expression(h);
    const auto boundary = box_boundary<2>(square.bounding_box(), 0.005);
    const auto gathered = pnp_fill<2, VmStore>(square, spacing, boundary, fill_params(2, 5), with_crowd(1, kNever));
    for (std::size_t crowd : {std::size_t{0}, std::size_t{4096}})
      for (int t : {1, 3})
        expect_same_nodes(gathered, pnp_fill<2, VmStore>(square, spacing, boundary, fill_params(2, 5), with_crowd(t, crowd)),
                          std::string(h) + ", crowd " + std::to_string(crowd) + ", " + std::to_string(t) + " threads");
  }
  const auto cube = testing::unit_box<3>();
  const Spacing graded = Spacing::expression("0.06 + 0.3 * x * x");
  const auto boundary = box_boundary<3>(cube.bounding_box(), 0.06);
  expect_same_nodes(pnp_fill<3, VmStore>(cube, graded, boundary, fill_params(3, 5), with_crowd(1, kNever)),
                    pnp_fill<3, VmStore>(cube, graded, boundary, fill_params(3, 5), with_crowd(3, 0)), "cube, crowd 0");
}

// Boundary parts from the geometry (a polygon's named edges, a mesh's face groups) change ids only: the
// example domains give the same nodes and parts at 1, 2 and 7 threads, every part with nodes.
TEST(FillDeterminismConcurrent, NamedEdgesAndMeshGroupsSameNodesAtAnyThreadCount) {
  auto fill = [](const DomainFile& file, int t) { return fill_domain(file, threads(t)); };
  for (const char* name : {"channel_parts.json", "mesh_groups.json"}) {
    const DomainFile file = load_domain_file(test::source_dir() / "domains" / name);
    const AnyDiscretization one = fill(file, 1);
    std::visit(
        [&](const auto& d) {
          std::set<std::int32_t> parts(d.types.begin(), d.types.begin() + static_cast<std::ptrdiff_t>(d.boundary_count));
          EXPECT_EQ(parts.size(), file.dim == 2 ? 4u : 3u) << name;
        },
        one);
    for (int t : {2, 7}) {
      const AnyDiscretization other = fill(file, t);
      const std::string what = std::string(name) + ", " + std::to_string(t) + " threads";
      if (file.dim == 2) expect_same_nodes(std::get<Discretization<2>>(one), std::get<Discretization<2>>(other), what);
      else expect_same_nodes(std::get<Discretization<3>>(one), std::get<Discretization<3>>(other), what);
    }
  }
}

}  // namespace
}  // namespace nodegen
