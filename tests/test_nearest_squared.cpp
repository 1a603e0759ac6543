// The candidate test kernel (fill/nearest_squared.hpp), in the clone this CPU runs: every candidate's
// squared distance to its nearest neighbour equals the per-candidate loop's (the sum in axis order,
// bit for bit), for counts that are and are not multiples of the vector width, with no neighbours, and
// with starting values the pass must keep.
#include <gtest/gtest.h>

#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "nodegen/fill/nearest_squared.hpp"

namespace nodegen::fill_detail {
namespace {

struct Points {
  std::vector<double> x, y, z;
  Points(std::size_t n, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    for (std::size_t i = 0; i < n; ++i) x.push_back(u(rng)), y.push_back(u(rng)), z.push_back(u(rng));
  }
};

// The reference: per candidate, a plain loop over the neighbours.
std::vector<double> reference(const Points& c, const Points& p, int dim, double start) {
  std::vector<double> out(c.x.size(), start);
  for (std::size_t i = 0; i < c.x.size(); ++i)
    for (std::size_t j = 0; j < p.x.size(); ++j) {
      const double dx = p.x[j] - c.x[i], dy = p.y[j] - c.y[i];
      double d2 = dx * dx + dy * dy;
      if (dim == 3) {
        const double dz = p.z[j] - c.z[i];
        d2 += dz * dz;
      }
      if (d2 < out[i]) out[i] = d2;
    }
  return out;
}

TEST(NearestSquared, EqualsThePerCandidateLoopBitForBit) {
  std::mt19937_64 rng(5);
  for (std::size_t m : {0u, 1u, 3u, 4u, 7u, 8u, 15u, 65u, 200u}) {
    for (std::size_t n : {0u, 1u, 5u, 33u, 300u}) {
      const Points c(m, rng), p(n, rng);
      for (double start : {std::numeric_limits<double>::infinity(), 0.01}) {
        std::vector<double> two(m, start), three(m, start);
        nearest_squared_2d(c.x.data(), c.y.data(), m, p.x.data(), p.y.data(), n, two.data());
        nearest_squared_3d(c.x.data(), c.y.data(), c.z.data(), m, p.x.data(), p.y.data(), p.z.data(), n, three.data());
        const auto ref2 = reference(c, p, 2, start), ref3 = reference(c, p, 3, start);
        for (std::size_t i = 0; i < m; ++i) {
          ASSERT_EQ(two[i], ref2[i]) << "2D, m " << m << ", n " << n << ", candidate " << i;
          ASSERT_EQ(three[i], ref3[i]) << "3D, m " << m << ", n " << n << ", candidate " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace nodegen::fill_detail
