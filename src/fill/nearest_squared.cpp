// The candidate test kernels in one clone per instruction set (nearest_squared.hpp). One pass over the
// neighbours updates every candidate: the inner loop runs over the candidates' coordinate arrays,
// which each clone vectorises at its width.
#include "nodegen/fill/nearest_squared.hpp"

#include "../spatial/target_clones.hpp"

namespace nodegen::fill_detail {

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

NODEGEN_CLONES std::size_t nearest_squared_3f(const float* cx, const float* cy, const float* cz, std::size_t m,
                                              const float* px, const float* py, const float* pz, std::size_t n,
                                              float lo, float hi, float* near2) noexcept {
  for (std::size_t j = 0; j < n; ++j) {
    const float qx = px[j], qy = py[j], qz = pz[j];
    for (std::size_t i = 0; i < m; ++i) {
      const float dx = qx - cx[i], dy = qy - cy[i], dz = qz - cz[i];
      const float d2 = dx * dx + dy * dy + dz * dz;
      near2[i] = d2 < near2[i] ? d2 : near2[i];
    }
  }
  unsigned unsure = 0;
  for (std::size_t i = 0; i < m; ++i)
    unsure += static_cast<unsigned>(near2[i] >= lo) & static_cast<unsigned>(near2[i] < hi);
  return unsure;
}

}  // namespace nodegen::fill_detail
