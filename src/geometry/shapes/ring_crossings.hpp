#pragma once
// Polygon rings must not cross: an outline that crosses itself (a figure eight) or a hole that cuts
// through the outline has no well-defined inside on either side of the crossing, so its boundary nodes
// would get normals pointing into the solid. Checked once per polygon when the domain file is read.
#include <optional>
#include <vector>

#include <nodegen/spatial/point.hpp>

namespace nodegen::geometry_detail {

// A point where two edges of the rings (each closed: the last point joins the first) cross, touch or
// overlap other than at the vertex two consecutive edges share, or a vertex that occurs twice (a
// touch at a vertex); nullopt when there is none. Exact (CGAL's sweep line on an exact kernel, then
// exact comparison of the vertices), O((n + k) log n) for n edges. Rings must not repeat a point
// consecutively (zero-length edges).
std::optional<Vec<2>> find_ring_crossing(const std::vector<std::vector<Vec<2>>>& rings);

}  // namespace nodegen::geometry_detail
