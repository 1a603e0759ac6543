#pragma once
// A spacing that is not positive and finite at a point the fill reached (the domain loader checks h on
// a grid, which can miss a narrow fault). The CLI reports it as an input error of the domain file's
// spacing, with the point and the value.
#include <cstdio>
#include <stdexcept>
#include <string>

#include "nodegen/spatial/point.hpp"

namespace nodegen {

class SpacingFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <int D>
std::string describe_fault(const Vec<D>& p, double h) {
  char buf[160];
  if constexpr (D == 2)
    std::snprintf(buf, sizeof buf, "h = %.17g at (%.17g, %.17g); h must be positive and finite", h, p[0], p[1]);
  else
    std::snprintf(buf, sizeof buf, "h = %.17g at (%.17g, %.17g, %.17g); h must be positive and finite", h, p[0], p[1],
                  p[2]);
  return buf;
}

}  // namespace nodegen
