// The boundary placement's hash grid (src/geometry/point_grid.hpp) against brute force: points on both
// sides of zero (the block of a negative cell is found by floor division), on block edges, enough of
// them to grow the block table several times, query radii below and above the cell size, and copies
// (a cube chart's faces each fill their own copy).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "geometry/boundary/point_grid.hpp"

namespace nodegen::geometry_detail {
namespace {

template <int D>
bool brute_any_within(const std::vector<Vec<D>>& pts, const Vec<D>& q, double r) {
  for (const auto& p : pts)
    if ((p - q).squaredNorm() < r * r) return true;
  return false;
}

template <int D>
void check_against_brute_force(std::uint64_t seed) {
  const double cell = 0.1;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coord(-1.3, 1.7);
  PointGrid<D> grid(cell);
  std::vector<Vec<D>> pts;
  for (int i = 0; i < 3000; ++i) {
    Vec<D> p;
    for (int a = 0; a < D; ++a) p[a] = coord(rng);
    if (i % 10 == 0) p[0] = 4 * cell * std::round(p[0] / (4 * cell));  // exactly on a block edge
    grid.insert(p);
    pts.push_back(p);
  }
  const PointGrid<D> copy = grid;
  int hits = 0, misses = 0;
  for (int i = 0; i < 20000; ++i) {
    Vec<D> q;
    for (int a = 0; a < D; ++a) q[a] = coord(rng);
    const double r = (i % 3 == 0 ? 1.7 : 0.99) * cell * std::uniform_real_distribution<double>(0.2, 1.0)(rng);
    const bool expected = brute_any_within<D>(pts, q, r);
    ASSERT_EQ(grid.any_within(q, r), expected) << "query " << i;
    ASSERT_EQ(copy.any_within(q, r), expected) << "query " << i << " on the copy";
    (expected ? hits : misses)++;
  }
  EXPECT_GT(hits, 1000);  // both answers are exercised
  EXPECT_GT(misses, 1000);
}

TEST(PointGrid, MatchesBruteForce2D) { check_against_brute_force<2>(1); }
TEST(PointGrid, MatchesBruteForce3D) { check_against_brute_force<3>(2); }

// A radius many orders above the cell size (a spacing of 1e10 somewhere): answered by looking at every
// point, not by walking 1e24 cells.
TEST(PointGrid, HugeRadiusAnswersAtOnce) {
  PointGrid<3> grid(0.01);
  grid.insert(Vec<3>(5, 5, 5));
  EXPECT_TRUE(grid.any_within(Vec<3>(0, 0, 0), 1e10));
  EXPECT_FALSE(grid.any_within(Vec<3>(-1e11, 0, 0), 1e10));
}

TEST(PointGrid, StrictDistanceAndEmptyGrid) {
  PointGrid<3> grid(0.5);
  EXPECT_FALSE(grid.any_within(Vec<3>(0, 0, 0), 10.0));
  grid.insert(Vec<3>(-0.25, 0, 0));
  EXPECT_FALSE(grid.any_within(Vec<3>(0.25, 0, 0), 0.5));  // exactly r away: not within
  EXPECT_TRUE(grid.any_within(Vec<3>(0.25, 0, 0), 0.5 + 1e-12));
}

}  // namespace
}  // namespace nodegen::geometry_detail
