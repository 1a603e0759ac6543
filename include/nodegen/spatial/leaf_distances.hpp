#pragma once
// The k-d tree's leaf scan kernel: the squared distances of a leaf's points to a query point, from the
// leaf's coordinate arrays (kdtree.hpp, distances2), for each way a tree keeps coordinates (doubles,
// or 32-bit grid indices: grid_frame.hpp) in 2D and 3D.
//
// Compiled once per instruction set and chosen at run time (src/spatial/target_clones.hpp), so the
// portable build scans with AVX2 where the CPU has it (four points a step) and SSE2 elsewhere (two).
// Every clone computes the same sums in the same order, so the answers do not depend on the CPU.
#include <cstdint>

namespace nodegen::spatial_detail {

// d2[i] = (x[i] - qx)^2 + (y[i] - qy)^2 [+ (z[i] - qz)^2] for i < n, the grid indices converted to
// double exactly.
void leaf_distances2(const double* x, const double* y, std::uint32_t n, double qx, double qy, double* d2) noexcept;
void leaf_distances2(const double* x, const double* y, const double* z, std::uint32_t n, double qx, double qy,
                     double qz, double* d2) noexcept;
void leaf_distances2(const std::int32_t* x, const std::int32_t* y, std::uint32_t n, double qx, double qy,
                     double* d2) noexcept;
void leaf_distances2(const std::int32_t* x, const std::int32_t* y, const std::int32_t* z, std::uint32_t n,
                     double qx, double qy, double qz, double* d2) noexcept;

}  // namespace nodegen::spatial_detail
