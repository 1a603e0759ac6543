// The 2D fill's choice among a node's ring candidates (fill/ring_selection.hpp): each free run of the
// ring is entered at its counter-clockwise end, whatever ring position the random rotation made 0.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <set>
#include <vector>

#include "nodegen/fill/pnp_fill.hpp"  // kZeta
#include "nodegen/fill/ring_selection.hpp"

namespace nodegen {
namespace {

using fill_detail::select_on_ring;

// n positions on the unit circle, position k at angle 2 pi k / n (counter-clockwise).
std::vector<Vec<2>> unit_ring(int n) {
  std::vector<Vec<2>> ring;
  for (int k = 0; k < n; ++k) {
    const double a = 2.0 * std::numbers::pi * k / n;
    ring.emplace_back(std::cos(a), std::sin(a));
  }
  return ring;
}

// The ring's unblocked positions as select_on_ring reads them: bit k % 64 of word k / 64.
template <class Blocked>
std::vector<std::uint64_t> unblocked_bits(std::size_t n, Blocked&& blocked) {
  std::vector<std::uint64_t> words((n + 63) / 64, 0);
  for (std::size_t k = 0; k < n; ++k)
    if (!blocked(k)) words[k / 64] |= std::uint64_t{1} << (k % 64);
  return words;
}

// The kept candidates as ring positions, in the order they were kept.
std::vector<int> select_positions(const std::vector<Vec<2>>& ring, const std::set<int>& blocked) {
  auto position_of = [&](const Vec<2>& c) {
    for (std::size_t k = 0; k < ring.size(); ++k)
      if ((ring[k] - c).norm() < 1e-12) return static_cast<int>(k);
    return -1;
  };
  std::vector<unsigned char> scratch;
  std::vector<Vec<2>> kept;
  const auto unblocked =
      unblocked_bits(ring.size(), [&](std::size_t k) { return blocked.contains(static_cast<int>(k)); });
  select_on_ring(
      ring.size(), [&](std::size_t k) { return ring[k]; }, kZeta * kZeta, unblocked.data(),
      [](const Vec<2>&) { return true; }, scratch, kept);
  std::vector<int> out;
  for (const auto& c : kept) out.push_back(position_of(c));
  return out;
}

TEST(RingSelection, StartsAtTheFreeRunNextToTheBlockedArc) {
  // 15 positions, 24 degrees apart: kept siblings are 3 positions (72 degrees, 1.18 h) apart. Position 0
  // lies inside the free run 8..4; Medusa's order (0, 1, 2, ...) would keep 0, 3, 8, 11 and leave a
  // 3-position gap between 11 and the blocked 5..7 seen from 8's side.
  EXPECT_EQ(select_positions(unit_ring(15), {5, 6, 7}), (std::vector<int>{8, 11, 14, 2}));
}

TEST(RingSelection, EveryFreeRunIsEnteredAtItsCounterClockwiseEnd) {
  // Runs 4..9 and 11..2; from position 0 the scan would keep 0, 4, 7, 11.
  EXPECT_EQ(select_positions(unit_ring(15), {3, 10}), (std::vector<int>{4, 7, 11, 14}));
}

TEST(RingSelection, ResultDoesNotDependOnWhereTheRotationPutPositionZero) {
  // The same blocked arc at every offset keeps the same candidates relative to the arc.
  const auto ring = unit_ring(15);
  for (int shift = 0; shift < 15; ++shift) {
    std::set<int> blocked;
    for (int k : {5, 6, 7}) blocked.insert((k + shift) % 15);
    std::vector<int> expected;
    for (int k : {8, 11, 14, 2}) expected.push_back((k + shift) % 15);
    EXPECT_EQ(select_positions(ring, blocked), expected) << "shift " << shift;
  }
}

TEST(RingSelection, LoneNodeKeepsFiveSiblingsAndBlockedRingKeepsNone) {
  EXPECT_EQ(select_positions(unit_ring(15), {}), (std::vector<int>{0, 3, 6, 9, 12}));
  std::set<int> all;
  for (int k = 0; k < 15; ++k) all.insert(k);
  EXPECT_TRUE(select_positions(unit_ring(15), all).empty());
}

// The rule written the plain way: flags, start after the first blocked-to-free step, greedy scan that
// tests every kept candidate. select_on_ring must keep exactly these, on the bit-mask path (n <= 64)
// and the byte path (n > 64) alike.
std::vector<Vec<2>> reference_selection(const std::vector<Vec<2>>& ring, const std::vector<bool>& free, double rz2) {
  const std::size_t n = ring.size();
  std::size_t start = 0;
  for (std::size_t k = 0; k < n; ++k)
    if (free[k] && !free[(k + n - 1) % n]) {
      start = k;
      break;
    }
  std::vector<Vec<2>> kept;
  for (std::size_t j = 0; j < n; ++j) {
    const std::size_t k = (start + j) % n;
    bool apart = free[k];
    for (const auto& c : kept) apart = apart && (c - ring[k]).squaredNorm() >= rz2;
    if (apart) kept.push_back(ring[k]);
  }
  return kept;
}

TEST(RingSelection, MatchesThePlainRuleAndAsksInsideOnlyOfUnblockedCandidatesOnce) {
  std::mt19937_64 rng(5);
  std::vector<unsigned char> scratch;
  std::vector<Vec<2>> kept;
  for (int n : {1, 2, 6, 7, 15, 63, 64, 65, 100}) {
    const auto ring = unit_ring(n);
    for (int trial = 0; trial < 400; ++trial) {
      // A candidate is free when it is not blocked and lies inside: two independent draws.
      std::vector<bool> blocked(static_cast<std::size_t>(n)), inside(static_cast<std::size_t>(n)), free(static_cast<std::size_t>(n));
      const double p_blocked = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
      const double p_inside = std::uniform_real_distribution<double>(0.5, 1.0)(rng);
      std::vector<std::size_t> unblocked;
      for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k) {
        blocked[k] = std::bernoulli_distribution(p_blocked)(rng);
        inside[k] = std::bernoulli_distribution(p_inside)(rng);
        free[k] = !blocked[k] && inside[k];
        if (!blocked[k]) unblocked.push_back(k);
      }
      std::size_t asked = 0;  // inside() calls so far: the next must be unblocked[asked]
      auto is_inside = [&](const Vec<2>& c) {
        EXPECT_LT(asked, unblocked.size()) << "inside asked of a blocked candidate";
        if (asked >= unblocked.size()) return false;
        const std::size_t k = unblocked[asked++];
        EXPECT_LT((c - ring[k]).norm(), 1e-12) << "inside not asked in ring order, or of a blocked candidate";
        return static_cast<bool>(inside[k]);
      };
      kept.clear();
      const auto bits = unblocked_bits(ring.size(), [&](std::size_t k) { return static_cast<bool>(blocked[k]); });
      select_on_ring(
          ring.size(), [&](std::size_t k) { return ring[k]; }, kZeta * kZeta, bits.data(), is_inside, scratch, kept);
      ASSERT_EQ(asked, unblocked.size()) << "inside not asked once of every unblocked candidate";
      const auto expected = reference_selection(ring, free, kZeta * kZeta);
      ASSERT_EQ(kept.size(), expected.size()) << "n " << n << " trial " << trial;
      for (std::size_t i = 0; i < kept.size(); ++i) EXPECT_LT((kept[i] - expected[i]).norm(), 1e-15);
    }
  }
}

TEST(RingSelection, LargeRingEntersTheFreeRunNextToTheBlockedArc) {
  // The byte path: 100 positions (3.6 degrees apart, kept siblings 17 apart), arc 40..59 blocked.
  const auto ring = unit_ring(100);
  std::set<int> blocked;
  for (int k = 40; k < 60; ++k) blocked.insert(k);
  const auto kept = select_positions(ring, blocked);
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.front(), 60);
}

}  // namespace
}  // namespace nodegen
