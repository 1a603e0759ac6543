#pragma once
// Turns a triangle or polygon soup as users bring it (scans with holes, CAD exports with duplicated or
// flipped faces, parts that touch along an edge or overlap) into an oriented surface the mesh shape can
// decide inside/outside for, with CGAL's Polygon Mesh Processing, and says what it changed:
//   read as a polygon soup -> repair_polygon_soup (merge duplicate points, drop degenerate and duplicate
//   faces) -> fan-triangulate polygons -> orient_polygon_soup (consistent orientation; non-manifold
//   vertices and edges are split) -> mesh -> stitch_borders -> close holes whose border is at most
//   `max_hole` long (triangulate_hole) -> per connected part: outward orientation, and parts without
//   volume dropped.
// The result is `solid` when it is closed, free of self-intersections and bounds a volume (cavities
// facing inward): then the exact crossing-parity inside test applies. Otherwise the caller uses the
// generalized winding number on the outward-oriented triangles (a union of the parts), nested parts
// facing inward as cavities as the exact test has them (nested_parts.hpp).
#include <limits>
#include <string>
#include <vector>

#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Surface_mesh.h>

#include <nodegen/geometry/box.hpp>

namespace nodegen::geometry_detail {

using MeshKernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using MeshPoint = MeshKernel::Point_3;
using SurfaceMesh = CGAL::Surface_mesh<MeshPoint>;

struct MeshRepairOptions {
  double max_hole = std::numeric_limits<double>::infinity();  // longest hole border closed (mesh units)
};

struct RepairedMesh {
  SurfaceMesh mesh;                  // triangles, each part oriented outward, or inward as a cavity when nested
  bool solid = false;                // closed, not self-intersecting, bounds a volume
  std::vector<std::string> notes;    // what was repaired, one line each; empty when nothing was
  std::vector<Box<3>> open_borders;  // around each hole left open: the winding number is not flat there
};

inline Vec<3> vec(const MeshPoint& p) { return {p.x(), p.y(), p.z()}; }

// "(x, y, z)" with 6 significant digits, for messages.
std::string point_text(const Vec<3>& p);

// Throws std::runtime_error naming the vertex where one vertex of a soup (once repair_polygon_soup has
// merged duplicate points) is a corner of more than kMaxFacesAtVertex faces. CGAL links each face into
// the ring of faces around its corners by walking that ring, so it builds a surface in time that grows
// with the square of the most faces around one vertex: a cylinder of 65 536 sides with fan caps took over
// a minute to read (a cone of 16 384 sides, at the limit, a few seconds).
inline constexpr std::size_t kMaxFacesAtVertex = 16384;
void check_faces_at_vertices(const std::string& file, const std::vector<MeshPoint>& points,
                             const std::vector<std::vector<std::size_t>>& polygons);

// Throws std::runtime_error saying what is wrong and where when nothing solid can be made of the file.
RepairedMesh repair_mesh(const std::string& file, const MeshRepairOptions& options);

}  // namespace nodegen::geometry_detail
