#pragma once
// The k-d tree's leaf scan kernels: the squared distances of a leaf's points to a query point, from the
// leaf's coordinate arrays (kdtree.hpp), for each way a tree keeps coordinates (doubles, or 32-bit grid
// indices: grid_frame.hpp) in 2D and 3D; and which of them lie within a radius, as a bit mask.
//
// Each has a version per instruction set chosen at run time (src/spatial/leaf_distances.cpp says how),
// so the portable build scans with AVX-512 or AVX2 where the CPU has it (eight or four points a step)
// and SSE2 elsewhere (two). Every version computes the same sums in the same order, so the answers do
// not depend on the CPU.
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace nodegen::spatial_detail {

// Bit i set (i < n <= 64) when d2[i] < r2 (with OrEqual: d2[i] <= r2): the comparisons two at a time
// with SSE2 (every x86-64 has it). For distances already stored: the nearest searches, which need them,
// and leaf_within's portable version.
template <bool OrEqual>
inline std::uint64_t mask_of(const double* d2, std::uint32_t n, double r2) {
  std::uint64_t mask = 0;
  std::uint32_t i = 0;
#if defined(__SSE2__)
  const __m128d limit = _mm_set1_pd(r2);
  for (; i + 2 <= n; i += 2) {
    const __m128d v = _mm_loadu_pd(d2 + i);
    const __m128d in = OrEqual ? _mm_cmple_pd(v, limit) : _mm_cmplt_pd(v, limit);
    mask |= static_cast<std::uint64_t>(_mm_movemask_pd(in)) << i;
  }
#endif
  for (; i < n; ++i) mask |= static_cast<std::uint64_t>(OrEqual ? d2[i] <= r2 : d2[i] < r2) << i;
  return mask;
}

// d2[i] = (x[i] - qx)^2 + (y[i] - qy)^2 [+ (z[i] - qz)^2] for i < n, the grid indices converted to
// double exactly.
void leaf_distances2(const double* x, const double* y, std::uint32_t n, double qx, double qy, double* d2) noexcept;
void leaf_distances2(const double* x, const double* y, const double* z, std::uint32_t n, double qx, double qy,
                     double qz, double* d2) noexcept;
void leaf_distances2(const std::int32_t* x, const std::int32_t* y, std::uint32_t n, double qx, double qy,
                     double* d2) noexcept;
void leaf_distances2(const std::int32_t* x, const std::int32_t* y, const std::int32_t* z, std::uint32_t n,
                     double qx, double qy, double qz, double* d2) noexcept;

// Bit i set (i < n <= 64) when the squared distance of point i to q, summed as leaf_distances2 sums it,
// lies below r2; x[0..dims) are the coordinate arrays (dims 2 or 3), q the query in the same units.
std::uint64_t leaf_within(const double* const* x, int dims, std::uint32_t n, const double* q, double r2) noexcept;
std::uint64_t leaf_within(const std::int32_t* const* x, int dims, std::uint32_t n, const double* q,
                          double r2) noexcept;

// The versions of leaf_within, each callable where the CPU runs it (for the tests, which check that
// they set the same bits).
enum class ScanVersion { portable, avx2, avx512 };
bool cpu_runs(ScanVersion v) noexcept;
std::uint64_t leaf_within(ScanVersion v, const double* const* x, int dims, std::uint32_t n, const double* q,
                          double r2) noexcept;
std::uint64_t leaf_within(ScanVersion v, const std::int32_t* const* x, int dims, std::uint32_t n, const double* q,
                          double r2) noexcept;

}  // namespace nodegen::spatial_detail
