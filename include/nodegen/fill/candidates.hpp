#pragma once
// Candidate directions of the PNP fill: n unit vectors spread evenly on the circle (2D) or the sphere
// (3D, a Fibonacci sphere), turned by a random rotation at every expanded node so the fronts do not
// align into a lattice. The rotation is a pure function of (seed, the node's position), so it does not
// depend on which thread expands the node, and its cosines come from turn.hpp, so neither does it
// depend on the machine's C library.
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "nodegen/fill/turn.hpp"
#include "nodegen/storage/splitmix.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D>
std::vector<Vec<D>> unit_candidates(int count) {
  if (count < 1) throw std::invalid_argument("the fill needs at least one candidate per node");
  std::vector<Vec<D>> dirs(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) {
    if constexpr (D == 2) {
      const CosSin u = cos_sin_of_turn(turn_fraction(static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(count)));
      dirs[static_cast<std::size_t>(k)] = Vec<2>(u.cos, u.sin);
    } else {
      // Fibonacci sphere: equal-area latitude bands, longitudes advancing by the golden angle, which is
      // (3 - sqrt 5) / 2 of a turn (2^64 times that, the turn's 64-bit fraction, wraps round by itself).
      constexpr std::uint64_t kGoldenTurn = 0x61C8864680B583EBull;
      const double z = 1.0 - (2.0 * k + 1.0) / count;
      const double rho = std::sqrt(std::max(0.0, 1.0 - z * z));
      const CosSin u = cos_sin_of_turn(static_cast<std::uint64_t>(k) * kGoldenTurn);
      dirs[static_cast<std::size_t>(k)] = Vec<3>(rho * u.cos, rho * u.sin, z);
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
    const CosSin turn = cos_sin_of_turn(r1);
    const double c = radius * turn.cos, s = radius * turn.sin;
    for (std::size_t k = 0; k < dirs.size(); ++k) {
      const Vec<2>& u = dirs[k];
      out[k] = Vec<2>(centre[0] + c * u[0] - s * u[1], centre[1] + s * u[0] + c * u[1]);
    }
  } else {
    // Shoemake's uniform random unit quaternion from three uniforms, then its rotation matrix.
    const std::uint64_t r2 = mix64(r1), r3 = mix64(r2);
    const double u1 = unit_uniform(r1);
    const CosSin t2 = cos_sin_of_turn(r2), t3 = cos_sin_of_turn(r3);
    const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
    const double qx = a * t2.sin, qy = a * t2.cos, qz = b * t3.sin, qw = b * t3.cos;
    Eigen::Matrix3d rot;
    rot << 1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw),
        2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw),
        2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy);
    rot *= radius;
    for (std::size_t k = 0; k < dirs.size(); ++k) out[k] = centre + rot * dirs[k];
  }
}

}  // namespace nodegen::fill_detail
