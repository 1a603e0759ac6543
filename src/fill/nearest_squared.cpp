// The candidate test kernels in one clone per instruction set (nearest_squared.hpp). One pass over the
// neighbours updates every candidate: the inner loop runs over the candidates' coordinate arrays,
// which each clone vectorises at its width.
#include "nodegen/fill/nearest_squared.hpp"

#include <cstdint>
#include <limits>

#include "nodegen/spatial/target_clones.hpp"

namespace nodegen::fill_detail {
namespace {

// Bit i % 64 of words[i / 64] set when v[i] >= bound, one word per 64 values, without a branch per
// value (which are set is a coin flip to a predictor). Inlined into each clone, which vectorises it.
template <class T>
inline void mark_at_least(const T* v, std::size_t m, T bound, std::uint64_t* words) {
  for (std::size_t base = 0; base < m; base += 64) {
    const std::size_t end = m - base < 64 ? m : base + 64;
    std::uint64_t bits = 0;
    for (std::size_t i = base; i < end; ++i) bits |= static_cast<std::uint64_t>(v[i] >= bound) << (i - base);
    words[base / 64] = bits;
  }
}

}  // namespace

NODEGEN_CLONES void nearest_squared_2d(const double* cx, const double* cy, std::size_t m, const double* px,
                                       const double* py, std::size_t n, double bound, double* near2,
                                       std::uint64_t* clear) noexcept {
  for (std::size_t j = 0; j < n; ++j) {
    const double qx = px[j], qy = py[j];
    for (std::size_t i = 0; i < m; ++i) {
      const double dx = qx - cx[i], dy = qy - cy[i];
      const double d2 = dx * dx + dy * dy;
      near2[i] = d2 < near2[i] ? d2 : near2[i];
    }
  }
  mark_at_least(near2, m, bound, clear);
}

NODEGEN_CLONES void nearest_squared_3f(const ScreenInput3& in, float bound, float* scratch, float* near2,
                                       std::uint64_t* clear) noexcept {
  // The offsets from the centre, scaled and rounded to float once each: the candidates' three arrays,
  // then the neighbours'. Here rather than in the caller so they too run at the clone's width (in the
  // caller's portable code they would be SSE2 loops).
  const std::size_t m = in.m, n = in.n;
  float* fc[3] = {scratch, scratch + m, scratch + 2 * m};
  float* fq[3] = {scratch + 3 * m, scratch + 3 * m + n, scratch + 3 * m + 2 * n};
  for (int a = 0; a < 3; ++a) {
    const double pa = in.centre[a], scale = in.scale;
    const double* cx = in.c[a];
    const double* qx = in.q[a];
    float* fca = fc[a];
    float* fqa = fq[a];
    for (std::size_t i = 0; i < m; ++i) fca[i] = static_cast<float>((cx[i] - pa) * scale);
    for (std::size_t j = 0; j < n; ++j) fqa[j] = static_cast<float>((qx[j] - pa) * scale);
  }
  const float* cx = fc[0];
  const float* cy = fc[1];
  const float* cz = fc[2];
  for (std::size_t i = 0; i < m; ++i) near2[i] = std::numeric_limits<float>::infinity();
  for (std::size_t j = 0; j < n; ++j) {
    const float qx = fq[0][j], qy = fq[1][j], qz = fq[2][j];
    for (std::size_t i = 0; i < m; ++i) {
      const float dx = qx - cx[i], dy = qy - cy[i], dz = qz - cz[i];
      const float d2 = dx * dx + dy * dy + dz * dz;
      near2[i] = d2 < near2[i] ? d2 : near2[i];
    }
  }
  mark_at_least(near2, m, bound, clear);
}

}  // namespace nodegen::fill_detail
