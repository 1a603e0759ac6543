#include "geometry/mesh/mesh_repair.hpp"
#include "geometry/files/mesh_file_check.hpp"
#include "nodegen/geometry/input_file.hpp"

#include "geometry/files/quiet_library_output.hpp"
#include "geometry/mesh/nested_parts.hpp"
#include "geometry/mesh/self_intersection_check.hpp"

#include <CGAL/IO/STL.h>
#include <CGAL/IO/polygon_soup_io.h>
#include <CGAL/Polygon_mesh_processing/border.h>
#include <CGAL/Polygon_mesh_processing/connected_components.h>
#include <CGAL/Polygon_mesh_processing/manifoldness.h>
#include <CGAL/Polygon_mesh_processing/orient_polygon_soup.h>
#include <CGAL/Polygon_mesh_processing/orientation.h>
#include <CGAL/Polygon_mesh_processing/polygon_soup_to_polygon_mesh.h>
#include <CGAL/Polygon_mesh_processing/repair_polygon_soup.h>
#include <CGAL/Polygon_mesh_processing/self_intersections.h>
#include <CGAL/Polygon_mesh_processing/stitch_borders.h>
#include <CGAL/Polygon_mesh_processing/triangulate_hole.h>
#include <CGAL/boost/graph/Euler_operations.h>
#include <CGAL/boost/graph/helpers.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <stdexcept>

namespace nodegen::geometry_detail {
namespace {

namespace PMP = CGAL::Polygon_mesh_processing;
using Polygon = std::vector<std::size_t>;
using Face = SurfaceMesh::Face_index;
using Halfedge = SurfaceMesh::Halfedge_index;

std::string number_text(double v) {
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

std::array<Vec<3>, 3> face_points(const SurfaceMesh& mesh, Face f) {
  const Halfedge h = mesh.halfedge(f);
  return {vec(mesh.point(mesh.source(h))), vec(mesh.point(mesh.target(h))),
          vec(mesh.point(mesh.target(mesh.next(h))))};
}

// Whether b lists a's corners in the other turning sense (not a rotation of a).
bool reversed(const std::array<Vec<3>, 3>& a, const std::array<Vec<3>, 3>& b) {
  for (int k = 0; k < 3; ++k)
    if (a[0] == b[k]) return !(a[1] == b[(k + 1) % 3]);
  return false;
}

struct Border {
  std::size_t edges = 0;
  double length = 0.0;
  Vec<3> vertex;
  Box<3> box{Vec<3>::Constant(1e300), Vec<3>::Constant(-1e300)};
};

Border describe_border(const SurfaceMesh& mesh, Halfedge start) {
  Border b;
  b.vertex = vec(mesh.point(mesh.source(start)));
  for (Halfedge h : CGAL::halfedges_around_face(start, mesh)) {
    const Vec<3> p = vec(mesh.point(mesh.source(h))), q = vec(mesh.point(mesh.target(h)));
    ++b.edges;
    b.length += (q - p).norm();
    b.box.lo = b.box.lo.cwiseMin(p);
    b.box.hi = b.box.hi.cwiseMax(p);
  }
  return b;
}

// An ASCII STL file whose "solid" a tab follows is handed to CGAL with that blank made a space
// (stl_blank_cgal_misreads): CGAL read it as binary garbage, which the checks refused as an open sheet.
bool read_soup(const std::string& file, std::vector<MeshPoint>& points, std::vector<Polygon>& polygons) {
  const std::size_t blank = stl_blank_cgal_misreads(file);
  if (blank == std::string::npos) return CGAL::IO::read_polygon_soup(file, points, polygons);
  std::string text = read_input_file(file, InputFileLimits::kMeshFileBytes, "mesh files");
  text[blank] = ' ';
  std::istringstream patched(std::move(text));
  return CGAL::IO::read_STL(patched, points, polygons);
}

}  // namespace

std::string point_text(const Vec<3>& p) {
  std::ostringstream out;
  out.precision(6);
  out << "(" << p[0] << ", " << p[1] << ", " << p[2] << ")";
  return out.str();
}

void check_faces_at_vertices(const std::string& file, const std::vector<MeshPoint>& points,
                             const std::vector<Polygon>& polygons) {
  // Each face counts once at each of its distinct corners, and a face of fewer than three distinct
  // corners not at all: repair_polygon_soup drops it, and the strict build fails on it before any cost.
  std::vector<std::uint32_t> faces(points.size(), 0);
  std::vector<std::size_t> corners;
  for (const Polygon& p : polygons) {
    corners.assign(p.begin(), p.end());
    std::sort(corners.begin(), corners.end());
    corners.erase(std::unique(corners.begin(), corners.end()), corners.end());
    if (corners.size() < 3) continue;
    for (std::size_t v : corners)
      if (v < faces.size()) ++faces[v];
  }
  const auto most = std::max_element(faces.begin(), faces.end());
  if (most == faces.end() || *most <= kMaxFacesAtVertex) return;
  throw std::runtime_error("mesh " + file + " has a vertex shared by " + std::to_string(*most) + " faces at " +
                           point_text(vec(points[static_cast<std::size_t>(most - faces.begin())])) + " (at most " +
                           std::to_string(kMaxFacesAtVertex) +
                           ": the surface is built in time that grows with the square of that number); "
                           "divide the fan of faces around it, or use fewer of them");
}

namespace {

// What the repair did, counted for its notes.
struct RepairCounts {
  std::size_t dropped = 0, merged = 0, split = 0, stitched = 0;
  std::size_t closed = 0, closed_edges = 0, added = 0;  // holes closed, their border edges, faces added
  std::size_t parts = 0, hollow = 0, turned = 0;
  std::vector<Border> open;  // holes left open
  std::string unchecked;     // why the self-intersection check was not run
};

// The file as a polygon soup, every index naming a vertex and every coordinate finite.
void read_checked_soup(const std::string& file, std::vector<MeshPoint>& points, std::vector<Polygon>& polygons) {
  bool read = false;
  try {
    const QuietLibraryOutput quiet;
    read = read_soup(file, points, polygons);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot read mesh " + file + ": " + e.what());
  }
  if (!read)
    throw std::runtime_error("cannot read mesh " + file +
                             " (unsupported format or malformed data; supported: .stl ascii/binary, .obj, .off, .ply)");
  for (std::size_t i = 0; i < polygons.size(); ++i)
    for (std::size_t v : polygons[i])
      if (v >= points.size())
        throw std::runtime_error("mesh " + file + ": face " + std::to_string(i + 1) + " refers to vertex " +
                                 std::to_string(v + 1) + ", but the file has " + std::to_string(points.size()));
  for (const MeshPoint& p : points)
    if (!std::isfinite(p.x()) || !std::isfinite(p.y()) || !std::isfinite(p.z()))
      throw std::runtime_error("mesh " + file + " has a vertex that is not a finite number");
  if (polygons.empty()) throw std::runtime_error("mesh " + file + " has no faces");
}

// Holes: border cycles, closed when short enough and CGAL finds a triangulation. Returns every border
// as found (the open ones are in counts.open).
std::vector<Border> close_holes(SurfaceMesh& mesh, const MeshRepairOptions& options, RepairCounts& counts) {
  std::vector<Halfedge> cycles;
  PMP::extract_boundary_cycles(mesh, std::back_inserter(cycles));
  std::vector<Border> borders;
  for (Halfedge h : cycles) borders.push_back(describe_border(mesh, h));
  for (std::size_t i = 0; i < cycles.size(); ++i) {
    std::vector<Face> patch;
    if (borders[i].length <= options.max_hole)
      // The cubic search is the fallback for holes the Delaunay search spaces cannot fill: O(n^3) in
      // the border's edges, so only for small ones.
      PMP::triangulate_hole(mesh, cycles[i], std::back_inserter(patch),
                            CGAL::parameters::do_not_use_cubic_algorithm(borders[i].edges > 200));
    if (patch.empty()) {
      counts.open.push_back(borders[i]);
    } else {
      ++counts.closed;
      counts.closed_edges += borders[i].edges;
      counts.added += patch.size();
    }
  }
  return borders;
}

// Parts: each oriented outward by its signed volume about its own centroid (exact for a closed part,
// the volume of the cone over its holes otherwise); a part without volume (a sheet, or faces folded
// onto each other) bounds nothing and is dropped. Throws when no part has a volume.
void orient_parts(SurfaceMesh& mesh, const std::string& file, const std::vector<Border>& borders, RepairCounts& counts) {
  auto part = mesh.add_property_map<Face, std::size_t>("f:part", 0).first;
  const std::size_t parts = PMP::connected_components(mesh, part);
  std::vector<double> area(parts, 0.0), volume(parts, 0.0);
  std::vector<Vec<3>> centre(parts, Vec<3>::Zero());
  for (Face f : mesh.faces()) {
    const auto t = face_points(mesh, f);
    const double a = 0.5 * (t[1] - t[0]).cross(t[2] - t[0]).norm();
    area[part[f]] += a;
    centre[part[f]] += a * (t[0] + t[1] + t[2]) / 3.0;
  }
  for (std::size_t c = 0; c < parts; ++c)
    if (area[c] > 0) centre[c] /= area[c];
  for (Face f : mesh.faces()) {
    const auto t = face_points(mesh, f);
    const Vec<3>& o = centre[part[f]];
    volume[part[f]] += (t[0] - o).dot((t[1] - o).cross(t[2] - o)) / 6.0;
  }
  auto hollow = [&](std::size_t c) { return !(std::abs(volume[c]) > 1e-6 * std::pow(area[c], 1.5)); };
  std::vector<Face> flip, drop;
  for (Face f : mesh.faces()) {
    if (hollow(part[f])) drop.push_back(f);
    else if (volume[part[f]] < 0) flip.push_back(f);
  }
  counts.parts = parts;
  for (std::size_t c = 0; c < parts; ++c) counts.hollow += hollow(c);
  if (counts.hollow == parts) {
    std::string where;
    if (!borders.empty())
      where = "an open sheet with " + std::to_string(borders.size()) + " border" + (borders.size() == 1 ? "" : "s") +
              " (the first " + std::to_string(borders[0].edges) + " edges, " + number_text(borders[0].length) +
              " long, through " + point_text(borders[0].vertex) + ")";
    else
      where = "its faces are flat or fold onto each other (near " + point_text(face_points(mesh, *mesh.faces().begin())[0]) + ")";
    throw std::runtime_error("mesh " + file + " encloses no volume: " + where +
                             "; nothing here can be closed into a solid");
  }
  PMP::reverse_face_orientations(flip, mesh);
  for (Face f : drop) CGAL::Euler::remove_face(mesh.halfedge(f), mesh);
  mesh.remove_property_map(part);
}

// A closed surface without self-intersections: nested shells oriented as cavities (CGAL's
// orient_to_bound_a_volume), so the exact inside test applies.
bool becomes_solid(SurfaceMesh& mesh, RepairCounts& counts) {
  bool solid = counts.open.empty() && CGAL::is_closed(mesh);
  if (solid) {
    const SelfIntersectionCheck crossing = check_self_intersection(mesh);
    solid = crossing.verdict == SelfIntersectionCheck::Verdict::none;
    counts.unchecked = crossing.too_costly;
  }
  if (solid) {
    PMP::orient_to_bound_a_volume(mesh);
    solid = PMP::does_bound_a_volume(mesh);
  }
  return solid;
}

// One note per kind of change made, as the CLI prints them.
std::vector<std::string> repair_notes(const RepairCounts& c, bool solid, std::vector<Box<3>>& open_borders) {
  std::vector<std::string> notes;
  auto note = [&](std::size_t n, const std::string& text) {
    if (n > 0) notes.push_back(text);
  };
  note(c.dropped, "faces dropped: " + std::to_string(c.dropped) + " (degenerate or duplicate)");
  note(c.merged, "points merged: " + std::to_string(c.merged) + " (duplicate or unused)");
  note(c.split, "non-manifold vertices split: " + std::to_string(c.split));
  note(c.stitched, "borders stitched: " + std::to_string(c.stitched) + " edge pairs");
  note(c.closed, "holes closed: " + std::to_string(c.closed) + " (" + std::to_string(c.closed_edges) +
                     " border edges, " + std::to_string(c.added) + " faces added)");
  if (!c.open.empty()) {
    std::size_t edges = 0;
    for (const Border& b : c.open) {
      edges += b.edges;
      open_borders.push_back(b.box);
    }
    notes.push_back("holes left open: " + std::to_string(c.open.size()) + " (" + std::to_string(edges) +
                    " border edges; the first through " + point_text(c.open[0].vertex) + ")");
  }
  if (c.parts > 1 || c.hollow > 0)
    notes.push_back("components: " + std::to_string(c.parts) +
                    (c.hollow ? " (" + std::to_string(c.hollow) + " without volume dropped)" : std::string()));
  note(c.turned, "faces re-oriented: " + std::to_string(c.turned));
  if (!solid)
    notes.push_back(std::string("inside test: generalized winding number (the surface ") +
                    (!c.open.empty()        ? "is open"
                     : c.unchecked.empty() ? "intersects or touches itself"
                                           : "is not checked for self-intersections: " + c.unchecked) +
                    ")");
  return notes;
}

}  // namespace

RepairedMesh repair_mesh(const std::string& file, const MeshRepairOptions& options) {
  std::vector<MeshPoint> points;
  std::vector<Polygon> polygons;
  read_checked_soup(file, points, polygons);
  RepairCounts counts;
  const std::size_t faces_read = polygons.size(), points_read = points.size();
  PMP::repair_polygon_soup(points, polygons);
  check_faces_at_vertices(file, points, polygons);
  counts.dropped = faces_read - polygons.size();
  counts.merged = points_read - points.size();
  if (polygons.empty())
    throw std::runtime_error("mesh " + file + ": all " + std::to_string(faces_read) +
                             " faces are degenerate (fewer than three distinct corners)");

  // Triangles (fans over polygons), remembered as read to tell which ones end up reversed.
  std::vector<Polygon> triangles;
  for (const Polygon& p : polygons)
    for (std::size_t k = 1; k + 1 < p.size(); ++k) triangles.push_back({p[0], p[k], p[k + 1]});
  std::vector<std::array<Vec<3>, 3>> as_read;
  as_read.reserve(triangles.size());
  for (const Polygon& t : triangles) as_read.push_back({vec(points[t[0]]), vec(points[t[1]]), vec(points[t[2]])});

  const std::size_t points_before = points.size();
  PMP::orient_polygon_soup(points, triangles);
  counts.split = points.size() - points_before;
  // orient_polygon_soup makes the soup a valid mesh (it splits whatever is not manifold); checked
  // rather than trusted, since the conversion's own checks are off in release builds.
  if (!PMP::is_polygon_soup_a_polygon_mesh(triangles))
    throw std::runtime_error("mesh " + file + " cannot be made into a consistently oriented surface");
  RepairedMesh out;
  SurfaceMesh& mesh = out.mesh;
  PMP::polygon_soup_to_polygon_mesh(points, triangles, mesh);
  counts.stitched = PMP::stitch_borders(mesh);
  counts.split += PMP::duplicate_non_manifold_vertices(mesh);

  const std::vector<Border> borders = close_holes(mesh, options, counts);
  orient_parts(mesh, file, borders, counts);
  out.solid = becomes_solid(mesh, counts);
  if (!out.solid) orient_nested_parts(mesh);
  // Faces kept whose turning sense differs from the file's (face i of the mesh is triangle i).
  for (Face f : mesh.faces())
    if (f.idx() < as_read.size() && reversed(as_read[f.idx()], face_points(mesh, f))) ++counts.turned;
  mesh.collect_garbage();
  out.notes = repair_notes(counts, out.solid, out.open_borders);
  return out;
}

}  // namespace nodegen::geometry_detail
