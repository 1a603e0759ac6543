// Nested parts as cavities under the winding number (nested_parts.hpp).
#include "geometry/mesh/nested_parts.hpp"

#include <CGAL/Polygon_mesh_processing/connected_components.h>
#include <CGAL/Polygon_mesh_processing/orientation.h>

#include <algorithm>
#include <array>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "geometry/mesh/winding_number.hpp"

namespace nodegen::geometry_detail {
namespace {

namespace PMP = CGAL::Polygon_mesh_processing;
using Face = SurfaceMesh::Face_index;

// The parts of a mesh: each one's triangles, vertices, box, and whether it is closed.
struct Parts {
  std::vector<std::vector<std::array<Vec<3>, 3>>> triangles;
  std::vector<std::vector<Vec<3>>> vertices;
  std::vector<Box<3>> box;
  std::vector<char> closed;
};

Parts parts_of(const SurfaceMesh& mesh, const SurfaceMesh::Property_map<Face, std::size_t>& part, std::size_t count) {
  Parts p;
  p.triangles.resize(count);
  p.vertices.resize(count);
  const double inf = std::numeric_limits<double>::infinity();
  p.box.assign(count, Box<3>{Vec<3>::Constant(inf), Vec<3>::Constant(-inf)});
  p.closed.assign(count, 1);
  for (Face f : mesh.faces()) {
    std::array<Vec<3>, 3> t;
    int k = 0;
    for (auto v : CGAL::vertices_around_face(mesh.halfedge(f), mesh)) t[static_cast<std::size_t>(k++)] = vec(mesh.point(v));
    p.triangles[part[f]].push_back(t);
  }
  for (auto v : mesh.vertices()) {
    const auto h = mesh.halfedge(v);
    if (h == SurfaceMesh::null_halfedge()) continue;
    const Face f = mesh.face(mesh.is_border(h) ? mesh.opposite(h) : h);
    if (f == SurfaceMesh::null_face()) continue;
    const std::size_t c = part[f];
    const Vec<3> x = vec(mesh.point(v));
    p.vertices[c].push_back(x);
    p.box[c].lo = p.box[c].lo.cwiseMin(x);
    p.box[c].hi = p.box[c].hi.cwiseMax(x);
  }
  for (auto h : mesh.halfedges())
    if (mesh.is_border(h)) p.closed[part[mesh.face(mesh.opposite(h))]] = 0;
  return p;
}

bool box_holds(const Box<3>& outer, const Box<3>& inner) {
  return (outer.lo.array() <= inner.lo.array()).all() && (outer.hi.array() >= inner.hi.array()).all();
}

}  // namespace

void orient_nested_parts(SurfaceMesh& mesh) {
  auto part = mesh.add_property_map<Face, std::size_t>("f:nested", 0).first;
  const std::size_t count = PMP::connected_components(mesh, part);
  std::vector<int> depth(count, 0);
  if (count > 1) {
    const Parts p = parts_of(mesh, part, count);
    // The parts by their boxes' least x: those whose box can lie in d's are a run of this order, so a
    // mesh of many parts side by side (particles) is not compared pair by pair.
    std::vector<std::size_t> by_x(count);
    std::iota(by_x.begin(), by_x.end(), std::size_t{0});
    const auto lo_x = [&](std::size_t c) { return p.box[c].lo.x(); };
    std::sort(by_x.begin(), by_x.end(), [&](std::size_t a, std::size_t b) { return lo_x(a) < lo_x(b) || (lo_x(a) == lo_x(b) && a < b); });
    for (std::size_t d = 0; d < count; ++d) {
      if (!p.closed[d]) continue;
      std::unique_ptr<WindingNumber> inside_d;  // made when some part's box lies in d's
      auto run = std::lower_bound(by_x.begin(), by_x.end(), p.box[d].lo.x(), [&](std::size_t c, double x) { return lo_x(c) < x; });
      for (; run != by_x.end() && lo_x(*run) <= p.box[d].hi.x(); ++run) {
        const std::size_t c = *run;
        if (c == d || p.vertices[c].empty() || !box_holds(p.box[d], p.box[c])) continue;
        if (!inside_d) inside_d = std::make_unique<WindingNumber>(p.triangles[d]);
        bool nested = true;
        for (const Vec<3>& x : p.vertices[c])
          if (!((*inside_d)(x) >= 0.5)) {
            nested = false;
            break;
          }
        depth[c] += nested;
      }
    }
  }
  std::vector<Face> turn;
  for (Face f : mesh.faces())
    if (depth[part[f]] % 2 == 1) turn.push_back(f);
  PMP::reverse_face_orientations(turn, mesh);
  mesh.remove_property_map(part);
}

}  // namespace nodegen::geometry_detail
