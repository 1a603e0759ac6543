// The candidate test: the kernels (fill/nearest_squared.hpp), in the clone this CPU runs, equal the
// per-candidate loop bit for bit (counts that are and are not multiples of the vector width, no
// neighbours, starting values the 2D pass must keep), the 3D one on its offsets rounded to float, and
// both mark the candidates at or above a bound; and
// fill/internal/candidate_test.hpp's nearest_squared (in 3D a float pass screening for the double sums) decides every
// candidate as the double sums do, also for neighbours placed within a hair of the test radius on
// either side, where a float pass cannot tell, marking exactly the clear ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "nodegen/fill/nearest_squared.hpp"
#include "nodegen/fill/internal/candidate_test.hpp"

namespace nodegen::fill_detail {
namespace {

template <class T>
struct Points {
  std::vector<T> x, y, z;
  Points() = default;
  Points(std::size_t n, std::mt19937_64& rng) {
    std::uniform_real_distribution<T> u(-1, 1);
    for (std::size_t i = 0; i < n; ++i) x.push_back(u(rng)), y.push_back(u(rng)), z.push_back(u(rng));
  }
};

// The reference: per candidate, a plain loop over the neighbours.
template <class T>
std::vector<T> reference(const Points<T>& c, const Points<T>& p, int dim, T start) {
  std::vector<T> out(c.x.size(), start);
  for (std::size_t i = 0; i < c.x.size(); ++i)
    for (std::size_t j = 0; j < p.x.size(); ++j) {
      const T dx = p.x[j] - c.x[i], dy = p.y[j] - c.y[i];
      T d2 = dx * dx + dy * dy;
      if (dim == 3) {
        const T dz = p.z[j] - c.z[i];
        d2 += dz * dz;
      }
      if (d2 < out[i]) out[i] = d2;
    }
  return out;
}

// The 3D kernel's input as the reference reads it: each coordinate's offset from the centre times the
// scale, rounded to float.
Points<float> scaled_to_float(const Points<double>& pts, const double centre[3], double scale) {
  Points<float> out;
  for (std::size_t i = 0; i < pts.x.size(); ++i) {
    out.x.push_back(static_cast<float>((pts.x[i] - centre[0]) * scale));
    out.y.push_back(static_cast<float>((pts.y[i] - centre[1]) * scale));
    out.z.push_back(static_cast<float>((pts.z[i] - centre[2]) * scale));
  }
  return out;
}

// The marks a kernel must set: bit i % 64 of word i / 64 when values[i] >= bound, the rest zero.
template <class T>
std::vector<std::uint64_t> marks_at_least(const std::vector<T>& values, T bound) {
  std::vector<std::uint64_t> words((values.size() + 63) / 64, 0);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] >= bound) words[i / 64] |= std::uint64_t{1} << (i % 64);
  return words;
}

TEST(NearestSquared, KernelsEqualThePerCandidateLoopBitForBit) {
  std::mt19937_64 rng(5);
  for (std::size_t m : {0u, 1u, 3u, 4u, 7u, 8u, 15u, 16u, 63u, 64u, 65u, 200u}) {
    for (std::size_t n : {0u, 1u, 5u, 33u, 300u}) {
      const Points<double> c2(m, rng), p2(n, rng), c3(m, rng), p3(n, rng);
      const double centre[3] = {0.25, -0.5, 0.125}, scale = 0.7;
      const ScreenInput3 in{{c3.x.data(), c3.y.data(), c3.z.data()}, m, {p3.x.data(), p3.y.data(), p3.z.data()}, n,
                            {centre[0], centre[1], centre[2]}, scale};
      const std::size_t words = (m + 63) / 64;
      for (double start : {std::numeric_limits<double>::infinity(), 0.01}) {
        std::vector<double> two(m, start);
        std::vector<std::uint64_t> marks(words, ~std::uint64_t{0});  // the kernel clears the unmarked bits too
        const double bound = 0.6;
        nearest_squared_2d(c2.x.data(), c2.y.data(), m, p2.x.data(), p2.y.data(), n, bound, two.data(), marks.data());
        const auto ref2 = reference(c2, p2, 2, start);
        for (std::size_t i = 0; i < m; ++i)
          ASSERT_EQ(two[i], ref2[i]) << "2D, m " << m << ", n " << n << ", candidate " << i;
        ASSERT_EQ(marks, marks_at_least(ref2, bound)) << "2D, m " << m << ", n " << n;
      }
      // The 3D pass starts from infinity whatever near2 held.
      std::vector<float> three(m, 0.01f), scratch(3 * (m + n));
      std::vector<std::uint64_t> marks(words, ~std::uint64_t{0});
      const float bound = 0.5f;
      nearest_squared_3f(in, bound, scratch.data(), three.data(), marks.data());
      const auto ref3 = reference(scaled_to_float(c3, centre, scale), scaled_to_float(p3, centre, scale), 3,
                                  std::numeric_limits<float>::infinity());
      for (std::size_t i = 0; i < m; ++i)
        ASSERT_EQ(three[i], ref3[i]) << "3D, m " << m << ", n " << n << ", candidate " << i;
      ASSERT_EQ(marks, marks_at_least(ref3, bound)) << "3D, m " << m << ", n " << n;
    }
  }
}

// The squared distance from c to its nearest point of pts, the sum in axis order (infinity for none).
template <int D>
double nearest_squared_reference(const Vec<D>& c, const PointList<D>& pts) {
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < pts.size(); ++j) {
    const Vec<D> q = pts.at(j);
    double d2 = 0;
    for (int a = 0; a < D; ++a) d2 = a == 0 ? (q[a] - c[a]) * (q[a] - c[a]) : d2 + (q[a] - c[a]) * (q[a] - c[a]);
    best = std::min(best, d2);
  }
  return best;
}

// Candidates on the sphere of radius r around p, neighbours within reach(r) of p: some at random, some
// at exactly (1 + e) rz from a candidate for e of a few ulps to 1e-5 either side. The screened answer
// must compare with rz^2 as the double sums do, for domains of any size and place.
template <int D>
void check_screened(double r, const Vec<D>& p, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g(0.0, 1.0);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double rz = (1.0 - 1e-10) * r, rz2 = rz * rz, reach = (r + rz) * (1.0 + 1e-12);
  auto on_sphere = [&](double radius) {
    Vec<D> v;
    for (int a = 0; a < D; ++a) v[a] = g(rng);
    return Vec<D>(radius * v / v.norm());
  };
  int borderline = 0;
  for (int trial = 0; trial < 300; ++trial) {
    PointList<D> cands, pts;
    for (int i = 0; i < (D == 2 ? 15 : 65); ++i) cands.push(p + on_sphere(r));
    const int n = static_cast<int>(u(rng) * 40);
    for (int j = 0; j < n; ++j) {
      if (j % 3 == 0 && cands.size() > 0) {
        // A neighbour a hair from the test radius of some candidate, still within reach of p.
        const Vec<D> c = cands.at(static_cast<std::size_t>(u(rng) * static_cast<double>(cands.size())));
        const double e = (u(rng) < 0.5 ? -1 : 1) * std::pow(10.0, -15.0 + 12.0 * u(rng));  // inside and beyond the margin
        const Vec<D> q = c + on_sphere(rz * (1.0 + e));
        if ((q - p).norm() < reach) pts.push(q);
      } else {
        pts.push(p + on_sphere(reach * std::pow(u(rng), 1.0 / D)));
      }
    }
    CandidateTest<D> t;
    t.clear.assign(3, ~std::uint64_t{0});  // a previous node's marks, which must not survive
    nearest_squared<D>(p, reach, cands, pts, rz2, t);
    ASSERT_EQ(t.clear.size(), (cands.size() + 63) / 64);
    std::vector<std::size_t> visited;
    t.for_each_clear([&](std::size_t i) { visited.push_back(i); });
    std::vector<std::size_t> want;
    for (std::size_t i = 0; i < cands.size(); ++i) {
      const double exact = nearest_squared_reference<D>(cands.at(i), pts);
      const bool clear = t.is_clear(i);
      ASSERT_EQ(clear, exact >= rz2) << "trial " << trial << ", candidate " << i << ": exact " << exact
                                     << " against rz^2 " << rz2;
      if (clear) want.push_back(i);
      ASSERT_EQ(exact < rz2, !clear_of<D>(cands.at(i), pts, rz2));
      borderline += std::abs(exact - rz2) < 1e-5 * rz2 ? 1 : 0;
    }
    ASSERT_EQ(visited, want) << "trial " << trial << ": for_each_clear visits the clear candidates, in order";
  }
  EXPECT_GT(borderline, 30) << "the test should place many neighbours where the float pass cannot decide";
}

TEST(NearestSquared, ScreenedPassDecidesAsTheDoubleSums2D) {
  check_screened<2>(0.01, Vec<2>(0.3, 0.7), 1);
  check_screened<2>(1e-30, Vec<2>(-5e-29, 2e-30), 2);    // far below float's range: scaled first
  check_screened<2>(3e25, Vec<2>(1e27, -2e26), 3);       // far above it
  check_screened<2>(0.01, Vec<2>(1e6, -1e6), 4);         // far from the origin for its size
}

TEST(NearestSquared, ScreenedPassDecidesAsTheDoubleSums3D) {
  check_screened<3>(0.02, Vec<3>(0.3, 0.7, 0.1), 5);
  check_screened<3>(1e-30, Vec<3>(-5e-29, 2e-30, 0), 6);
  check_screened<3>(3e25, Vec<3>(1e27, -2e26, 5e25), 8);
  check_screened<3>(0.01, Vec<3>(1e6, -1e6, 3e5), 7);
}

}  // namespace
}  // namespace nodegen::fill_detail
