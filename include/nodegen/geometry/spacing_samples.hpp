#pragma once
// A spacing interpolated from samples: values at scattered positions (a previous run's nodes and an
// error indicator's h, say), as the domain file's {"samples": FILE, "values": DATASET} gives them.
//
// Interpolant: linear over the Delaunay triangulation of the samples (CGAL, exact predicates): within
// their convex hull h is continuous and exact at every sample; outside it the k nearest samples decide,
// by inverse-distance weights (k = 2d). A point on a triangle's edge or a tetrahedron's face is
// interpolated from that edge's or face's samples alone, in the order of their indices, so the value
// does not depend on which neighbouring cell the search found it from: h is a function of the point.
// Samples at one position are one sample, with the least of their values. The options' scale, clamp
// and grading apply to the values before interpolation, in that order.
#include <limits>
#include <string>
#include <vector>

#include "nodegen/geometry/spacing.hpp"

namespace nodegen {

struct SampleSpacingOptions {
  double scale = 1.0;                                       // multiplies every value
  double min = 0.0;                                         // then values are clamped to [min, max]
  double max = std::numeric_limits<double>::infinity();
  // > 0: the values are lowered so that h grows by at most `grading` per unit of distance along the
  // triangulation's edges (each value the least over the samples of theirs plus grading times the
  // path to them), as a mesh size field's gradient limit: a refined patch then widens smoothly into the
  // coarse field around it instead of ending at a jump of h. 0: the values as given.
  double grading = 0.0;
  std::string description;                                  // what describe() says ("samples FILE:DATASET")
};

// `positions`: N x dim interleaved; `values`: N. Throws std::invalid_argument naming the first bad
// sample (a coordinate or value that is not finite, a value that is not positive), too few samples (at
// least dim + 1), or bad options (scale not positive, min above max).
Spacing sample_spacing(int dim, std::vector<double> positions, std::vector<double> values,
                       const SampleSpacingOptions& options);

}  // namespace nodegen
