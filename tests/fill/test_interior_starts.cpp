// The interior starts (fill/internal/interior_starts.hpp): where the rule puts them and what it keeps
// them from (the boundary nodes, each other, the outside), their order, and their rows in a fill.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "support/fill_test_support.hpp"
#include "nodegen/fill/fill.hpp"
#include "nodegen/fill/internal/interior_starts.hpp"
#include "nodegen/geometry/spacing.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {
namespace {

using fill_detail::interior_starts;
using fill_detail::kStartClearance;
using fill_detail::kStartSpacings;
using fill_detail::merge_less;
using fill_detail::Start;
using fill_detail::start_level;
using fill_detail::TileGrid;

template <int D, class DomainT, class H>
std::vector<Start<D>> starts_of(const DomainT& domain, const std::vector<BoundaryNode<D>>& boundary, std::uint64_t seed,
                                H&& h) {
  const Box<D> box = domain.bounding_box();
  const TileGrid<D> grid(box.lo, box.size().maxCoeff());
  std::vector<Vec<D>> at;
  std::int32_t finest = TileGrid<D>::kMaxLevel;
  for (const auto& b : boundary) {
    at.push_back(b.pos);
    finest = std::min(finest, start_level<D>(h(b.pos), grid.edge(0)));
  }
  return interior_starts<D>(domain, grid, seed, at, finest, 100'000'000, h);
}

// Inside, clear of the boundary nodes by kStartClearance h, far from each other, one per cell, in the
// merge order of their tiles, and the same for the same seed only.
template <int D>
void check_rule(double h, std::size_t cells_per_axis) {
  const auto domain = testing::unit_box<D>();
  const auto boundary = testing::box_boundary<D>(domain.bounding_box(), h);
  auto constant = [h](const Vec<D>&) { return h; };
  const auto starts = starts_of<D>(domain, boundary, 1, constant);
  std::size_t cells = 1;
  for (int a = 0; a < D; ++a) cells *= cells_per_axis;
  EXPECT_EQ(starts.size(), cells) << "one start in every cell that is clear of the boundary";
  const double edge = 1.0 / static_cast<double>(cells_per_axis);
  EXPECT_GE(edge, kStartSpacings<D> * h);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    EXPECT_TRUE(domain.contains(starts[i].pos));
    EXPECT_EQ(starts[i].h, h);
    for (const auto& b : boundary) ASSERT_GE((b.pos - starts[i].pos).norm(), kStartClearance * h);
    for (std::size_t j = 0; j < i; ++j) ASSERT_GE((starts[j].pos - starts[i].pos).norm(), edge / 4);
    if (i > 0) {
      EXPECT_FALSE(merge_less<D>(starts[i].key, starts[i].block, starts[i - 1].key, starts[i - 1].block));
    }
  }
  const auto again = starts_of<D>(domain, boundary, 1, constant);
  const auto other = starts_of<D>(domain, boundary, 2, constant);
  ASSERT_EQ(again.size(), starts.size());
  ASSERT_EQ(other.size(), starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) EXPECT_EQ(again[i].pos, starts[i].pos);
  std::size_t moved = 0;
  for (std::size_t i = 0; i < starts.size(); ++i) moved += other[i].pos == starts[i].pos ? 0 : 1;
  EXPECT_EQ(moved, starts.size()) << "another seed draws other points";
}

TEST(InteriorStarts, OneInEveryCellClearOfTheBoundary) {
  check_rule<2>(0.0005, 8);  // 181 h = 0.0905: cells of 1/8
  check_rule<3>(0.004, 8);   // 16 h = 0.064: cells of 1/8
}

// A small domain (a cell of kStartSpacings h would not fit) has none; the fill is then the
// boundary's fronts alone.
TEST(InteriorStarts, NoneWhereTheDomainIsSmallerThanACell) {
  const auto domain = testing::unit_box<2>();
  const double h = 0.01;
  EXPECT_TRUE(starts_of<2>(domain, testing::box_boundary<2>(domain.bounding_box(), h), 1,
                           [h](const Vec<2>&) { return h; }).empty());
}

// A fill far larger than this machine's: 64^3 cells of 16 h in the unit cube (about 1e9 nodes), found
// by the descent alone (a few boundary nodes stand for the boundary). Every cell gets its start: the
// descent's budget grows with the node cap, so it binds only beyond it.
TEST(InteriorStarts, EveryCellOfAVeryLargeFillHasItsStart) {
  const auto domain = testing::unit_box<3>();
  const double h = 1.0 / (64.0 * 16.0);
  std::vector<BoundaryNode<3>> corners(8);
  for (int c = 0; c < 8; ++c)
    for (int a = 0; a < 3; ++a) corners[static_cast<std::size_t>(c)].pos[a] = (c >> a) & 1;
  const auto starts = starts_of<3>(domain, corners, 1, [h](const Vec<3>&) { return h; });
  EXPECT_EQ(starts.size(), std::size_t{64 * 64 * 64});
}

// A graded spacing: each start's cell is the size its own h asks for, so starts are dense where h is
// small; none lies outside a disk, whatever its box's corners hold.
TEST(InteriorStarts, CellsFollowTheSpacingAndStayInside) {
  const auto disk = testing::unit_disk();
  auto h = [](const Vec<2>& p) { return 0.0002 + 0.002 * (p[0] + 1.0); };
  const Spacing spacing = Spacing::expression("0.0002 + 0.002 * (x + 1)");
  const auto starts = starts_of<2>(disk, testing::unit_disk_boundary(spacing), 3, h);
  ASSERT_GT(starts.size(), 20u);
  std::size_t left = 0;
  for (const auto& s : starts) {
    EXPECT_TRUE(disk.contains(s.pos));
    EXPECT_DOUBLE_EQ(s.h, h(s.pos));
    left += s.pos[0] < 0.0 ? 1 : 0;
  }
  EXPECT_GT(left, 2 * (starts.size() - left)) << "the fine half holds most starts";
}

// In a fill the starts are the first interior rows, in their order, and keep PNP's spacing.
TEST(InteriorStarts, AreTheFirstInteriorRowsOfTheFill) {
  const auto domain = testing::unit_box<2>();
  const double h = 0.002;  // 181 h = 0.362: cells of 1/2
  const auto boundary = testing::box_boundary<2>(domain.bounding_box(), h);
  const auto starts = starts_of<2>(domain, boundary, 11, [h](const Vec<2>&) { return h; });
  ASSERT_EQ(starts.size(), 4u);
  const auto d = pnp_fill<2, VmStore>(domain, Spacing::constant(h), boundary, testing::fill_params(2, 11, 10'000'000),
                                      testing::threads(2));
  ASSERT_GE(d.positions.size(), d.boundary_count + starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) {
    EXPECT_EQ(d.positions[d.boundary_count + i], starts[i].pos) << "start " << i;
    EXPECT_GT(d.types[d.boundary_count + i], 0) << "an interior node";
  }
  EXPECT_GE(testing::min_pair_ratio<2>(d, [&](const Vec<2>&) { return h; }, h), kZeta - 1e-12);
}

}  // namespace
}  // namespace nodegen
