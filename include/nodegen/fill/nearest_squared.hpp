#pragma once
// The fill's candidate test kernels: for every candidate, the squared distance to its nearest
// neighbour, all candidates at once (internal/candidate_test.hpp says why this shape): in double
// precision for 2D, in single precision for 3D, where it is the screening pass that
// internal/candidate_test.hpp's nearest_squared settles exactly.
//
// Compiled once per instruction set and chosen at run time (spatial/target_clones.hpp), so the
// portable build runs the AVX-512 or AVX2 loop where the CPU has it and the SSE2 one elsewhere. They
// round alike: the same products and sums in the same order, so the nodes do not depend on the CPU.
#include <cstddef>
#include <cstdint>

namespace nodegen::fill_detail {

// near2[i] = min over j of (px[j] - cx[i])^2 + (py[j] - cy[i])^2 [+ (pz[j] - cz[i])^2], summed in axis
// order; near2 holds the starting values (infinity for a fresh pass). Then bit i % 64 of clear[i / 64]
// is set when near2[i] >= bound, and the rest of the last word is zero (room for (m + 63) / 64 words).
void nearest_squared_2d(const double* cx, const double* cy, std::size_t m, const double* px, const double* py,
                        std::size_t n, double bound, double* near2, std::uint64_t* clear) noexcept;
// What the single-precision pass reads: m candidates and n neighbours, one double array per axis each,
// and the centre and scale that map them into [-1, 1].
struct ScreenInput3 {
  const double* c[3];
  std::size_t m;
  const double* q[3];
  std::size_t n;
  double centre[3];
  double scale;
};

// The same in single precision on the offsets from the centre times the scale, each rounded to float
// once (into scratch, room for 3 (m + n) floats), for all m candidates (near2 starts at infinity).
void nearest_squared_3f(const ScreenInput3& in, float bound, float* scratch, float* near2,
                        std::uint64_t* clear) noexcept;

}  // namespace nodegen::fill_detail
