#pragma once
// The fill's candidate test kernel: for every candidate, the squared distance to its nearest
// neighbour, all candidates at once (pnp_fill.hpp's nearest_squared says why this shape).
//
// Compiled once per instruction set and chosen at run time (GCC's `target_clones`: an ifunc resolved
// when the program loads), so the portable build runs the AVX2 loop where the CPU has it and the SSE2
// one elsewhere. The two round alike: the same products and sums in the same order (no FMA:
// the avx2 clone does not enable it, and -ffp-contract=off forbids contraction), so the nodes do not
// depend on the CPU.
#include <cstddef>

namespace nodegen::fill_detail {

// near2[i] = min over j of (px[j] - cx[i])^2 + (py[j] - cy[i])^2 [+ (pz[j] - cz[i])^2], summed in axis
// order; near2 holds the starting values (infinity for a fresh pass).
void nearest_squared_2d(const double* cx, const double* cy, std::size_t m, const double* px, const double* py,
                        std::size_t n, double* near2) noexcept;
void nearest_squared_3d(const double* cx, const double* cy, const double* cz, std::size_t m, const double* px,
                        const double* py, const double* pz, std::size_t n, double* near2) noexcept;

}  // namespace nodegen::fill_detail
