#pragma once
// h where a mesh's surface is sampled. The domain loader checks h on a grid over the bounding box, which
// can miss a thin region of the surface, so the sampling checks every value it uses.
#include <cmath>
#include <stdexcept>
#include <string>

namespace nodegen::geometry_detail {

// Returns h; throws std::runtime_error when it is not positive and finite.
inline double checked_surface_spacing(double h) {
  if (!(h > 0.0) || !std::isfinite(h))
    throw std::runtime_error("spacing h = " + std::to_string(h) + " on the surface; h must be positive and finite");
  return h;
}

}  // namespace nodegen::geometry_detail
