#pragma once
// Which of a 2D node's candidates the PNP fill keeps, and in which order it tries them.
//
// The candidates lie on the circle of radius h around the expanded node p, evenly spaced (15 of them:
// 24 degrees apart), turned by a random angle. A candidate is free when it lies inside the domain and
// no existing node is within zeta*h of it; the free ones form runs of consecutive ring positions,
// separated by blocked ones. Medusa's GeneralFill tries the ring from position 0 on, so when position 0
// falls inside a free run, the scan keeps position 0 and reaches the part of the run behind it last;
// when that part is one or two positions long, both are within 48 degrees of the kept position 0 and
// are lost, and the run ends 24-48 degrees short of the node that blocks it. Such gaps are where
// unfillable voids grow: square- and pentagon-shaped holes that no later candidate can enter without
// coming closer than h to a node.
//
// Here the scan starts at the first free position that follows a blocked one, so every free run is
// entered at its counter-clockwise end and the first kept candidate sits right next to the node that
// blocks the run. The largest holes shrink and the packing density rises to Medusa's (bench/RESULTS.md,
// Fill). The randomness of the rotation is unchanged: it still decides where on the ring the positions
// lie.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

// Keeps `c` unless it is closer than zeta*h to the first or the last candidate kept so far. On an evenly
// spaced ring the distance between two positions grows with their index gap up to half the ring, so of
// the candidates kept so far (in scan order) the nearest to a new one is the last kept, behind it, or
// the first kept, ahead of it around the ring: these two tests are the full test.
class RingKeeper {
 public:
  RingKeeper(double rz2, std::vector<Vec<2>>& kept) : rz2_(rz2), kept_(kept) {}
  void offer(const Vec<2>& c) {
    if (!kept_.empty() && ((last_ - c).squaredNorm() < rz2_ || (first_ - c).squaredNorm() < rz2_)) return;
    if (kept_.empty()) first_ = c;
    kept_.push_back(c);
    last_ = c;
  }

 private:
  double rz2_;
  std::vector<Vec<2>>& kept_;  // empty when offering starts
  Vec<2> first_ = Vec<2>::Zero(), last_ = Vec<2>::Zero();
};

// Appends to `kept` the ring candidates to keep, in the order tried: free ones (unblocked: bit k % 64
// of unblocked[k / 64] set, no existing node within zeta*h of candidate k; and `inside(c)`: in the
// domain) that keep at least zeta*h (rz2 = its square) from every candidate kept before them, the scan
// starting at the first free position whose predecessor (clockwise neighbour) is blocked, or at
// position 0 when none is blocked (a lone node) or none is free. `at(k)` gives position k of n evenly
// spaced on a circle, counter-clockwise (place_candidates); `kept` is empty on entry.
// `inside` is called only for positions not blocked, exactly once each, in ring order (it may be
// costly: a mesh query). The unblocked bits come from the candidate test, which sets them without a
// branch per position (the blocked test of a node's ring is a coin flip to a branch predictor). Up to
// 64 candidates the free positions are one mask and the scan runs over its set bits; `scratch` serves
// larger rings (one byte per candidate, reused so the fill does not allocate per node).
template <class At, class Inside>
void select_on_ring(std::size_t n, At&& at, double rz2, const std::uint64_t* unblocked, Inside&& inside,
                    std::vector<unsigned char>& scratch, std::vector<Vec<2>>& kept) {
  if (n == 0) return;
  RingKeeper keeper(rz2, kept);
  if (n <= 64) {
    const std::uint64_t all = n == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1;
    std::uint64_t free = unblocked[0] & all;
    for (std::uint64_t todo = free; todo != 0; todo &= todo - 1) {
      const auto k = static_cast<std::size_t>(std::countr_zero(todo));
      if (!inside(at(k))) free &= ~(std::uint64_t{1} << k);
    }
    if (free == 0) return;
    const std::uint64_t after_blocked = free & ~(((free << 1) | (free >> (n - 1))) & all);
    const auto start = static_cast<std::size_t>(after_blocked ? std::countr_zero(after_blocked) : 0);
    // The free mask turned so that bit j is ring position start + j (mod n).
    for (std::uint64_t todo = start ? ((free >> start) | (free << (n - start))) & all : free; todo != 0;
         todo &= todo - 1) {
      const std::size_t k = start + static_cast<std::size_t>(std::countr_zero(todo));
      keeper.offer(at(k < n ? k : k - n));
    }
    return;
  }
  scratch.resize(n);
  for (std::size_t k = 0; k < n; ++k) scratch[k] = ((unblocked[k / 64] >> (k % 64)) & 1) != 0 && inside(at(k)) ? 1 : 0;
  std::size_t start = 0;
  for (std::size_t k = 0, before = n - 1; k < n; before = k++) {
    if (scratch[k] && !scratch[before]) {
      start = k;
      break;
    }
  }
  for (std::size_t j = 0, k = start; j < n; ++j, k = k + 1 == n ? 0 : k + 1)
    if (scratch[k]) keeper.offer(at(k));
}

}  // namespace nodegen::fill_detail
