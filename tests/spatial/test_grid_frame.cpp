// GridFrame: the grid a Coords::grid k-d tree keeps its points on. The frame holds its box with room to
// spare, its step is a power of two no coarser than the box needs, decode(encode(x)) is the nearest
// grid point and stays put when encoded again (also far from the origin), and a point off the frame
// is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>

#include "nodegen/spatial/grid_frame.hpp"

namespace nodegen {
namespace {

double ulp(double x) { return std::nextafter(x, INFINITY) - x; }

// Checks the frame around [lo, hi] on random points of the box and just beyond it.
template <int D>
void check_frame(const double (&lo)[D], const double (&hi)[D], std::uint64_t seed) {
  const GridFrame<D> f = GridFrame<D>::around(lo, hi);
  int frac = 0;
  EXPECT_EQ(std::frexp(f.step, &frac), 0.5) << "step " << f.step << " is not a power of two";
  EXPECT_EQ(f.step * f.inv_step, 1.0);
  double extent = 0;
  for (int d = 0; d < D; ++d) extent = std::fmax(extent, hi[d] - lo[d]);
  std::mt19937_64 rng(seed);
  for (int d = 0; d < D; ++d) {
    // Room to spare: a quarter of the extent beyond each face is still in the frame.
    EXPECT_NO_THROW((void)f.encode(lo[d] - 0.25 * extent, d));
    EXPECT_NO_THROW((void)f.encode(hi[d] + 0.25 * extent, d));
    std::uniform_real_distribution<double> in(lo[d] - 0.1 * extent, hi[d] + 0.1 * extent);
    for (int i = 0; i < 2000; ++i) {
      const double x = in(rng);
      const std::int32_t q = f.encode(x, d);
      const double k = f.decode(q, d);
      // Nearest, up to the rounding of x - centre.
      ASSERT_LE(std::fabs(k - x), 0.5 * f.step + 2 * ulp(std::fabs(x) + std::fabs(f.centre[d])))
          << "not the nearest grid point";
      ASSERT_EQ(f.encode(k, d), q) << "a kept coordinate moved when encoded again";
      ASSERT_EQ(f.round(k, d), k);
      // Exact: the grid point is centre + step * q with nothing rounded away.
      ASSERT_EQ((k - f.centre[d]) * f.inv_step, static_cast<double>(q));
    }
    EXPECT_THROW((void)f.encode(f.centre[d] + 2147483648.0 * f.step, d), std::out_of_range);
    EXPECT_THROW((void)f.encode(f.centre[d] - 2147483649.0 * f.step, d), std::out_of_range);
    EXPECT_THROW((void)f.encode(NAN, d), std::out_of_range);
  }
}

TEST(GridFrame, UnitSquareGetsAStepOfAFewBillionthsAndKeepsGridPointsPut) {
  const double lo[2] = {0, 0}, hi[2] = {1, 1};
  check_frame<2>(lo, hi, 1);
  EXPECT_LE(GridFrame<2>::around(lo, hi).step, 7e-10);
  EXPECT_EQ(GridFrame<2>::around(lo, hi).round(0.0, 0), 0.0);  // the box's faces lie on the grid here
}

TEST(GridFrame, ThinOffsetBoxUsesItsLargestExtent) {
  const double lo[3] = {-3.5, 10.0, 0.25}, hi[3] = {-3.4, 10.001, 40.0};
  check_frame<3>(lo, hi, 2);
  EXPECT_LE(GridFrame<3>::around(lo, hi).step, 7e-10 * 39.75);
}

TEST(GridFrame, BoxFarFromTheOriginGetsTheDoublesOwnResolution) {
  // 1e9 away for a size of 1: 2^32 steps over the box would be finer than the doubles there.
  const double lo[2] = {1e9, -1e9}, hi[2] = {1e9 + 1, -1e9 + 1};
  check_frame<2>(lo, hi, 3);
  const GridFrame<2> f = GridFrame<2>::around(lo, hi);
  EXPECT_GE(f.step, ulp(1e9 + 2));
}

TEST(GridFrame, EmptyNonFiniteOrUnrepresentableBoxIsRefused) {
  const double a[2] = {0, 0}, inf[2] = {INFINITY, 1}, nan[2] = {NAN, 1}, one[2] = {1, 1};
  EXPECT_THROW((void)GridFrame<2>::around(a, a), std::invalid_argument);
  EXPECT_THROW((void)GridFrame<2>::around(a, inf), std::invalid_argument);
  EXPECT_THROW((void)GridFrame<2>::around(a, nan), std::invalid_argument);
  EXPECT_THROW((void)GridFrame<2>::around(nan, one), std::invalid_argument);
  EXPECT_THROW((void)GridFrame<2>::around(one, a), std::invalid_argument);  // lo above hi
  const double huge_lo[2] = {-1.5e308, 0}, huge_hi[2] = {1.5e308, 1};
  EXPECT_THROW((void)GridFrame<2>::around(huge_lo, huge_hi), std::invalid_argument);
  const double tiny[2] = {1e-310, 1e-310};
  EXPECT_THROW((void)GridFrame<2>::around(a, tiny), std::invalid_argument);
}

}  // namespace
}  // namespace nodegen
