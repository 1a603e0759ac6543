// The candidate test kernel in one clone per instruction set (nearest_squared.hpp). One pass over the
// neighbours updates every candidate: the inner loop runs over the candidates' coordinate arrays,
// which each clone vectorises at its width.
#include "nodegen/fill/nearest_squared.hpp"

namespace nodegen::fill_detail {

// GCC only: clang 14 ignores the attribute where the header's declaration lacks it, and with it there
// too, a test program's call through it left the array unchanged. Not under a sanitizer either: the
// resolver runs while the program is relocated, before ThreadSanitizer's runtime is up, and the test
// programs crashed there. Those builds (the asan and tsan presets) run the one loop.
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define NODEGEN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define NODEGEN_CLONES
#endif

NODEGEN_CLONES void nearest_squared_2d(const double* cx, const double* cy, std::size_t m, const double* px,
                                       const double* py, std::size_t n, double* near2) noexcept {
  for (std::size_t j = 0; j < n; ++j) {
    const double qx = px[j], qy = py[j];
    for (std::size_t i = 0; i < m; ++i) {
      const double dx = qx - cx[i], dy = qy - cy[i];
      const double d2 = dx * dx + dy * dy;
      near2[i] = d2 < near2[i] ? d2 : near2[i];
    }
  }
}

NODEGEN_CLONES void nearest_squared_3d(const double* cx, const double* cy, const double* cz, std::size_t m,
                                       const double* px, const double* py, const double* pz, std::size_t n,
                                       double* near2) noexcept {
  for (std::size_t j = 0; j < n; ++j) {
    const double qx = px[j], qy = py[j], qz = pz[j];
    for (std::size_t i = 0; i < m; ++i) {
      const double dx = qx - cx[i], dy = qy - cy[i], dz = qz - cz[i];
      const double d2 = dx * dx + dy * dy + dz * dz;
      near2[i] = d2 < near2[i] ? d2 : near2[i];
    }
  }
}

}  // namespace nodegen::fill_detail
