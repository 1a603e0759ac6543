#pragma once
// Candidate directions of the PNP fill: n unit vectors spread evenly on the circle (2D) or the sphere
// (3D, a Fibonacci sphere), turned by a random rotation at every expanded node so the fronts do not
// align into a lattice. The randomness is a pure function of (seed, node index): a single-threaded fill
// is reproducible, and no generator state is shared between threads.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "nodegen/storage/splitmix.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D>
std::vector<Vec<D>> unit_candidates(int count) {
  if (count < 1) throw std::invalid_argument("the fill needs at least one candidate per node");
  std::vector<Vec<D>> dirs(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    if constexpr (D == 2) {
      const double angle = 2.0 * std::numbers::pi * k / count;
      dirs[static_cast<std::size_t>(k)] = Vec<2>(std::cos(angle), std::sin(angle));
    } else {
      // Fibonacci sphere: equal-area latitude bands, longitudes advancing by the golden angle.
      const double z = 1.0 - (2.0 * k + 1.0) / count;
      const double rho = std::sqrt(std::max(0.0, 1.0 - z * z));
      const double phi = k * std::numbers::pi * (3.0 - std::sqrt(5.0));
      dirs[static_cast<std::size_t>(k)] = Vec<3>(rho * std::cos(phi), rho * std::sin(phi), z);
    }
  }
  return dirs;
}

// Writes centre + radius * R * dir for every unit direction, R a uniformly random rotation derived
// from `key` (seed and node index mixed).
template <int D>
void place_candidates(const std::vector<Vec<D>>& dirs, const Vec<D>& centre, double radius, std::uint64_t key,
                      std::vector<Vec<D>>& out) {
  out.resize(dirs.size());
  const std::uint64_t r1 = mix64(key);
  if constexpr (D == 2) {
    const double angle = 2.0 * std::numbers::pi * unit_uniform(r1);
    const double c = radius * std::cos(angle), s = radius * std::sin(angle);
    for (std::size_t k = 0; k < dirs.size(); ++k) {
      const Vec<2>& u = dirs[k];
      out[k] = Vec<2>(centre[0] + c * u[0] - s * u[1], centre[1] + s * u[0] + c * u[1]);
    }
  } else {
    // Shoemake's uniform random unit quaternion from three uniforms, then its rotation matrix.
    const std::uint64_t r2 = mix64(r1), r3 = mix64(r2);
    const double u1 = unit_uniform(r1), t2 = 2.0 * std::numbers::pi * unit_uniform(r2),
                 t3 = 2.0 * std::numbers::pi * unit_uniform(r3);
    const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
    const double qx = a * std::sin(t2), qy = a * std::cos(t2), qz = b * std::sin(t3), qw = b * std::cos(t3);
    Eigen::Matrix3d rot;
    rot << 1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw),
        2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw),
        2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy);
    rot *= radius;
    for (std::size_t k = 0; k < dirs.size(); ++k) out[k] = centre + rot * dirs[k];
  }
}

}  // namespace nodegen::fill_detail
