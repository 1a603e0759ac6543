// The group of the nearest face of the file for each triangle of a loaded mesh (face_group_labels.hpp):
// an AABB tree over the file's faces, cut into triangles.
#include "geometry/mesh/face_group_labels.hpp"

#include <CGAL/AABB_traits.h>
#include <CGAL/AABB_tree.h>
#include <CGAL/AABB_triangle_primitive.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>

#include <cmath>
#include <iterator>
#include <limits>

namespace nodegen::geometry_detail {
namespace {

using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using Point = Kernel::Point_3;
using Triangle = Kernel::Triangle_3;
using Iterator = std::vector<Triangle>::const_iterator;
using Tree = CGAL::AABB_tree<CGAL::AABB_traits<Kernel, CGAL::AABB_triangle_primitive<Kernel, Iterator>>>;

Point point_of(const Vec<3>& p) { return {p[0], p[1], p[2]}; }

}  // namespace

std::vector<int> nearest_face_groups(const MeshFaceGroups& groups, const std::vector<Vec<3>>& points) {
  // The faces' triangles with area (CGAL's distances to a triangle assume one), each with its face.
  std::vector<Triangle> triangles;
  std::vector<std::size_t> face_of;
  CGAL::Bbox_3 extent;
  for (std::size_t f = 0; f < groups.faces(); ++f) {
    const std::size_t first = groups.face_start[f], end = groups.face_start[f + 1];
    auto corner = [&](std::size_t k) { return groups.corners[k]; };
    bool named = true;
    for (std::size_t k = first; k < end; ++k) named = named && corner(k) < groups.points.size();
    if (!named || end - first < 3) continue;
    const Point a = point_of(groups.points[corner(first)]);
    for (std::size_t k = first + 1; k + 1 < end; ++k) {
      const Point b = point_of(groups.points[corner(k)]), c = point_of(groups.points[corner(k + 1)]);
      if (CGAL::collinear(a, b, c)) continue;
      triangles.emplace_back(a, b, c);
      face_of.push_back(f);
      extent += triangles.back().bbox();
    }
  }
  std::vector<int> out(points.size(), -1);
  if (triangles.empty()) return out;
  Tree tree(triangles.cbegin(), triangles.cend());
  tree.build();
  tree.accelerate_distance_queries();
  // Every triangle whose box comes within the nearest distance (widened by rounding) is measured again,
  // and the least distance wins, ties to the lower face: the answer does not depend on how the tree
  // orders its search.
  const double slack = 1e-12 * std::sqrt(CGAL::squared_distance(Point(extent.xmin(), extent.ymin(), extent.zmin()),
                                                                Point(extent.xmax(), extent.ymax(), extent.zmax())));
  std::vector<Tree::Primitive_id> near;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Point q = point_of(points[i]);
    const auto [closest, primitive] = tree.closest_point_and_primitive(q);
    const double reach = std::sqrt(CGAL::squared_distance(q, closest)) * (1 + 1e-9) + slack;
    near.assign(1, primitive);
    tree.all_intersected_primitives(CGAL::Bbox_3(q.x() - reach, q.y() - reach, q.z() - reach, q.x() + reach,
                                                 q.y() + reach, q.z() + reach),
                                    std::back_inserter(near));
    double best = std::numeric_limits<double>::infinity();
    std::size_t best_face = groups.faces();
    for (const Iterator& t : near) {
      const double d = CGAL::squared_distance(q, *t);
      const std::size_t f = face_of[static_cast<std::size_t>(t - triangles.cbegin())];
      if (d < best || (d == best && f < best_face)) best = d, best_face = f;
    }
    if (best_face < groups.faces()) out[i] = groups.face_group[best_face];
  }
  return out;
}

}  // namespace nodegen::geometry_detail
