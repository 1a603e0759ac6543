#pragma once
// cos and sin of a fraction of a turn, computed with + and * alone: the same bits on every x86-64
// machine and in every build of nodegen, and faster than the C library's sincos (bench/RESULTS.md, Fill).
//
// Why not std::cos / std::sin: the fill turns every expanded node's candidates by a random angle, so
// the nodes depend on the last bit of each cosine. glibc picks its sincos at load time by the CPU
// (__sincos_fma on a machine with FMA, the plain one elsewhere) and does not promise correct rounding,
// so two machines could place different nodes from one seed; and one sincos per node is a visible
// share of a 2D fill's time.
//
// How: a turn is a 64-bit fixed-point fraction t (angle 2 pi t / 2^64). Its top 10 bits pick one of
// 1024 table angles a; the remaining bits give a small angle d < 2 pi / 1024, whose cos and sin are
// short Taylor polynomials (the first omitted terms, d^8/8! and d^9/9!, are below 1e-22). Then
// cos(a + d) and sin(a + d) by the addition formulas. The table comes from the same kind of series,
// evaluated once on [0, pi/4] and unfolded to the circle by the octant symmetries (exact swaps and
// sign changes). IEEE double + and * round the same everywhere, and every build compiles with
// -ffp-contract=off (CMakeLists.txt), so no a * b + c becomes an FMA: -march=native and clang builds give
// the same bits as portable ones. Accuracy: within 2 ulp of the true values (tests/fill/test_turn.cpp).
#include <array>
#include <cstdint>
#include <numbers>

namespace nodegen::fill_detail {

struct CosSin {
  double cos;
  double sin;
};

namespace turn_detail {

inline constexpr int kTableBits = 10;
inline constexpr int kTableSize = 1 << kTableBits;

// cos and sin of x for |x| <= pi/4 by their Taylor series to x^20 and x^21 (Horner, in x^2).
constexpr CosSin series(double x) {
  const double x2 = x * x;
  double c = 1.0, s = 1.0;
  // Horner from the highest term: c = 1 - x^2/2! (1 - x^2/(3*4) (1 - ...)), s likewise from x/1!.
  for (int n = 10; n >= 1; --n) {
    c = 1.0 - x2 / ((2.0 * n - 1.0) * (2.0 * n)) * c;
    s = 1.0 - x2 / ((2.0 * n) * (2.0 * n + 1.0)) * s;
  }
  return {c, x * s};
}

// cos and sin of 2 pi k / kTableSize for every k, by octants: k = 8 q + j units of pi/4 each split
// into kTableSize/8 steps; angles in the octant's second half are measured back from its far end.
struct Table {
  std::array<CosSin, kTableSize> entry{};
  constexpr Table() {
    constexpr int kOctant = kTableSize / 8;
    for (int k = 0; k < kTableSize; ++k) {
      const int octant = k / kOctant, j = k % kOctant;
      // The angle within its quarter turn, as (cos, sin) of an angle in [0, pi/4].
      const int in_quarter = (octant % 2) * kOctant + j;  // 0 .. 2 kOctant - 1 steps of the quarter
      const bool upper = in_quarter > kOctant;
      const int steps = upper ? 2 * kOctant - in_quarter : in_quarter;
      const CosSin b = series(steps * (std::numbers::pi / 4.0) / kOctant);
      CosSin q = upper ? CosSin{b.sin, b.cos} : b;  // cos(pi/2 - x) = sin x
      // Rotate by the quarter turns: (c, s) -> (-s, c) each.
      for (int r = 0; r < octant / 2; ++r) q = CosSin{-q.sin, q.cos};
      entry[static_cast<std::size_t>(k)] = q;
    }
  }
};

inline constexpr Table kTable{};

}  // namespace turn_detail

// cos and sin of the angle 2 pi t / 2^64.
inline CosSin cos_sin_of_turn(std::uint64_t t) {
  using namespace turn_detail;
  const CosSin a = kTable.entry[t >> (64 - kTableBits)];
  // The rest of the turn, below 2^54: exact in a double up to its last bit's rounding.
  const double rest = static_cast<double>(t & ((std::uint64_t{1} << (64 - kTableBits)) - 1));
  const double d = rest * (2.0 * std::numbers::pi * 0x1.0p-64);
  const double d2 = d * d;
  const double cd = 1.0 - d2 * (0.5 - d2 * (1.0 / 24.0 - d2 * (1.0 / 720.0)));
  const double sd = d * (1.0 - d2 * (1.0 / 6.0 - d2 * (1.0 / 120.0 - d2 * (1.0 / 5040.0))));
  return {a.cos * cd - a.sin * sd, a.sin * cd + a.cos * sd};
}

// The turn k / n as a 64-bit fraction (rounded down), for 0 <= k < n.
constexpr std::uint64_t turn_fraction(std::uint64_t k, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(k) << 64) / n);
}

}  // namespace nodegen::fill_detail
