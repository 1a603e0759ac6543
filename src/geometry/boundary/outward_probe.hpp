#pragma once
// The outward direction at a boundary point as its surroundings show it: probes on a small circle (2D)
// or sphere (3D) around the point, each asked whether it lies inside the solid; the outward direction
// is minus the mean of the probe directions that lead inside. At a corner it is the bisector of the
// solid's wedge, on a smooth stretch the normal, at a concave edge where two parts meet the bisector of
// the empty wedge; none when every probe or none is inside (the point bounds nothing).
//
// Probes: kProbeDirections directions evenly spread (equal angles on the circle, a Fibonacci sphere),
// the same for every point, so the answer is a function of the point and the inside test alone.
#include <cmath>
#include <optional>

#include <nodegen/spatial/point.hpp>

namespace nodegen::geometry_detail {

template <int D>
inline constexpr int kProbeDirections = D == 2 ? 72 : 400;

// Probe direction k of kProbeDirections<D>, a unit vector.
template <int D>
Vec<D> probe_direction(int k) {
  constexpr int count = kProbeDirections<D>;
  if constexpr (D == 2) {
    const double a = 2.0 * 3.14159265358979323846 * (k + 0.5) / count;
    return Vec<D>(std::cos(a), std::sin(a));
  } else {
    const double z = 1.0 - 2.0 * (k + 0.5) / count;
    const double a = 2.39996322972865332 * k;  // the golden angle
    const double s = std::sqrt(1.0 - z * z);
    return Vec<D>(s * std::cos(a), s * std::sin(a), z);
  }
}

// Minus the mean of the directions d (probe_direction) with inside(p + r d), normalised; none when every
// direction or none leads inside, or their mean vanishes.
template <int D, class Inside>
std::optional<Vec<D>> outward_by_probes(const Vec<D>& p, double r, Inside&& inside) {
  constexpr int count = kProbeDirections<D>;
  Vec<D> sum = Vec<D>::Zero();
  int in = 0;
  for (int k = 0; k < count; ++k) {
    const Vec<D> d = probe_direction<D>(k);
    if (inside(Vec<D>(p + r * d))) {
      sum += d;
      ++in;
    }
  }
  if (in == 0 || in == count || !(sum.norm() > 1e-9 * count)) return std::nullopt;
  return Vec<D>(-sum.normalized());
}

}  // namespace nodegen::geometry_detail
