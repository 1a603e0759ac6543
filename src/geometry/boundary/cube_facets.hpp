#pragma once
// The faces of a (deformed) cube [-1,1]^D that meet at a corner or edge point of its surface, for
// BoundarySink::feature_normal: shared by the 2D box and the 3D cube chart.
#include <cmath>
#include <vector>

#include "geometry/boundary/boundary_sink.hpp"

namespace nodegen::geometry_detail {

// Whether the cube point c lies on a face normal to axis a.
template <int D>
bool on_cube_face(const Vec<D>& c, int a) {
  return std::abs(c[a]) >= 1.0 - 1e-12;
}

// One facet per face through c. Its normal and id are those at the point beside c on that face (c with
// its other face coordinates moved to 0: the face's centre for a corner, straight across for an edge
// node) and `into` points from c towards that point. point / normal map cube points to world points and
// outward normals; face_id(axis, side) names a face.
template <int D, class Point, class Normal, class FaceId>
std::vector<Facet<D>> cube_facets(const Vec<D>& c, const Point& point, const Normal& normal, const FaceId& face_id) {
  std::vector<Facet<D>> facets;
  for (int a = 0; a < D; ++a) {
    if (!on_cube_face(c, a)) continue;
    Vec<D> beside = c;
    for (int b = 0; b < D; ++b)
      if (b != a && on_cube_face(c, b)) beside[b] = 0.0;
    facets.push_back({(point(beside) - point(c)).normalized(), normal(beside), face_id(a, c[a] > 0 ? 1 : 0)});
  }
  return facets;
}

}  // namespace nodegen::geometry_detail
