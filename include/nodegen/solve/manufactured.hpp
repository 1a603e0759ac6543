#pragma once
// The manufactured solutions the solver check solves for, with their Laplacian and gradient:
//   smooth, 2D: u = sin(pi x) sin(pi y) + e^x cos(2y)
//           3D: u = sin(pi x) sin(pi y) sin(pi z) + e^x cos(2y) cos(z)
//   front:      u = atan(k (|p - c| - r0)), k = 40, r0 = 0.3, c = (0.5, 0.5, 0.5): a steep circular
//               (spherical) front across the unit square (cube), where a graded spacing pays off
// The smooth one is not a polynomial (so the scheme's error is not zero), not symmetric in the axes and
// not vanishing on the unit square's or cube's sides (so Dirichlet and Neumann data are both nontrivial).
// x, y, z are measured from `origin`, which the solve sets to its nodes' lowest corner, so a domain
// poses the same problem wherever it lies (from the origin, e^x overflowed beyond x = 709: nodes at
// x = 800 were reported as a singular matrix, at x = 700 as an error of 1e301 and a NaN).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <numbers>

namespace nodegen::solve {

enum class Solution { smooth, front };

struct ManufacturedSolution {
  int dim = 2;
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  Solution kind = Solution::smooth;

  static constexpr double kFrontSteepness = 40.0, kFrontRadius = 0.3;

  // The front's centre offset, radius vector and its length from p (z = 0 in 2D).
  Eigen::Vector3d from_centre(const Eigen::Vector3d& p) const {
    Eigen::Vector3d c(0.5, 0.5, dim == 3 ? 0.5 : 0.0);
    Eigen::Vector3d q = p - c;
    if (dim == 2) q.z() = 0.0;
    return q;
  }

  double u(const Eigen::Vector3d& world) const {
    const Eigen::Vector3d p = world - origin;
    if (kind == Solution::front) return std::atan(kFrontSteepness * (from_centre(p).norm() - kFrontRadius));
    const double pi = std::numbers::pi;
    if (dim == 2) return std::sin(pi * p.x()) * std::sin(pi * p.y()) + std::exp(p.x()) * std::cos(2 * p.y());
    return std::sin(pi * p.x()) * std::sin(pi * p.y()) * std::sin(pi * p.z()) +
           std::exp(p.x()) * std::cos(2 * p.y()) * std::cos(p.z());
  }

  double laplacian(const Eigen::Vector3d& world) const {
    const Eigen::Vector3d p = world - origin;
    if (kind == Solution::front) {
      // u = atan(s), s = k (rho - r0): u' = k / (1 + s^2), u'' = -2 s k^2 / (1 + s^2)^2, and the
      // Laplacian of a radial function is u'' + (d - 1) u' / rho.
      const double rho = std::max(from_centre(p).norm(), 1e-12), s = kFrontSteepness * (rho - kFrontRadius);
      const double q = 1.0 + s * s;
      return -2.0 * s * kFrontSteepness * kFrontSteepness / (q * q) + (dim - 1) * kFrontSteepness / (q * rho);
    }
    const double pi = std::numbers::pi;
    if (dim == 2)
      return -2 * pi * pi * std::sin(pi * p.x()) * std::sin(pi * p.y()) - 3 * std::exp(p.x()) * std::cos(2 * p.y());
    return -3 * pi * pi * std::sin(pi * p.x()) * std::sin(pi * p.y()) * std::sin(pi * p.z()) -
           4 * std::exp(p.x()) * std::cos(2 * p.y()) * std::cos(p.z());
  }

  Eigen::Vector3d gradient(const Eigen::Vector3d& world) const {
    const Eigen::Vector3d p = world - origin;
    if (kind == Solution::front) {
      const Eigen::Vector3d q = from_centre(p);
      const double rho = std::max(q.norm(), 1e-12), s = kFrontSteepness * (rho - kFrontRadius);
      return kFrontSteepness / (1.0 + s * s) / rho * q;
    }
    const double pi = std::numbers::pi;
    const double sx = std::sin(pi * p.x()), sy = std::sin(pi * p.y()), cx = std::cos(pi * p.x()), cy = std::cos(pi * p.y());
    const double ex = std::exp(p.x()), c2 = std::cos(2 * p.y()), s2 = std::sin(2 * p.y());
    if (dim == 2) return {pi * cx * sy + ex * c2, pi * sx * cy - 2 * ex * s2, 0.0};
    const double sz = std::sin(pi * p.z()), cz = std::cos(pi * p.z()), c1 = std::cos(p.z()), s1 = std::sin(p.z());
    return {pi * cx * sy * sz + ex * c2 * c1, pi * sx * cy * sz - 2 * ex * s2 * c1, pi * sx * sy * cz - ex * c2 * s1};
  }
};

}  // namespace nodegen::solve
