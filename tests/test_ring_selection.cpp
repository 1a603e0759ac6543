// The 2D fill's choice among a node's ring candidates (fill/ring_selection.hpp): each free run of the
// ring is entered at its counter-clockwise end, whatever ring position the random rotation made 0.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
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

// The kept candidates as ring positions, in the order they were kept.
std::vector<int> select_positions(const std::vector<Vec<2>>& ring, const std::set<int>& blocked) {
  auto position_of = [&](const Vec<2>& c) {
    for (std::size_t k = 0; k < ring.size(); ++k)
      if ((ring[k] - c).norm() < 1e-12) return static_cast<int>(k);
    return -1;
  };
  std::vector<signed char> state;
  std::vector<Vec<2>> kept;
  select_on_ring(ring, kZeta * kZeta, [&](const Vec<2>& c) { return !blocked.contains(position_of(c)); }, state, kept);
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

TEST(RingSelection, KeptCandidatesKeepZetaHApartAndTestEachCandidateOnce) {
  // Many rings, random blocked patterns: every pair of kept candidates is >= zeta h apart, no kept
  // candidate is blocked, and the (possibly expensive) free test runs exactly once per candidate.
  const auto ring = unit_ring(15);
  std::vector<signed char> state;
  std::vector<Vec<2>> kept;
  for (unsigned pattern = 0; pattern < (1u << 15); pattern += 37) {
    int calls = 0;
    kept.clear();
    std::set<int> blocked;
    for (int k = 0; k < 15; ++k)
      if (pattern >> k & 1u) blocked.insert(k);
    auto is_free = [&](const Vec<2>& c) {
      ++calls;
      for (int k : blocked)
        if ((ring[static_cast<std::size_t>(k)] - c).norm() < 1e-12) return false;
      return true;
    };
    select_on_ring(ring, kZeta * kZeta, is_free, state, kept);
    EXPECT_EQ(calls, 15);
    for (std::size_t i = 0; i < kept.size(); ++i) {
      for (int k : blocked) EXPECT_GT((ring[static_cast<std::size_t>(k)] - kept[i]).norm(), 1e-12);
      for (std::size_t j = 0; j < i; ++j) EXPECT_GE((kept[i] - kept[j]).norm(), kZeta);
    }
    if (blocked.size() < 15) {
      EXPECT_FALSE(kept.empty()) << "a free candidate was left although nothing was kept";
    }
  }
}

}  // namespace
}  // namespace nodegen
