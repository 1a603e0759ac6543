// nearest_supports (spatial/nearest_supports.hpp) from more threads than cores: 1, 2, 3 and 8 threads
// give the same rows, and the rows are the k nearest by brute force (squared distance, ties by the lower
// row), for scattered points, points on a lattice (many equal distances: the ties decide), and graded
// points (a query's ball grown from a neighbour of another spacing). Built by the tsan preset too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "nodegen/spatial/nearest_supports.hpp"
#include "support/sanitized_build.hpp"

namespace {

using nodegen::Vec;

template <int D>
std::vector<std::int64_t> brute_force(const std::vector<Vec<D>>& p, int k) {
  const std::size_t n = p.size(), w = static_cast<std::size_t>(k);
  std::vector<std::int64_t> out(n * w);
  std::vector<std::pair<double, std::size_t>> by_distance(n);  // (squared distance, row): ties by the row
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      double d2 = 0.0;  // summed in axis order, as the search sums it: ties decided alike
      for (int a = 0; a < D; ++a) d2 += (p[j][a] - p[i][a]) * (p[j][a] - p[i][a]);
      by_distance[j] = {d2, j};
    }
    std::partial_sort(by_distance.begin(), by_distance.begin() + k, by_distance.end());
    for (std::size_t j = 0; j < w; ++j) out[i * w + j] = static_cast<std::int64_t>(by_distance[j].second);
  }
  return out;
}

template <int D>
std::vector<Vec<D>> points(const char* kind, std::size_t n) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Vec<D>> p(n);
  const auto side = static_cast<std::size_t>(std::ceil(std::pow(static_cast<double>(n), 1.0 / D)));
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < D; ++d) {
      if (std::string(kind) == "lattice") p[i][d] = static_cast<double>((i / static_cast<std::size_t>(std::pow(side, d))) % side);
      else if (std::string(kind) == "graded") p[i][d] = std::pow(u(rng), 3.0);  // dense near the origin
      else p[i][d] = u(rng);
    }
  if (std::string(kind) == "lattice") {  // distinct positions only
    std::sort(p.begin(), p.end(), [](const Vec<D>& a, const Vec<D>& b) {
      return std::lexicographical_compare(a.data(), a.data() + D, b.data(), b.data() + D);
    });
    p.erase(std::unique(p.begin(), p.end()), p.end());
  }
  return p;
}

template <int D>
void check(const char* kind, int k) {
  SCOPED_TRACE(std::string(kind) + " " + std::to_string(D) + "D k=" + std::to_string(k));
  // Smaller under a sanitizer: the brute-force answer's cost grows with the square of the points.
  const auto p = points<D>(kind, nodegen::test::kSanitized || nodegen::test::kThreadSanitized ? 1500 : 4000);
  const auto expected = brute_force<D>(p, k);
  for (int threads : {1, 2, 3, 8}) {
    EXPECT_EQ(nodegen::nearest_supports<D>(p, k, threads), expected) << threads << " threads";
  }
}

TEST(SupportsConcurrent, TheKNearestAtAnyThreadCount) {
  for (const char* kind : {"scattered", "lattice", "graded"}) {
    check<2>(kind, 9);
    check<2>(kind, 1);
    check<3>(kind, 27);
  }
}

// Points at the same place (ties by row alone), k = the node count (every point in every row), and a
// lone node: the tree's leaves then hold equal points, and the ball must grow past the whole set.
TEST(SupportsConcurrent, CoincidentPointsAndEveryPoint) {
  auto p = points<2>("scattered", 50);
  const auto once = p;
  for (int copy = 0; copy < 3; ++copy) p.insert(p.end(), once.begin(), once.end());
  auto q = points<3>("graded", 40);
  q.insert(q.end(), 30, q.front());
  for (int threads : {1, 3, 8}) {
    EXPECT_EQ(nodegen::nearest_supports<2>(p, 7, threads), brute_force<2>(p, 7)) << threads << " threads";
    EXPECT_EQ(nodegen::nearest_supports<2>(p, 200, threads), brute_force<2>(p, 200)) << threads << " threads";
    EXPECT_EQ(nodegen::nearest_supports<3>(q, 35, threads), brute_force<3>(q, 35)) << threads << " threads";
    EXPECT_EQ(nodegen::nearest_supports<3>(std::vector<Vec<3>>(1, Vec<3>(1, 2, 3)), 1, threads),
              std::vector<std::int64_t>{0});
  }
}

// Points closer than the tree's codes tell apart (a cluster 1e-12 wide beside points spread over the
// unit square: one code's points are halved by position, and runs of one code's high bits sorted by the
// rest), and points far from the origin (the cells' margin then comes from the coordinates' rounding).
TEST(SupportsConcurrent, PointsTheCodesCannotTellApartAndFarFromTheOrigin) {
  auto p = points<2>("scattered", 300);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1e-12);
  for (int i = 0; i < 300; ++i) p.push_back(Vec<2>(0.5 + u(rng), 0.25 + u(rng)));
  auto q = points<3>("scattered", 300);
  for (int i = 0; i < 200; ++i) q.push_back(Vec<3>(0.5 + u(rng), 0.25 + u(rng), 0.125 + 1e3 * u(rng)));
  auto far = points<2>("graded", 600);
  for (auto& x : far) x = x * 1e-3 + Vec<2>(1e6, -3e7);
  for (int threads : {1, 3, 8}) {
    EXPECT_EQ(nodegen::nearest_supports<2>(p, 9, threads), brute_force<2>(p, 9)) << threads << " threads";
    EXPECT_EQ(nodegen::nearest_supports<2>(p, 40, threads), brute_force<2>(p, 40)) << threads << " threads";
    EXPECT_EQ(nodegen::nearest_supports<3>(q, 27, threads), brute_force<3>(q, 27)) << threads << " threads";
    EXPECT_EQ(nodegen::nearest_supports<2>(far, 15, threads), brute_force<2>(far, 15)) << threads << " threads";
  }
}

TEST(SupportsConcurrent, BadKIsRefused) {
  const auto p = points<2>("scattered", 10);
  EXPECT_THROW(nodegen::nearest_supports<2>(p, 0, 2), std::invalid_argument);
  EXPECT_THROW(nodegen::nearest_supports<2>(p, 11, 2), std::invalid_argument);
  EXPECT_EQ(nodegen::nearest_supports<2>(p, 10, 2).size(), 100u);
  auto nan = p;
  nan[3][1] = std::nan("");
  EXPECT_THROW(nodegen::nearest_supports<2>(nan, 3, 2), std::invalid_argument);
  // A span whose squared distances overflow: no radius holds two nodes (this once never returned).
  const std::vector<Vec<2>> wide{Vec<2>(0, 0), Vec<2>(1e200, 0)};
  EXPECT_THROW(nodegen::nearest_supports<2>(wide, 2, 1), std::invalid_argument);
}

// A span of a few hundred ulps of 0, where the quantisation's scale would overflow.
TEST(SupportsConcurrent, ATinySpan) {
  const std::vector<Vec<2>> p{Vec<2>(0, 0), Vec<2>(1e-300, 0), Vec<2>(0, 1e-300), Vec<2>(3e-301, 7e-301)};
  const std::vector<Vec<3>> q{Vec<3>(0, 0, 0), Vec<3>(1e-305, 0, 0), Vec<3>(0, 0, 2e-305), Vec<3>(0, 1e-306, 0)};
  for (int threads : {1, 3}) {
    EXPECT_EQ(nodegen::nearest_supports<2>(p, 4, threads), brute_force<2>(p, 4)) << threads << " threads";
    EXPECT_EQ(nodegen::nearest_supports<3>(q, 3, threads), brute_force<3>(q, 3)) << threads << " threads";
  }
}

}  // namespace
