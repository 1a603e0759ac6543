// The 3D candidate placement loop (fill/candidates.hpp) in one clone per instruction set: the loop runs
// over candidates in vector registers at the clone's width. Without contraction (-ffp-contract=off)
// every clone rounds each product and sum alike, so the candidates do not depend on the CPU.
#include "nodegen/fill/candidates.hpp"

#include "nodegen/spatial/target_clones.hpp"

namespace nodegen::fill_detail {

NODEGEN_CLONES void rotate_and_shift_3d(const double* m, const double* centre, const double* __restrict dx,
                                        const double* __restrict dy, const double* __restrict dz, std::size_t n,
                                        double* __restrict x, double* __restrict y, double* __restrict z) noexcept {
  const double m00 = m[0], m01 = m[1], m02 = m[2], m10 = m[3], m11 = m[4], m12 = m[5];
  const double m20 = m[6], m21 = m[7], m22 = m[8];
  const double cx = centre[0], cy = centre[1], cz = centre[2];
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = cx + ((m00 * dx[k] + m01 * dy[k]) + m02 * dz[k]);
    y[k] = cy + ((m10 * dx[k] + m11 * dy[k]) + m12 * dz[k]);
    z[k] = cz + (m20 * dx[k] + (m21 * dy[k] + m22 * dz[k]));
  }
}

}  // namespace nodegen::fill_detail
