// The k-d tree's leaf scan kernels (spatial/leaf_distances.hpp): leaf_within, in every version this CPU
// runs (the AVX2 one and the portable one), sets exactly the bits of the points whose squared distance,
// summed as leaf_distances2 sums it, lies below r2: for grid (int32) and double coordinates, 2D and 3D,
// every count from 0 to 64 (whole vectors and every tail), with r2 equal to some point's own squared
// distance (that point is not within: the test is strict) and bits past n never set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "nodegen/spatial/leaf_distances.hpp"

namespace nodegen::spatial_detail {
namespace {

constexpr ScanVersion kVersions[] = {ScanVersion::portable, ScanVersion::avx2, ScanVersion::avx512};

// Coordinate arrays of 64 points; grid coordinates as a grid tree keeps them (large indices, so the
// differences use the whole double).
template <class C>
struct Leaf {
  std::vector<C> axis[3];
  explicit Leaf(std::mt19937_64& rng) {
    for (auto& a : axis) {
      for (int i = 0; i < 64; ++i) {
        if constexpr (std::is_same_v<C, double>) a.push_back(std::uniform_real_distribution<double>(-1, 1)(rng));
        else a.push_back(static_cast<C>(std::uniform_int_distribution<std::int32_t>(-2000000000, 2000000000)(rng)));
      }
    }
  }
};

template <class C>
void check_every_count(int dims, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 20; ++round) {
    Leaf<C> leaf(rng);
    const C* x[3] = {leaf.axis[0].data(), leaf.axis[1].data(), leaf.axis[2].data()};
    // The query near the points: a grid query is fractional, as a query's offset in steps is.
    double q[3];
    for (double& v : q) v = static_cast<double>(x[0][round]) * 0.75 + 0.3125;
    for (std::uint32_t n = 0; n <= 64; ++n) {
      std::vector<double> d2(64);
      if (dims == 2) leaf_distances2(x[0], x[1], n, q[0], q[1], d2.data());
      else leaf_distances2(x[0], x[1], x[2], n, q[0], q[1], q[2], d2.data());
      // r2: the median point's own squared distance, so points on both sides and one exactly on it.
      std::vector<double> sorted(d2.begin(), d2.begin() + n);
      std::sort(sorted.begin(), sorted.end());
      const double r2 = n ? sorted[n / 2] : 1.0;
      std::uint64_t expected = 0;
      for (std::uint32_t i = 0; i < n; ++i) expected |= static_cast<std::uint64_t>(d2[i] < r2) << i;
      for (ScanVersion v : kVersions) {
        if (!cpu_runs(v)) continue;
        EXPECT_EQ(leaf_within(v, x, dims, n, q, r2), expected)
            << "version " << static_cast<int>(v) << " dims " << dims << " n " << n << " round " << round;
      }
      EXPECT_EQ(leaf_within(x, dims, n, q, r2), expected) << "the dispatched version, n " << n;
    }
  }
}

TEST(LeafWithin, GridCoordinates2D) { check_every_count<std::int32_t>(2, 1); }
TEST(LeafWithin, GridCoordinates3D) { check_every_count<std::int32_t>(3, 2); }
TEST(LeafWithin, DoubleCoordinates2D) { check_every_count<double>(2, 3); }
TEST(LeafWithin, DoubleCoordinates3D) { check_every_count<double>(3, 4); }

TEST(LeafWithin, ThePortableVersionRunsEverywhere) { EXPECT_TRUE(cpu_runs(ScanVersion::portable)); }

}  // namespace
}  // namespace nodegen::spatial_detail
