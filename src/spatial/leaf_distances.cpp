// The leaf scan kernel in one clone per instruction set (leaf_distances.hpp). One template serves the
// four array types; each clone vectorises it at its width.
#include "nodegen/spatial/leaf_distances.hpp"

#include "target_clones.hpp"

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

}  // namespace nodegen::spatial_detail
