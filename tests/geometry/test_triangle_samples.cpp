// Lazily drawn triangle samples (src/geometry/triangle_samples.hpp): on the triangle, at the asked
// density, in pieces no wider than asked, and the same samples whichever region and thread ask for them
// (the thinning draws a piece once for every block it overlaps and keeps the copy in its block).
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include <Eigen/Geometry>

#include "geometry/boundary/triangle_samples.hpp"

namespace nodegen::geometry_detail {
namespace {

const Box<3> kEverywhere{Vec<3>::Constant(-1e9), Vec<3>::Constant(1e9)};

WorldTriangle triangle(const Vec<3>& a, const Vec<3>& b, const Vec<3>& c) {
  return {a, b, c, (b - a).cross(c - a).normalized()};
}

std::vector<SurfaceSample> draw(const TriangleSamples& source, const Box<3>& region, int thread = 0) {
  std::vector<SurfaceSample> out;
  for (std::size_t item = 0; item < source.items(); ++item) source.samples(item, region, thread, out);
  return out;
}

bool before(const SurfaceSample& a, const SurfaceSample& b) {
  return std::lexicographical_compare(a.pos.data(), a.pos.data() + 3, b.pos.data(), b.pos.data() + 3);
}

TEST(TriangleSamples, SamplesLieOnTheirTriangleAtTheAskedDensity) {
  const std::vector<WorldTriangle> tris{triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0}),
                                        triangle({0, 0, 1}, {0, 2, 1}, {0, 0, 2})};
  TriangleSamples source(tris, Spacing::constant(0.05), 24.0, 1, 1);
  source.set_piece_size(0.1);
  const auto s = draw(source, kEverywhere);
  int first = 0, second = 0;
  for (const auto& p : s) {
    if (p.item == 0) {
      ++first;
      ASSERT_EQ(p.pos[2], 0.0);
      ASSERT_GE(p.pos[0], -1e-15);
      ASSERT_GE(p.pos[1], -1e-15);
      ASSERT_LE(p.pos[0] + p.pos[1], 1.0 + 1e-12);
    } else {
      ASSERT_EQ(p.item, 1u);
      ++second;
      ASSERT_NEAR(p.pos[0], 0.0, 1e-15);
      ASSERT_LE(p.pos[1] / 2 + (p.pos[2] - 1), 1.0 + 1e-12);
    }
  }
  // 24 per h^2: 4800 and 9600 expected; each piece rounds its share up or down at random.
  EXPECT_NEAR(first, 4800, 150);
  EXPECT_NEAR(second, 9600, 200);
}

TEST(TriangleSamples, EveryRegionAndThreadGetsTheSameSamples) {
  const std::vector<WorldTriangle> tris{triangle({0, 0, 0}, {1, 0.2, 0.1}, {0.3, 1, 0.5}),
                                        triangle({1, 0.2, 0.1}, {1.2, 1.1, 0}, {0.3, 1, 0.5})};
  TriangleSamples source(tris, Spacing::expression("0.03 + 0.02 * x"), 24.0, 7, 2);
  source.set_piece_size(0.08);
  auto all = draw(source, kEverywhere);
  ASSERT_GT(all.size(), 1000u);
  // The same samples drawn octant by octant around (0.5, 0.5, 0.25), each kept where it falls.
  std::vector<SurfaceSample> parts;
  const Vec<3> mid(0.5, 0.5, 0.25);
  for (int o = 0; o < 8; ++o) {
    Box<3> region = kEverywhere;
    for (int a = 0; a < 3; ++a) ((o >> a) & 1 ? region.lo[a] : region.hi[a]) = mid[a];
    for (const auto& s : draw(source, region, o % 2)) {
      bool in = true;
      for (int a = 0; a < 3; ++a) in = in && ((o >> a) & 1 ? s.pos[a] >= mid[a] : s.pos[a] < mid[a]);
      if (in) parts.push_back(s);
    }
  }
  std::sort(all.begin(), all.end(), before);
  std::sort(parts.begin(), parts.end(), before);
  ASSERT_EQ(parts.size(), all.size());
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(parts[i].pos, all[i].pos) << i;
    ASSERT_EQ(parts[i].item, all[i].item) << i;
  }
  TriangleSamples other(tris, Spacing::expression("0.03 + 0.02 * x"), 24.0, 8, 1);
  other.set_piece_size(0.08);
  auto reseeded = draw(other, kEverywhere);
  std::sort(reseeded.begin(), reseeded.end(), before);
  EXPECT_FALSE(reseeded.size() == all.size() && reseeded.front().pos == all.front().pos);  // the seed matters
}

// Pieces are no wider than asked, and a long thin triangle is cut along its length: its pieces grow as
// its length, not as its square (a grid of 0.1-wide pieces over its box: 10 000 at length 10; halving
// the longest edge made 3^k pieces per 2^k of length).
TEST(TriangleSamples, PiecesAreNoWiderThanAskedAndFollowLongTriangles) {
  auto pieces_of = [](double length) {
    const std::vector<WorldTriangle> tris{triangle({0, 0, 0}, {length, 0, 0}, {length, 0.01, 0.01})};
    TriangleSamples source(tris, Spacing::constant(0.01), 24.0, 1, 1);
    source.set_piece_size(0.1);
    for (std::size_t item = 0; item < source.items(); ++item)
      source.pieces(item, [&](const Box<3>& b) { EXPECT_LE(b.size().maxCoeff(), 0.1 + 1e-12); });
    return static_cast<double>(source.items());
  };
  const double ten = pieces_of(10.0), twenty = pieces_of(20.0);
  // Corners in a line (up to rounding): no area, no pieces.
  const std::vector<WorldTriangle> line{{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {0, 0, 1}}};
  TriangleSamples flat(line, Spacing::constant(0.01), 24.0, 1, 1);
  flat.set_piece_size(0.1);
  EXPECT_EQ(flat.items(), 0u);
  EXPECT_GE(ten, 100.0);  // 10 / (0.1 / sqrt 2) cells of the grid along its length
  EXPECT_LE(ten, 160.0);
  EXPECT_NEAR(twenty / ten, 2.0, 0.05);
}

TEST(TriangleSamples, SpacingRangeCoversCornersAndCentroidsAndMustBePositive) {
  const std::vector<WorldTriangle> tris{triangle({0, 0, 0}, {1, 0, 0}, {0, 1, 0})};
  const TriangleSamples source(tris, Spacing::expression("0.01 + x + 2 * y"), 24.0, 1, 2);
  EXPECT_DOUBLE_EQ(source.spacing_range().first, 0.01);
  EXPECT_DOUBLE_EQ(source.spacing_range().second, 2.01);
  EXPECT_THROW(TriangleSamples(tris, Spacing::expression("x - 0.5"), 24.0, 1, 2), std::runtime_error);
}

}  // namespace
}  // namespace nodegen::geometry_detail
