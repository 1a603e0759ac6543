#pragma once
// Checks every query type of a k-d tree against brute force over pts[0, count) (id = index).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <vector>

#include "support/kdtree_test_points.hpp"

namespace nodegen::test {

template <int D, class Tree>
void check_query(const Tree& tree, const std::vector<Vec<D>>& pts, std::size_t count, const Vec<D>& q,
                 std::mt19937_64& rng) {
  const auto truth = all_by_distance<D>(pts, count, q);
  const std::size_t n = truth.size();

  // nearest
  const auto nn = tree.nearest(q);
  ASSERT_EQ(nn.has_value(), n > 0);
  if (n > 0) {
    EXPECT_TRUE(near_equal(nn->second, truth[0].second)) << nn->second << " vs " << truth[0].second;
    ASSERT_LT(nn->first, count);
    EXPECT_TRUE(near_equal((pts[nn->first] - q).norm(), truth[0].second));
  }

  // knn for several k, including k > n
  std::vector<std::pair<std::uint32_t, double>> got;
  for (int k : {1, 2, 7, 40, static_cast<int>(n) + 3}) {
    tree.knn(q, k, got);
    ASSERT_EQ(got.size(), std::min<std::size_t>(static_cast<std::size_t>(k), n));
    std::set<std::uint32_t> ids;
    for (std::size_t j = 0; j < got.size(); ++j) {
      EXPECT_TRUE(near_equal(got[j].second, truth[j].second))
          << "k=" << k << " rank " << j << ": " << got[j].second << " vs " << truth[j].second;
      ASSERT_LT(got[j].first, count);
      EXPECT_TRUE(near_equal((pts[got[j].first] - q).norm(), got[j].second));
      if (j > 0) {
        EXPECT_LE(got[j - 1].second, got[j].second);
      }
      ids.insert(got[j].first);
    }
    EXPECT_EQ(ids.size(), got.size()) << "knn reported an id twice";
  }

  // radius queries at radii around the distances of the 1st..30th neighbour
  if (n == 0) {
    EXPECT_FALSE(tree.exists_within(q, 1.0));
    return;
  }
  for (int trial = 0; trial < 3; ++trial) {
    const std::size_t rank = rng() % std::min<std::size_t>(n, 30);
    const double factors[] = {0.5, 1.0, 1.0 + 1e-9, 2.0};
    const double r = truth[rank].second * factors[rng() % 4] + (trial == 2 ? 1e-300 : 0.0);
    std::set<std::uint32_t> must, may;  // may: points within rounding of the boundary
    for (const auto& [id, dist] : truth) {
      if (near_equal(dist, r)) may.insert(id);
      else if (dist < r) must.insert(id);
      else break;
    }
    std::set<std::uint32_t> seen;
    bool duplicate = false, wrong_position = false;
    tree.for_each_within(q, r, [&](std::uint32_t id, const Vec<D>& p) {
      duplicate |= !seen.insert(id).second;
      wrong_position |= id >= count || p != pts[id];
    });
    EXPECT_FALSE(duplicate);
    EXPECT_FALSE(wrong_position);
    for (auto id : must) EXPECT_TRUE(seen.count(id)) << "for_each_within missed " << id;
    for (auto id : seen) EXPECT_TRUE(must.count(id) || may.count(id)) << "for_each_within extra " << id;
    const bool exists = tree.exists_within(q, r);
    if (!must.empty()) {
      EXPECT_TRUE(exists);
    }
    if (must.empty() && may.empty()) {
      EXPECT_FALSE(exists);
    }
  }
}

template <int D, class Tree>
void check_against_brute_force(const Tree& tree, const std::vector<Vec<D>>& pts, std::size_t count,
                               std::size_t queries, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const auto& q : make_queries<D>(pts, queries, seed)) {
    check_query<D>(tree, pts, count, q, rng);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

}  // namespace nodegen::test
