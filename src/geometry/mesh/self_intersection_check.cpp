#include "geometry/mesh/self_intersection_check.hpp"

#include <CGAL/Polygon_mesh_processing/self_intersections.h>
#include <CGAL/box_intersection_d.h>

#include <algorithm>
#include <string>
#include <vector>

namespace nodegen::geometry_detail {
namespace {

using Face = SurfaceMesh::Face_index;
using FaceBox = CGAL::Box_intersection_d::Box_with_info_d<double, 3, Face>;

struct BudgetSpent {
  Vec<3> where;  // the middle of the overlap of the pair that crossed the budget
};

// Where the faces crowd, for the message: the vertex shared by the most faces when that is where the
// pairs come from (its d faces make d^2 / 2 of them), else the overlap that crossed the budget.
std::string crowding(const SurfaceMesh& mesh, std::size_t budget, const Vec<3>& overlap) {
  SurfaceMesh::Vertex_index busiest;
  std::size_t most = 0;
  for (auto v : mesh.vertices()) {
    if (mesh.is_isolated(v)) continue;  // a point of the file no face uses
    std::size_t faces = 0;
    for (Face f : CGAL::faces_around_target(mesh.halfedge(v), mesh))
      if (f != SurfaceMesh::null_face()) ++faces;
    if (faces > most) most = faces, busiest = v;
  }
  if (most * most > budget / 4)
    return "the vertex at " + point_text(vec(mesh.point(busiest))) + " is a corner of " + std::to_string(most) + " faces";
  return "faces lie on each other near " + point_text(overlap);
}

}  // namespace

SelfIntersectionCheck check_self_intersection(const SurfaceMesh& mesh) {
  SelfIntersectionCheck out;
  const std::size_t budget = std::max(kMinPairs, kPairsPerFace * static_cast<std::size_t>(mesh.number_of_faces()));
  std::vector<FaceBox> boxes;
  boxes.reserve(mesh.number_of_faces());
  for (Face f : mesh.faces()) {
    CGAL::Bbox_3 b;
    for (auto v : CGAL::vertices_around_face(mesh.halfedge(f), mesh)) b += mesh.point(v).bbox();
    boxes.emplace_back(b, f);
  }
  std::size_t pairs = 0;
  try {
    CGAL::box_self_intersection_d(
        boxes.begin(), boxes.end(), [&](const FaceBox& a, const FaceBox& b) {
          if (++pairs > budget) {
            Vec<3> mid;
            for (int k = 0; k < 3; ++k)
              mid[k] = 0.5 * (std::max(a.min_coord(k), b.min_coord(k)) + std::min(a.max_coord(k), b.max_coord(k)));
            throw BudgetSpent{mid};
          }
        });
  } catch (const BudgetSpent& spent) {
    out.too_costly = "it would compare more than " + std::to_string(budget) + " pairs of faces (" +
                     std::to_string(kPairsPerFace) + " per face) whose boxes overlap: " +
                     crowding(mesh, budget, spent.where);
    out.verdict = SelfIntersectionCheck::Verdict::too_costly;
    return out;
  }
  out.verdict = CGAL::Polygon_mesh_processing::does_self_intersect(mesh) ? SelfIntersectionCheck::Verdict::intersects
                                                                         : SelfIntersectionCheck::Verdict::none;
  return out;
}

}  // namespace nodegen::geometry_detail
