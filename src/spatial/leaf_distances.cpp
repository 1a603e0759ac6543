// The leaf scan kernels (leaf_distances.hpp).
//
// leaf_distances2: one template serves the four array types, compiled in one clone per instruction set
// (target_clones.hpp), each vectorising it at its width.
//
// leaf_within: the same sums compared with r2 into a bit mask in the same pass, so the distances are
// never stored and read back, and the test is a compare and a movemask per four points. GCC does not
// vectorise a loop that builds a bit mask, so the AVX2 and AVX-512 versions are written with
// intrinsics and picked by flags read from the CPU once, at load (a clone can only be chosen by what
// the compiler vectorises; and the flags work in the sanitizer builds too, where ifuncs cannot). The
// AVX-512 one takes eight points a step into a mask register and masks the last step's lanes instead
// of finishing one point at a time: bench/spatial/leaf_scan.cpp measures it faster than the AVX2 one
// (bench/RESULTS.md, Fill). The portable version computes the distances as leaf_distances2 does and
// compares them two at a time (SSE2, which every x86-64 has). All sum in axis order with no fused
// multiply-add, so they set the same bits.
#include "nodegen/spatial/leaf_distances.hpp"

#include <type_traits>

#include "nodegen/spatial/target_clones.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#define NODEGEN_HAVE_AVX2_PATH 1
#include <immintrin.h>
#endif

namespace nodegen::spatial_detail {
namespace {

template <class C>
inline void distances2_2d(const C* __restrict x, const C* __restrict y, std::uint32_t n, double qx, double qy,
                          double* __restrict d2) {
  for (std::uint32_t i = 0; i < n; ++i) {
    const double tx = static_cast<double>(x[i]) - qx, ty = static_cast<double>(y[i]) - qy;
    d2[i] = tx * tx + ty * ty;
  }
}

template <class C>
inline void distances2_3d(const C* __restrict x, const C* __restrict y, const C* __restrict z, std::uint32_t n,
                          double qx, double qy, double qz, double* __restrict d2) {
  for (std::uint32_t i = 0; i < n; ++i) {
    const double tx = static_cast<double>(x[i]) - qx, ty = static_cast<double>(y[i]) - qy,
                 tz = static_cast<double>(z[i]) - qz;
    d2[i] = tx * tx + ty * ty + tz * tz;
  }
}

// The portable leaf_within: D coordinate arrays x[0..D), query q.
template <int D, class C>
std::uint64_t within_portable(const C* const* x, std::uint32_t n, const double* q, double r2) {
  double d2[64];
  if constexpr (D == 2) distances2_2d(x[0], x[1], n, q[0], q[1], d2);
  else distances2_3d(x[0], x[1], x[2], n, q[0], q[1], q[2], d2);
  return mask_of<false>(d2, n, r2);
}

#ifdef NODEGEN_HAVE_AVX2_PATH
const bool kCpuHasAvx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0;
}();

template <class C>
__attribute__((target("avx2"))) inline __m256d load4(const C* p) {
  if constexpr (std::is_same_v<C, double>) return _mm256_loadu_pd(p);
  else return _mm256_cvtepi32_pd(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// Four points a step; the last n % 4 one at a time (the slots past n may be being written by an
// insert, so they are not read).
template <int D, class C>
__attribute__((target("avx2"))) std::uint64_t within_avx2(const C* const* x, std::uint32_t n, const double* q,
                                                          double r2) {
  std::uint64_t mask = 0;
  const __m256d limit = _mm256_set1_pd(r2);
  __m256d qv[D];
  for (int d = 0; d < D; ++d) qv[d] = _mm256_set1_pd(q[d]);
  std::uint32_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m256d tx = _mm256_sub_pd(load4(x[0] + i), qv[0]);
    const __m256d ty = _mm256_sub_pd(load4(x[1] + i), qv[1]);
    __m256d s = _mm256_add_pd(_mm256_mul_pd(tx, tx), _mm256_mul_pd(ty, ty));
    if constexpr (D == 3) {
      const __m256d tz = _mm256_sub_pd(load4(x[2] + i), qv[2]);
      s = _mm256_add_pd(s, _mm256_mul_pd(tz, tz));
    }
    mask |= static_cast<std::uint64_t>(_mm256_movemask_pd(_mm256_cmp_pd(s, limit, _CMP_LT_OQ))) << i;
  }
  for (; i < n; ++i) {
    double s = 0;
    for (int d = 0; d < D; ++d) {
      const double t = static_cast<double>(x[d][i]) - q[d];
      s = d == 0 ? t * t : s + t * t;
    }
    mask |= static_cast<std::uint64_t>(s < r2) << i;
  }
  return mask;
}

const bool kCpuHasAvx512 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") != 0 && __builtin_cpu_supports("avx512vl") != 0;
}();

template <class C>
__attribute__((target("avx512f,avx512vl"))) inline __m512d load8(__mmask8 k, const C* p) {
  if constexpr (std::is_same_v<C, double>) return _mm512_maskz_loadu_pd(k, p);
  // The masked conversion, not _mm512_cvtepi32_pd: g++ 12 warns that the latter's undefined source is
  // used uninitialised.
  else return _mm512_maskz_cvtepi32_pd(k, _mm256_maskz_loadu_epi32(k, p));
}

// Eight points a step, the last step's lanes past n masked off: a masked-off lane is neither loaded
// (no fault, and its slot, which an insert may be writing, is not read) nor compared, so the leaf's
// tail costs one step instead of a scalar loop.
template <int D, class C>
__attribute__((target("avx512f,avx512vl"))) std::uint64_t within_avx512(const C* const* x, std::uint32_t n,
                                                                       const double* q, double r2) {
  std::uint64_t mask = 0;
  const __m512d limit = _mm512_set1_pd(r2);
  __m512d qv[D];
  for (int d = 0; d < D; ++d) qv[d] = _mm512_set1_pd(q[d]);
  for (std::uint32_t i = 0; i < n; i += 8) {
    const __mmask8 k = n - i >= 8 ? __mmask8{0xFF} : static_cast<__mmask8>((1u << (n - i)) - 1);
    const __m512d tx = _mm512_sub_pd(load8(k, x[0] + i), qv[0]);
    const __m512d ty = _mm512_sub_pd(load8(k, x[1] + i), qv[1]);
    __m512d s = _mm512_add_pd(_mm512_mul_pd(tx, tx), _mm512_mul_pd(ty, ty));
    if constexpr (D == 3) {
      const __m512d tz = _mm512_sub_pd(load8(k, x[2] + i), qv[2]);
      s = _mm512_add_pd(s, _mm512_mul_pd(tz, tz));
    }
    mask |= static_cast<std::uint64_t>(_mm512_mask_cmp_pd_mask(k, s, limit, _CMP_LT_OQ)) << i;
  }
  return mask;
}
#endif

template <int D, class C>
std::uint64_t within(ScanVersion v, const C* const* x, std::uint32_t n, const double* q, double r2) {
#ifdef NODEGEN_HAVE_AVX2_PATH
  if (v == ScanVersion::avx512) return within_avx512<D>(x, n, q, r2);
  if (v == ScanVersion::avx2) return within_avx2<D>(x, n, q, r2);
#endif
  return within_portable<D>(x, n, q, r2);
}

ScanVersion best_version() {
#ifdef NODEGEN_HAVE_AVX2_PATH
  if (kCpuHasAvx512) return ScanVersion::avx512;
  if (kCpuHasAvx2) return ScanVersion::avx2;
#endif
  return ScanVersion::portable;
}

}  // namespace

NODEGEN_CLONES void leaf_distances2(const double* x, const double* y, std::uint32_t n, double qx, double qy,
                                    double* d2) noexcept {
  distances2_2d(x, y, n, qx, qy, d2);
}
NODEGEN_CLONES void leaf_distances2(const double* x, const double* y, const double* z, std::uint32_t n, double qx,
                                    double qy, double qz, double* d2) noexcept {
  distances2_3d(x, y, z, n, qx, qy, qz, d2);
}
NODEGEN_CLONES void leaf_distances2(const std::int32_t* x, const std::int32_t* y, std::uint32_t n, double qx,
                                    double qy, double* d2) noexcept {
  distances2_2d(x, y, n, qx, qy, d2);
}
NODEGEN_CLONES void leaf_distances2(const std::int32_t* x, const std::int32_t* y, const std::int32_t* z,
                                    std::uint32_t n, double qx, double qy, double qz, double* d2) noexcept {
  distances2_3d(x, y, z, n, qx, qy, qz, d2);
}

bool cpu_runs(ScanVersion v) noexcept {
#ifdef NODEGEN_HAVE_AVX2_PATH
  switch (v) {
    case ScanVersion::avx512: return kCpuHasAvx512;
    case ScanVersion::avx2: return kCpuHasAvx2;
    case ScanVersion::portable: return true;
  }
  return false;
#else
  return v == ScanVersion::portable;
#endif
}

std::uint64_t leaf_within(ScanVersion v, const double* const* x, int dims, std::uint32_t n, const double* q,
                          double r2) noexcept {
  return dims == 2 ? within<2>(v, x, n, q, r2) : within<3>(v, x, n, q, r2);
}
std::uint64_t leaf_within(ScanVersion v, const std::int32_t* const* x, int dims, std::uint32_t n, const double* q,
                          double r2) noexcept {
  return dims == 2 ? within<2>(v, x, n, q, r2) : within<3>(v, x, n, q, r2);
}
std::uint64_t leaf_within(const double* const* x, int dims, std::uint32_t n, const double* q, double r2) noexcept {
  return leaf_within(best_version(), x, dims, n, q, r2);
}
std::uint64_t leaf_within(const std::int32_t* const* x, int dims, std::uint32_t n, const double* q,
                          double r2) noexcept {
  return leaf_within(best_version(), x, dims, n, q, r2);
}

}  // namespace nodegen::spatial_detail
