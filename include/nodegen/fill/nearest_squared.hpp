#pragma once
// The fill's candidate test kernels: for every candidate, the squared distance to its nearest
// neighbour, all candidates at once (pnp_fill.hpp's nearest_squared says why this shape): in double
// precision for 2D, in single precision for 3D, where it is the screening pass that pnp_fill.hpp's
// nearest_squared settles exactly.
//
// Compiled once per instruction set and chosen at run time (src/spatial/target_clones.hpp), so the
// portable build runs the AVX-512 or AVX2 loop where the CPU has it and the SSE2 one elsewhere. They
// round alike: the same products and sums in the same order, so the nodes do not depend on the CPU.
#include <cstddef>

namespace nodegen::fill_detail {

// near2[i] = min over j of (px[j] - cx[i])^2 + (py[j] - cy[i])^2 [+ (pz[j] - cz[i])^2], summed in axis
// order; near2 holds the starting values (infinity for a fresh pass).
void nearest_squared_2d(const double* cx, const double* cy, std::size_t m, const double* px, const double* py,
                        std::size_t n, double* near2) noexcept;
// The same in single precision; returns how many of near2 lie in [lo, hi) after the pass (the
// candidates the screening cannot decide).
std::size_t nearest_squared_3f(const float* cx, const float* cy, const float* cz, std::size_t m, const float* px,
                               const float* py, const float* pz, std::size_t n, float lo, float hi,
                               float* near2) noexcept;

}  // namespace nodegen::fill_detail
