#pragma once
// CGAL's self-intersection test (does_self_intersect) within a budget of work.
//
// CGAL compares every pair of faces whose bounding boxes overlap, so its cost is the number of such
// pairs: about 10-20 per face on a surface as meshes come, but quadratic where many faces crowd one
// place (a vertex shared by 16 384 faces: 2.7e8 pairs, a minute) or lie on each other (thousands of
// stacked sheets). The pairs are counted first (CGAL's box intersection, stopped at the budget, a small
// part of the test's own cost); beyond the budget the test is not run and the caller treats the surface
// as possibly self-intersecting, which the generalized winding number decides correctly either way.
#include <cstddef>
#include <string>

#include "geometry/mesh/mesh_repair.hpp"

namespace nodegen::geometry_detail {

struct SelfIntersectionCheck {
  enum class Verdict { none, intersects, too_costly } verdict = Verdict::none;
  std::string too_costly;  // too_costly: how many pairs, and where the faces crowd (one clause)
};

// The budget: kPairsPerFace per face, and at least kMinPairs.
inline constexpr std::size_t kPairsPerFace = 128;
inline constexpr std::size_t kMinPairs = std::size_t{1} << 22;

SelfIntersectionCheck check_self_intersection(const SurfaceMesh& mesh);

}  // namespace nodegen::geometry_detail
