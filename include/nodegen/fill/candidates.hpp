#pragma once
// Candidate directions of the PNP fill: n unit vectors spread evenly on the circle (2D) or the sphere
// (3D, a Fibonacci sphere), turned by a random rotation at every expanded node so the fronts do not
// align into a lattice. The rotation is a pure function of (seed, the node's position), so it does not
// depend on which thread expands the node, and its cosines come from turn.hpp, so neither does it
// depend on the machine's C library.
#include <cmath>
#include <cstddef>
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

// radius * R, R a uniformly random rotation derived from `key` (seed and node position mixed): in 2D
// its first column (radius cos, radius sin), in 3D the matrix.
inline Vec<2> scaled_turn_2d(std::uint64_t key, double radius) {
  const CosSin turn = cos_sin_of_turn(mix64(key));
  return Vec<2>(radius * turn.cos, radius * turn.sin);
}
inline Eigen::Matrix3d scaled_rotation_3d(std::uint64_t key, double radius) {
  // Shoemake's uniform random unit quaternion from three uniforms, then its rotation matrix.
  const std::uint64_t r1 = mix64(key), r2 = mix64(r1), r3 = mix64(r2);
  const double u1 = unit_uniform(r1);
  const CosSin t2 = cos_sin_of_turn(r2), t3 = cos_sin_of_turn(r3);
  const double a = std::sqrt(1.0 - u1), b = std::sqrt(u1);
  const double qx = a * t2.sin, qy = a * t2.cos, qz = b * t3.sin, qw = b * t3.cos;
  Eigen::Matrix3d rot;
  rot << 1 - 2 * (qy * qy + qz * qz), 2 * (qx * qy - qz * qw), 2 * (qx * qz + qy * qw),
      2 * (qx * qy + qz * qw), 1 - 2 * (qx * qx + qz * qz), 2 * (qy * qz - qx * qw),
      2 * (qx * qz - qy * qw), 2 * (qy * qz + qx * qw), 1 - 2 * (qx * qx + qy * qy);
  rot *= radius;
  return rot;
}

// Writes centre + radius * R * dir for every unit direction (2D), R as above, for directions and
// candidates held as one array per coordinate (dx, dy: n each; x, y: room for n).
inline void place_candidates_2d(const double* __restrict dx, const double* __restrict dy, std::size_t n,
                                const Vec<2>& centre, double radius, std::uint64_t key, double* __restrict x,
                                double* __restrict y) {
  const Vec<2> cs = scaled_turn_2d(key, radius);
  const double c = cs[0], s = cs[1], cx = centre[0], cy = centre[1];
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = cx + c * dx[k] - s * dy[k];
    y[k] = cy + s * dx[k] + c * dy[k];
  }
}

// x, y, z = centre + m * (dx, dy, dz) for n directions, m a 3x3 matrix by rows; the sums associated
// as Eigen's Matrix3d * Vector3d product associates them in a portable build (rows 0 and 1 a packet
// summed column by column, row 2 a scalar reduction that adds the last two products first), so the
// candidates are the same doubles as centre + m * dir there. Compiled once per instruction set
// (src/fill/candidates.cpp): inline in the fill's portable code it would run as a 2-wide SSE2 loop.
void rotate_and_shift_3d(const double* m, const double* centre, const double* dx, const double* dy,
                         const double* dz, std::size_t n, double* x, double* y, double* z) noexcept;

// The same in 3D (dx, dy, dz: n each; x, y, z: room for n), R a 3D rotation.
inline void place_candidates_3d(const double* dx, const double* dy, const double* dz, std::size_t n,
                                const Vec<3>& centre, double radius, std::uint64_t key, double* x, double* y,
                                double* z) {
  const Eigen::Matrix3d m = scaled_rotation_3d(key, radius);
  const double rows[9] = {m(0, 0), m(0, 1), m(0, 2), m(1, 0), m(1, 1), m(1, 2), m(2, 0), m(2, 1), m(2, 2)};
  const double c[3] = {centre[0], centre[1], centre[2]};
  rotate_and_shift_3d(rows, c, dx, dy, dz, n, x, y, z);
}

}  // namespace nodegen::fill_detail
