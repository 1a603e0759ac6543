// The fill shared among several processes (FillOptions::exchange; docs/scale-out.md) gives the nodes of
// one process: every array, row for row, at every process count, with several threads in each. The
// processes are threads of this test (in_process_ranks.hpp), so ThreadSanitizer (the tsan preset)
// checks the hand-over between the fill's completion step and the exchange, with more threads than
// the machine's cores.
#include <gtest/gtest.h>

#include <string>

#include "support/fill_test_support.hpp"
#include "support/in_process_ranks.hpp"
#include "nodegen/fill/fill.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {
namespace {

using testing::box_boundary;
using testing::fill_params;

// The whole discretization put together from the processes' shares, by their runs of rows.
template <int D>
Discretization<D> assemble(const std::vector<Discretization<D>>& shares) {
  Discretization<D> whole;
  const RowShare& first = shares.front().share;
  whole.positions.resize(first.total_nodes);
  whole.types.resize(first.total_nodes);
  whole.bmap.resize(first.total_nodes);
  whole.normals.resize(first.total_boundary);
  whole.boundary_count = first.total_boundary;
  for (const Discretization<D>& s : shares) {
    EXPECT_EQ(s.share.total_nodes, first.total_nodes);
    std::size_t local = 0;
    for (const auto& [row, count] : s.share.runs)
      for (std::size_t k = 0; k < count; ++k, ++local) {
        whole.positions[row + k] = s.positions[local];
        whole.types[row + k] = s.types[local];
        whole.bmap[row + k] = s.bmap[local];
      }
    EXPECT_EQ(local, s.positions.size());
    for (std::size_t i = 0; i < s.boundary_count; ++i) whole.normals[s.share.boundary_first + i] = s.normals[i];
  }
  return whole;
}

template <int D, class DomainT>
void expect_ranks_identical(const DomainT& domain, const Spacing& spacing, const std::vector<BoundaryNode<D>>& boundary,
                            std::uint64_t seed, int ranks, int threads) {
  const auto one = pnp_fill<D, VmStore>(domain, spacing, boundary, fill_params(D, seed), testing::threads(1));
  testing::InProcessRanks group(ranks);
  const auto shares = group.run([&](PhaseExchange& ex, int) {
    FillOptions o = testing::threads(threads);
    o.exchange = &ex;
    return pnp_fill<D, VmStore>(domain, spacing, boundary, fill_params(D, seed), o);
  });
  const std::string what = std::to_string(ranks) + " ranks of " + std::to_string(threads) + " threads, seed " +
                           std::to_string(seed);
  std::size_t sent = 0;
  for (const auto& s : shares) {
    EXPECT_GT(s.positions.size(), 0u) << what;
    sent += s.share.nodes_sent;
  }
  EXPECT_GT(sent, 0u) << what;
  testing::expect_same_nodes(assemble(shares), one, what);
}

// Spacing graded 10x (2D) and 6x (3D): nodes of several tile levels meet, and levels open as the front
// advances, so nodes placed earlier reach the processes that may now read them.
TEST(FillRanksConcurrent, GradedSquareAtTwoThreeAndFiveRanks) {
  const auto domain = testing::unit_box<2>();
  const Spacing spacing = Spacing::expression("0.01 + 0.1 * x * y");
  const auto boundary = box_boundary<2>(domain.bounding_box(), 0.01);
  for (std::uint64_t seed : {1, 2})
    for (int ranks : {2, 3, 5}) expect_ranks_identical<2>(domain, spacing, boundary, seed, ranks, 2);
}

TEST(FillRanksConcurrent, GradedCubeAtTwoAndFourRanks) {
  const auto domain = testing::unit_box<3>();
  const Spacing spacing = Spacing::expression("0.06 + 0.3 * x * x");
  const auto boundary = box_boundary<3>(domain.bounding_box(), 0.06);
  for (int ranks : {2, 4}) expect_ranks_identical<3>(domain, spacing, boundary, 1, ranks, 2);
}

// Spacing 4x finer in the middle than anywhere on the boundary: the levels of the middle open only when
// the front reaches them, and the nodes placed before then must reach the processes that now read them.
TEST(FillRanksConcurrent, FinerInsideThanOnTheBoundary) {
  const auto domain = testing::unit_box<2>();
  const Spacing spacing = Spacing::expression("0.02 - 0.015 * exp(-40 * ((x - 0.5)^2 + (y - 0.5)^2))");
  const auto boundary = box_boundary<2>(domain.bounding_box(), 0.02);
  for (int ranks : {2, 4}) expect_ranks_identical<2>(domain, spacing, boundary, 5, ranks, 2);
}

// Boundary nodes only inside a disk's box, a constant spacing, more ranks than the work has blocks with nodes.
TEST(FillRanksConcurrent, DiskAtSevenRanks) {
  const auto disk = testing::unit_disk();
  const Spacing spacing = Spacing::constant(0.02);
  expect_ranks_identical<2>(disk, spacing, testing::unit_disk_boundary(spacing), 3, 7, 1);
}

// A failure on one process (the node cap) ends every process with the error, none waits.
TEST(FillRanksConcurrent, NodeCapEndsEveryRank) {
  const auto domain = testing::unit_box<2>();
  const Spacing spacing = Spacing::constant(0.01);
  const auto boundary = box_boundary<2>(domain.bounding_box(), 0.01);
  testing::InProcessRanks group(3);
  EXPECT_THROW(group.run([&](PhaseExchange& ex, int) {
    FillOptions o = testing::threads(2);
    o.exchange = &ex;
    return pnp_fill<2, VmStore>(domain, spacing, boundary, fill_params(2, 1, 3000), o).positions.size();
  }),
               std::exception);
}

// Room for fewer nodes than a process's share (FillOptions::reserve_nodes, below the cap): wherever it
// runs out first, every process ends with ReservationFull, so fill_domain's second fill with more room
// starts on all of them together; none waits in an exchange.
TEST(FillRanksConcurrent, TooLittleRoomEndsEveryRankAlike) {
  const auto domain = testing::unit_box<2>();
  const Spacing spacing = Spacing::constant(0.01);
  const auto boundary = box_boundary<2>(domain.bounding_box(), 0.01);
  testing::InProcessRanks group(3);
  const auto outcomes = group.run([&](PhaseExchange& ex, int) {
    FillOptions o = testing::threads(2);
    o.exchange = &ex;
    o.reserve_nodes = 2000;  // the square at h = 0.01 has ~11500 nodes, ~3800 a process
    try {
      pnp_fill<2, VmStore>(domain, spacing, boundary, fill_params(2, 1), o);
      return std::string("filled");
    } catch (const ReservationFull& e) {
      return "room for " + std::to_string(e.reserved());
    } catch (const std::exception& e) {
      return std::string("other error: ") + e.what();
    }
  });
  for (const std::string& o : outcomes) EXPECT_EQ(o, "room for 2000");
}

}  // namespace
}  // namespace nodegen
