#pragma once
// The candidate test: which candidates of an expanded node p no gathered neighbour blocks, all
// candidates at once, decided exactly as clear_of's double-precision sums decide them.
//
// Shape: one pass over the neighbours updates every candidate's nearest squared distance (the kernels
// of nearest_squared.hpp, one clone per instruction set): the inner loop runs over the candidates'
// coordinate arrays and vectorises, where a loop per candidate over the short neighbour list spends its
// time in reductions. The kernel marks the clear candidates in masks of 64 (CandidateTest::clear), so
// the selection after it visits only those, without a branch per candidate.
//
// 2D: the double sums themselves; a candidate is clear when its squared distance is at least r2.
//
// 3D: a screening pass in single precision, twice the candidates a step, on offsets from p divided by
// the gather radius (so every coordinate lies in [-1, 1] whatever the domain's size or place). A
// candidate whose float distance lies within kScreenMargin of the scaled r2 is settled by the double
// sums (clear_of); the others by the float distance, which lies on the same side of the limit as the
// double one (kScreenMargin's bound). So every candidate is decided as the double sums decide it and
// the nodes do not change. In 2D the screen does not pay (bench/RESULTS.md, Fill): a ring of 15
// candidates leaves 7 to the 8-wide loop's scalar tail, and the copies cost more than the narrower
// pass saves.
//
// Scratch: CandidateTest keeps its arrays between calls (one per thread), so the test allocates only
// while they grow.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "nodegen/fill/internal/point_list.hpp"
#include "nodegen/fill/nearest_squared.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

// What nearest_squared gives per candidate: a double in 2D, a float in 3D.
template <int D>
using NearValue = std::conditional_t<D == 2, double, float>;

// The candidate test's result and scratch (nearest_squared): which candidates no node blocks, as bits.
template <int D>
struct CandidateTest {
  std::vector<NearValue<D>> near2;   // each candidate against its nearest neighbour (3D: the float screen's)
  std::vector<float> floats;         // 3D: the single-precision copies of the candidates and neighbours
  std::vector<std::uint64_t> clear;  // bit i % 64 of word i / 64: no node blocks candidate i

  // Room for m candidates' marks: words the kernels then write whole (size), or all blocked (reset).
  void size(std::size_t m) { clear.resize((m + 63) / 64); }
  void reset(std::size_t m) { clear.assign((m + 63) / 64, 0); }
  bool is_clear(std::size_t i) const { return ((clear[i / 64] >> (i % 64)) & 1) != 0; }
  void set_clear(std::size_t i) { clear[i / 64] |= std::uint64_t{1} << (i % 64); }
  void set_blocked(std::size_t i) { clear[i / 64] &= ~(std::uint64_t{1} << (i % 64)); }
  // f(i) for every clear candidate i, in order (one step per clear candidate, not per candidate). Each
  // word is read once before its candidates are visited, so f may mark them blocked.
  template <class F>
  void for_each_clear(F&& f) const {
    for (std::size_t w = 0; w < clear.size(); ++w)
      for (std::uint64_t bits = clear[w]; bits != 0; bits &= bits - 1)
        f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
  }
};

// The margin of the screening pass, in units of the squared gather radius: at least twice the largest
// difference between a float squared distance of offsets scaled into [-1, 1] and the double one (each
// coordinate rounds by 2^-24 on conversion and the difference by 2^-23, so a squared axis by under
// 5 * 2^-22 and the sum of three, with its roundings, by under 5e-6).
inline constexpr double kScreenMargin = 1.0 / 65536;

// Sets t.clear to the candidates of `cands` with no point of `pts` strictly within sqrt(r2), by
// clear_of's sums, term for term (pts lie within `reach` of p, the candidates' node).
template <int D>
inline void nearest_squared(const Vec<D>& p, double reach, const PointList<D>& cands, const PointList<D>& pts,
                            double r2, CandidateTest<D>& t) {
  const std::size_t m = cands.size(), n = pts.size();
  t.size(m);
  if constexpr (D == 2) {
    t.near2.assign(m, std::numeric_limits<double>::infinity());
    nearest_squared_2d(cands.x[0].data(), cands.x[1].data(), m, pts.x[0].data(), pts.x[1].data(), n, r2,
                       t.near2.data(), t.clear.data());
  } else {
    const double scale = 1.0 / reach;
    t.near2.resize(m);
    if (t.floats.size() < 3 * (m + n)) t.floats.resize(2 * 3 * (m + n));
    const ScreenInput3 in{{cands.x[0].data(), cands.x[1].data(), cands.x[2].data()}, m,
                          {pts.x[0].data(), pts.x[1].data(), pts.x[2].data()}, n, {p[0], p[1], p[2]}, scale};
    // lo < limit < hi as floats: the margin is 512-1024 float ulps at the limit (just below 0.25).
    const double limit = r2 * scale * scale;
    const auto lo = static_cast<float>(limit - kScreenMargin), hi = static_cast<float>(limit + kScreenMargin);
    nearest_squared_3f(in, lo, t.floats.data(), t.near2.data(), t.clear.data());
    // The marked candidates are clear but those within the margin, which the double sums settle.
    t.for_each_clear([&](std::size_t i) {
      if (t.near2[i] < hi && !clear_of<D>(cands.at(i), pts, r2)) t.set_blocked(i);
    });
  }
}

}  // namespace nodegen::fill_detail
