#pragma once
// A spacing that is not positive and finite, or below what the coordinates resolve, at a point the
// boundary placement or the fill reached (the domain loader checks h on a grid, which can miss a narrow
// fault). The CLI reports it as an input error of the domain file's spacing, with the point and the value.
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "nodegen/spatial/point.hpp"

namespace nodegen {

class SpacingFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "h = V at (P); WHY", WHY naming the limit h broke: positive and finite, or at least `least` (the
// smallest spacing the coordinates resolve, spacing.hpp).
template <int D>
std::string describe_fault(const Vec<D>& p, double h, double least = 0.0) {
  char at[128];
  if constexpr (D == 2)
    std::snprintf(at, sizeof at, "h = %.17g at (%.17g, %.17g)", h, p[0], p[1]);
  else
    std::snprintf(at, sizeof at, "h = %.17g at (%.17g, %.17g, %.17g)", h, p[0], p[1], p[2]);
  char why[160];
  if (h > 0.0 && h < least && std::isfinite(h))
    std::snprintf(why, sizeof why,
                  "; h must be at least %.3g here (1e-100, |x| / h at most 1e12 and the domain's extent / h at most "
                  "4194304 for the fill to resolve it)",
                  least);
  else
    std::snprintf(why, sizeof why, "; h must be positive and finite");
  return std::string(at) + why;
}

// h as evaluated at p, or the SpacingFault naming it: not positive and finite, or below `least` (the
// least spacing the domain's coordinates resolve, least_spacing in spacing.hpp). The boundary
// placement and the fill check every h they use with it.
template <int D>
double checked_spacing(const Vec<D>& p, double h, double least) {
  if (!(h >= least) || !std::isfinite(h)) throw SpacingFault(describe_fault<D>(p, h, least));
  return h;
}

}  // namespace nodegen
