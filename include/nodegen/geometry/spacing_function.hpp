#pragma once
// A spacing given by the caller's own function h(x, y, z) (z = 0 in 2D): what the in-process API
// (nodegen.hpp) makes of a C++ callable. Every worker thread calls it, at once, on points of its own:
// the function must be safe to call from many threads and must depend on the point alone, and then the
// nodes are the same at any thread count. Its values are checked as any spacing's are (spacing.hpp's
// limits) where the loader and the fill evaluate it; an exception it throws ends the fill and reaches
// the caller.
#include <functional>
#include <span>
#include <string>

#include "nodegen/geometry/spacing.hpp"

namespace nodegen {

// `description`: what reports and the output's metadata say the spacing is ("a C++ function").
Spacing function_spacing(std::function<double(double x, double y, double z)> h, std::string description);

// The same for a function that takes many points in one call, h(xyz, out): xyz holds 3 coordinates a
// point (z = 0 in 2D), out one value a point. For a function whose call costs far more than its
// arithmetic (one written in Python): the spacing prefers batches (spacing.hpp, at_many), so the fill
// and the loader's check hand it many points at once. Its values must depend on each point alone, not
// on the others in the call.
Spacing function_batch_spacing(std::function<void(std::span<const double> xyz, std::span<double> out)> h,
                               std::string description);

}  // namespace nodegen
