#pragma once
// Cavities under the winding number: a mesh the generalized winding number decides (parts that overlap
// or touch, holes left open) is the union of its parts, each oriented outward, so a shell nested inside
// another would count as solid, where the exact test (orient_to_bound_a_volume) makes it a cavity, and a
// cavity written as one would be filled as soon as some other part overlaps anywhere.
//
// Rule, as for the exact test: a part nested in an odd number of closed parts faces inward (a cavity),
// in an even number outward. Part C is nested in closed part D when every vertex of C lies inside D alone
// (D's own winding number at least 1/2); parts are compared only when D's box holds C's. A part that
// overlaps D has vertices outside it, so overlapping parts stay a union.

#include "geometry/mesh/mesh_repair.hpp"

namespace nodegen::geometry_detail {

// Turns the faces of the parts nested in an odd number of closed parts.
void orient_nested_parts(SurfaceMesh& mesh);

}  // namespace nodegen::geometry_detail
