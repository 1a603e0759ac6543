// Triangle mesh leaf (3D): CGAL reads the file (STL ascii/binary, OBJ, OFF, PLY). A closed mesh that
// bounds a volume (as read, or once mesh_repair.hpp has mended it) answers inside tests by crossing
// parity: ray casting on an AABB tree (Side_of_triangle_mesh). What stays open or intersects itself
// after the repair is decided by the generalized winding number (winding_number.hpp). To reach >= 1e6
// tests/s on 1e5-triangle meshes, a voxel grid caches the answer for every cell that no triangle
// touches; only points in cells the surface passes through go to CGAL or the winding number.
#include <CGAL/AABB_face_graph_triangle_primitive.h>
#include <CGAL/AABB_traits.h>
#include <CGAL/AABB_tree.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/IO/polygon_soup_io.h>
#include <CGAL/Polygon_mesh_processing/connected_components.h>
#include <CGAL/Polygon_mesh_processing/orientation.h>
#include <CGAL/Polygon_mesh_processing/self_intersections.h>
#include <CGAL/Polygon_mesh_processing/triangulate_faces.h>
#include <CGAL/Side_of_triangle_mesh.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/boost/graph/Euler_operations.h>
#include <CGAL/boost/graph/helpers.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <memory>
#include <stdexcept>

#include "geometry/boundary/boundary_fill.hpp"
#include "geometry/files/cad_file.hpp"
#include "geometry/files/mesh_face_groups.hpp"
#include "geometry/mesh/face_group_labels.hpp"
#include "geometry/mesh/mesh_repair.hpp"
#include "nodegen/storage/splitmix.hpp"
#include "geometry/files/quiet_library_output.hpp"
#include "geometry/mesh/feature_placement.hpp"
#include "geometry/mesh/mesh_features.hpp"
#include "geometry/mesh/self_intersection_check.hpp"
#include "geometry/shapes/shape.hpp"
#include "geometry/mesh/voxel_cache.hpp"
#include "geometry/mesh/winding_number.hpp"

namespace nodegen::geometry_detail {
namespace {

namespace PMP = CGAL::Polygon_mesh_processing;
using Kernel = MeshKernel;
using Point3 = MeshPoint;
using Mesh = SurfaceMesh;
using Primitive = CGAL::AABB_face_graph_triangle_primitive<Mesh>;
using Tree = CGAL::AABB_tree<CGAL::AABB_traits<Kernel, Primitive>>;
using Side = CGAL::Side_of_triangle_mesh<Mesh, Kernel>;

// The exact test's checks on a mesh read as it is: "" when it is closed, free of self-intersections
// and bounds a volume (then oriented so), else what is wrong, said of `subject` ("mesh FILE", or a CAD
// part's tessellation).
std::string strict_problem_of(const std::string& file, const std::string& subject, const std::vector<MeshPoint>& points,
                              const std::vector<std::vector<std::size_t>>& polygons, bool read, Mesh& mesh);

std::string strict_problem(const std::string& file, Mesh& mesh) {
  std::vector<MeshPoint> points;
  std::vector<std::vector<std::size_t>> polygons;
  bool read = false;
  try {
    const QuietLibraryOutput quiet;
    read = CGAL::IO::read_polygon_soup(file, points, polygons);
  } catch (const std::exception& e) {
    return "cannot read mesh " + file + ": " + e.what();
  }
  return strict_problem_of(file, "mesh " + file, points, polygons, read, mesh);
}

// The checks on a soup `read` (false: the reader failed). What CGAL::IO::read_polygon_mesh does (every
// point a vertex, every face added by Euler::add_face, then a validity check), with the check of the
// faces around each vertex before the build, whose time grows with their square.
std::string strict_problem_of(const std::string& file, const std::string& subject, const std::vector<MeshPoint>& points,
                              const std::vector<std::vector<std::size_t>>& polygons, bool read, Mesh& mesh) {
  const std::string unreadable =
      "cannot read " + subject + " (unsupported format or malformed data; supported: .stl ascii/binary, .obj, .off, .ply)";
  if (!read) return unreadable;
  bool built = true;
  {
    check_faces_at_vertices(file, points, polygons);
    std::vector<Mesh::Vertex_index> vertices;
    vertices.reserve(points.size());
    for (const MeshPoint& p : points) vertices.push_back(mesh.add_vertex(p));
    std::vector<Mesh::Vertex_index> corners;
    std::vector<MeshPoint> at;
    for (std::size_t f = 0; f < polygons.size(); ++f) {
      const auto& polygon = polygons[f];
      corners.clear();
      for (std::size_t v : polygon) {
        if (v >= vertices.size()) return "cannot read " + subject + ": a face refers to a vertex it does not have";
        corners.push_back(vertices[v]);
      }
      // A face of more than three corners is cut into triangles below (triangulate_faces): a quad along a
      // diagonal, where two corners at one point leave a triangle of no area, and a larger face by a
      // constrained triangulation of its corners, which reads through a null handle there (found by
      // fuzz_mesh_repair: a face of five corners, (0, 0, 0) and (0, -0, 0) among them).
      if (polygon.size() > 3) {
        at.clear();
        for (std::size_t v : polygon) at.push_back(points[v]);
        std::sort(at.begin(), at.end());
        if (std::adjacent_find(at.begin(), at.end()) != at.end())
          return subject + " has face " + std::to_string(f) + " (of " + std::to_string(polygon.size()) +
                 " corners) with two corners at one point";
      }
      if (CGAL::Euler::add_face(corners, mesh) == Mesh::null_face()) {
        built = false;
        break;
      }
    }
    built = built && mesh.is_valid(false);
  }
  if (!built)
    return subject + " is not a manifold, consistently oriented surface (an edge of more than two faces, faces that "
                     "meet at a corner only, or neighbours facing opposite ways)";
  if (mesh.number_of_faces() == 0) return unreadable;  // what a reader makes of a file that is no mesh
  // Points of the file no face uses bound nothing, and CGAL's does_bound_a_volume reads a face of their
  // null halfedge, past its array (found by fuzz_mesh_obj: a closed tetrahedron and one spare vertex).
  for (auto v : mesh.vertices())
    if (mesh.is_isolated(v)) mesh.remove_vertex(v);
  if (mesh.has_garbage()) mesh.collect_garbage();
  // A face it cannot cut (its corners on one line, no normal) would stay a polygon among the triangles
  // that every later step assumes; triangulate_faces says so by returning false.
  if (!CGAL::is_triangle_mesh(mesh) && !PMP::triangulate_faces(mesh))
    return subject + " has a face of more than three corners that cannot be cut into triangles (its corners "
           "on one line, or folded onto each other)";
  if (!CGAL::is_closed(mesh)) {
    std::size_t border = 0;
    for (auto h : mesh.halfedges())
      if (mesh.is_border(h)) ++border;
    return subject + " is not closed (" + std::to_string(border) +
           " border edges): the inside test needs a watertight surface";
  }
  // How the shells nest (does_bound_a_volume, is_outward_oriented) is found by testing each shell
  // against the others: time in the square of their number (20 000 tetrahedra took seconds, 100 000
  // minutes). Above kMaxShells the mesh is refused whether or not it may be repaired (the check runs first
  // either way), before any of that work.
  {
    constexpr std::size_t kMaxShells = 4096;
    auto shell_of = mesh.add_property_map<Mesh::Face_index, std::size_t>("f:nodegen_shell", 0).first;
    const std::size_t shells = PMP::connected_components(mesh, shell_of);
    mesh.remove_property_map(shell_of);
    if (shells > kMaxShells)
      throw std::runtime_error(subject + " has " + std::to_string(shells) + " separate closed shells, above " +
                               std::to_string(kMaxShells) +
                               " (how shells nest is checked shell against shell, in time that grows with the "
                               "square of their number)");
  }
  // The inside test counts crossings, and the nodes' normals are the faces' own: both need a surface
  // that bounds one volume. Overlapping or crossing shells (two cubes sharing space) and a shell nested
  // in another with the same orientation (where a hollow was meant) gave inverted normals silently.
  const SelfIntersectionCheck crossing = check_self_intersection(mesh);
  if (crossing.verdict == SelfIntersectionCheck::Verdict::intersects)
    return subject +
           " intersects itself (overlapping or crossing shells): the inside test needs a surface that bounds one "
           "volume";
  if (crossing.verdict == SelfIntersectionCheck::Verdict::too_costly)
    return subject + " is not checked for self-intersections: " + crossing.too_costly +
           "; the exact inside test needs a surface known to bound one volume";
  if (!PMP::is_outward_oriented(mesh)) PMP::reverse_face_orientations(mesh);
  if (!PMP::does_bound_a_volume(mesh))
    return subject +
           " does not bound a volume: a shell nested in another must be oriented the other way (a cavity faces "
           "inward)";
  return "";
}

// The boundary parts of a mesh leaf: of its faces of no group, and of each group of its file.
struct MeshPartIds {
  int ungrouped = 1;
  std::vector<int> group;  // by index in the file's group names
  int of(int g) const { return g < 0 ? ungrouped : group[static_cast<std::size_t>(g)]; }
};

// A mesh as loaded: its surface, the inside test's structures, its triangles and their face groups.
// Immutable once built, so the leaves that name one file with the same options share it (MeshCache).
class MeshSurface {
 public:
  // max_cells: the most cells its voxel cache may have.
  MeshSurface(const std::string& file, const MeshOptions& options, std::vector<std::string>& notes,
              std::size_t max_cells)
      : max_cells_(max_cells) {
    if (!std::filesystem::exists(file)) throw std::runtime_error("file not found: " + file);
    {
      std::ifstream probe(file, std::ios::binary);
      if (!probe) throw std::runtime_error("cannot open " + file);
    }
    // A mesh that passes the strict checks is used as read, whatever `repair` says: repairing a clean
    // mesh changes nothing, and its nodes stay those of the strict test.
    const std::string problem = strict_problem(file, mesh_);
    if (problem.empty()) {
      build_exact(options.accelerate);
    } else {
      if (!options.repair) throw std::runtime_error(problem);
      RepairedMesh repaired = repair_mesh(file, {options.max_hole});
      notes = std::move(repaired.notes);
      mesh_ = std::move(repaired.mesh);
      if (repaired.solid) build_exact(options.accelerate);
      else build_winding(options.accelerate, repaired.open_borders);
    }
    check_crowding(file);
    label_triangles(read_mesh_face_groups(file));
    features_ = std::make_unique<const MeshFeatures>(mesh_, triangle_group_, options.feature_angle, !winding_);
  }
  // A surface given as triangles (a CAD part's tessellation): it must pass the strict checks, its
  // groups are its parts, and its lift (if any) moves nodes onto the exact surface.
  MeshSurface(const MeshSoup& soup, const MeshOptions& options, std::size_t max_cells)
      : max_cells_(max_cells), lift_(soup.lift) {
    std::vector<MeshPoint> points;
    points.reserve(soup.points.size());
    for (const Vec<3>& p : soup.points) points.emplace_back(p[0], p[1], p[2]);
    std::vector<std::vector<std::size_t>> polygons;
    polygons.reserve(soup.triangles.size());
    for (const auto& t : soup.triangles) polygons.push_back({t[0], t[1], t[2]});
    const std::string problem =
        strict_problem_of(soup.name, "the tessellation of CAD part " + soup.name, points, polygons, true, mesh_);
    if (!problem.empty()) throw std::runtime_error(problem + "; a smaller \"tolerance\" may mend it");
    build_exact(options.accelerate);
    if (triangles_.size() != soup.triangles.size())
      throw std::runtime_error("the tessellation of " + soup.name + " lost triangles on the way to a mesh");
    check_crowding(soup.name);
    group_names_ = soup.group_names;
    triangle_group_ = soup.group;
    any_ungrouped_ = false;
    if (lift_) soup_order_ = soup_corner_order(soup);
    triangle_face_ = soup.face.empty() ? triangle_group_ : soup.face;
    features_ = std::make_unique<const MeshFeatures>(mesh_, triangle_face_, options.feature_angle);
  }

  std::size_t cache_cells() const { return cache_ ? cache_->cell_count() : 0; }
  // The file's face groups, in the order of their first faces (none: the mesh is one part), and
  // whether some face has none.
  const std::vector<std::string>& group_names() const { return group_names_; }
  bool any_ungrouped() const { return any_ungrouped_; }

  bool contains(const Vec<3>& p) const {
    if (!box_.contains(p)) return false;
    if (winding_) return inside_by_cached_winding(p);
    if (cache_) {
      switch (cache_->at(p)) {
        case VoxelCache::Side::inside: return true;
        case VoxelCache::Side::outside: return false;
        default: break;
      }
      // In a cell the surface passes through: count the triangles crossed on the short way to the
      // nearest cell of known side (CGAL's ray through the whole mesh is slow on meshes of long thin
      // triangles); a way that grazes an edge or vertex is replaced by the next shortest.
      thread_local std::vector<std::uint32_t> candidates;
      for (int rank = 0; rank < 6; ++rank) {
        Vec<3> q;
        VoxelCache::Side q_side;
        if (!cache_->escape(p, rank, q, q_side, candidates)) break;
        int crossings = 0;
        if (count_crossings(p, q, candidates, crossings))
          return (q_side == VoxelCache::Side::inside) != (crossings % 2 == 1);
      }
    }
    return (*side_)(Point3(p[0], p[1], p[2])) != CGAL::ON_UNBOUNDED_SIDE;
  }
  Box<3> bounds() const { return box_; }
  // The surface's triangles under `to_world`, each as the part `ids` gives its group.
  void part_geometry(const Affine<3>& to_world, const MeshPartIds& ids, std::vector<PartPrimitive>& out) const {
    for (std::size_t i = 0; i < triangles_.size(); ++i) {
      const MeshTriangle& t = triangles_[i];
      append_triangle(t.a, t.b, t.c, to_world, ids.of(group_of(i)), out);
    }
  }
  // The surface's nodes where `where` places the mesh, each of the part `ids` gives its triangle's group.
  void emit_boundary(const Placement<3>& where, BoundarySink<3>& sink, const MeshPartIds& ids) const {
    std::vector<WorldTriangle> world;
    world.reserve(triangles_.size());
    for (std::size_t i = 0; i < triangles_.size(); ++i) {
      const MeshTriangle& t = triangles_[i];
      const Vec<3> n = (t.b - t.a).cross(t.c - t.a);
      if (!(n.norm() > 0)) continue;  // degenerate triangles carry no area
      world.push_back({where.point(t.a), where.point(t.b), where.point(t.c), where.normal(n.normalized()),
                       ids.of(group_of(i)), static_cast<std::uint32_t>(i)});
    }
    // Every kept node is finished on its triangle: lifted onto a CAD part's exact surface, or given the
    // mesh's smooth normal there.
    const TriangleLift finish = [&](const WorldTriangle& t, Vec<3>& pos, Vec<3>& normal) {
      finish_node(where, t.source, pos, normal);
    };
    // Under the winding number the solid is the union of the parts: a triangle may lie inside another
    // part (overlapping shells) or between two parts (touching ones), where it bounds nothing. A node is
    // kept where just behind it is inside and just in front outside (its normal then points out of the
    // solid), turned where it is the other way round, dropped where both sides agree. The same test
    // keeps the feature curves' nodes where they bound the solid, not where they run inside it.
    BoundarySide side;
    if (winding_) {
      const Affine<3>::Mat to_local = inverse_of(where.to_world.A);
      const double step = 1e-6 * box_.size().norm();
      side = [this, &where, to_local, step](const Vec<3>& pos, const Vec<3>& normal) {
        const Vec<3> p = to_local * (pos - where.to_world.b);
        const Vec<3> n = (to_local * normal).normalized() * (where.flip ? -step : step);
        const bool behind = contains(p - n), ahead = contains(p + n);
        return behind == ahead ? 0 : (behind ? 1 : -1);
      };
    }
    // Feature corners and curves first; the faces' nodes keep away from them.
    PointGrid<3> placed(sink.cell());
    FeatureLeaf leaf{*features_, where, [&](std::size_t t) { return ids.of(group_of(t)); }, {}, side};
    if (lift_)
      leaf.lift = [&](const std::vector<std::size_t>& t, Vec<3>& pos, Vec<3>& normal) { lift_to_faces(where, t, pos, normal); };
    place_features(leaf, sink, placed);
    sample_triangles(world, sink, side, finish, &placed);
  }

 private:
  int group_of(std::size_t triangle) const { return triangle_group_.empty() ? -1 : triangle_group_[triangle]; }

  // For each triangle, which corner of the soup's triangle each of its corners is (the checks may have
  // turned the triangles round).
  std::vector<std::array<std::uint8_t, 3>> soup_corner_order(const MeshSoup& soup) const {
    std::vector<std::array<std::uint8_t, 3>> order(triangles_.size());
    for (std::size_t i = 0; i < triangles_.size(); ++i) {
      const MeshTriangle& t = triangles_[i];
      const std::array<Vec<3>, 3> mine{t.a, t.b, t.c};
      for (std::size_t k = 0; k < 3; ++k)
        for (std::uint8_t j = 0; j < 3; ++j)
          if (soup.points[soup.triangles[i][j]] == mine[k]) order[i][k] = j;
    }
    return order;
  }

  // A node at `pos` on world triangle `source` (or a piece of it) finished: lifted onto the exact surface
  // (a CAD part), or given the smooth normal (a mesh file).
  void finish_node(const Placement<3>& where, std::size_t source, Vec<3>& pos, Vec<3>& normal) const {
    if (lift_) return lift(where, source, pos, normal);
    const MeshTriangle& local = triangles_[source];
    if (const auto w = barycentric(pos, where.point(local.a), where.point(local.b), where.point(local.c)))
      normal = where.normal(features_->smooth_normal(source, *w));
  }

  // Barycentric weights of triangle `source`'s corners as the leaf lists them, in the soup's corner order.
  Vec<3> in_soup_order(std::size_t source, const Vec<3>& w) const {
    Vec<3> soup_w;
    for (std::size_t k = 0; k < 3; ++k) soup_w[soup_order_[source][k]] = w[static_cast<int>(k)];
    return soup_w;
  }

  // A node at `pos` moved onto the exact surface: its barycentric weights on the world triangle `source`
  // (an affine map keeps them) in the soup's corner order, lifted in the surface's own coordinates, placed
  // back where the leaf is.
  void lift(const Placement<3>& where, std::size_t source, Vec<3>& pos, Vec<3>& normal) const {
    const MeshTriangle& local = triangles_[source];  // the whole triangle (a piece may be clipped)
    const auto w = barycentric(pos, where.point(local.a), where.point(local.b), where.point(local.c));
    if (!w) return;
    Vec<3> p = (*w)[0] * local.a + (*w)[1] * local.b + (*w)[2] * local.c;
    Vec<3> local_normal = (local.b - local.a).cross(local.c - local.a).normalized();
    lift_->lift(static_cast<std::uint32_t>(source), in_soup_order(source, *w), p, local_normal);
    pos = where.point(p);
    normal = where.normal(local_normal);
  }

  // A node at `pos` where the exact faces of `triangles` meet (a CAD part's edge or corner) moved onto
  // them: projected onto each face's surface in turn until it stays put (alternating projections settle
  // where the surfaces meet), with the normalised sum of the faces' normals there (one per face).
  void lift_to_faces(const Placement<3>& where, const std::vector<std::size_t>& triangles, Vec<3>& pos,
                     Vec<3>& normal) const {
    std::vector<std::size_t> faces;  // one triangle per face
    for (std::size_t t : triangles)
      if (std::none_of(faces.begin(), faces.end(), [&](std::size_t f) { return triangle_face_[f] == triangle_face_[t]; }))
        faces.push_back(t);
    const Affine<3>::Mat to_local = inverse_of(where.to_world.A);
    Vec<3> q = to_local * (pos - where.to_world.b);
    std::vector<Vec<3>> normals(faces.size());
    const double still = 1e-14 * box_.size().norm();
    for (int round = 0; round < 32; ++round) {
      const Vec<3> before = q;
      for (std::size_t k = 0; k < faces.size(); ++k) {
        const MeshTriangle& t = triangles_[faces[k]];
        const auto w = barycentric(q, t.a, t.b, t.c);
        if (!w) continue;
        normals[k] = (t.b - t.a).cross(t.c - t.a).normalized();
        lift_->project(static_cast<std::uint32_t>(faces[k]), in_soup_order(faces[k], *w), q, normals[k]);
      }
      if ((q - before).norm() <= still) break;
    }
    Vec<3> sum = Vec<3>::Zero();
    for (const Vec<3>& n : normals) sum += n;
    pos = where.point(q);
    if (sum.norm() > 1e-12) normal = where.normal(sum.normalized());
  }

  // Each triangle's group: that of the file's face nearest to it (face_group_labels.hpp).
  void label_triangles(const MeshFaceGroups& groups) {
    if (groups.names.empty()) return;
    group_names_ = groups.names;
    std::vector<Vec<3>> centroids;
    centroids.reserve(triangles_.size());
    for (const MeshTriangle& t : triangles_) centroids.push_back((t.a + t.b + t.c) / 3.0);
    triangle_group_ = nearest_face_groups(groups, centroids);
    // A triangle with no face of the file near it (were every face without area) is of no group too.
    any_ungrouped_ = groups.any_ungrouped() ||
                     std::find(triangle_group_.begin(), triangle_group_.end(), -1) != triangle_group_.end();
  }

  // Number of `candidates` the segment pq crosses properly, and the sum of their signs (+1 where p is
  // behind the triangle, -1 where it is in front: the winding number's jump from q to p); false when it
  // touches an edge, a vertex or a triangle's plane at an end point (exact predicates decide), so the
  // caller tries another segment.
  bool count_crossings(const Vec<3>& p, const Vec<3>& q, const std::vector<std::uint32_t>& candidates,
                       int& crossings, int* signed_sum = nullptr) const {
    const Point3 P(p[0], p[1], p[2]), Q(q[0], q[1], q[2]);
    crossings = 0;
    if (signed_sum) *signed_sum = 0;
    for (const std::uint32_t id : candidates) {
      const MeshTriangle& t = triangles_[id];
      const Point3 A(t.a[0], t.a[1], t.a[2]), B(t.b[0], t.b[1], t.b[2]), C(t.c[0], t.c[1], t.c[2]);
      const auto op = CGAL::orientation(A, B, C, P), oq = CGAL::orientation(A, B, C, Q);
      if (op == oq && op != CGAL::COPLANAR) continue;  // both ends strictly on one side of the plane
      if (op == CGAL::COPLANAR || oq == CGAL::COPLANAR) return false;
      const auto s1 = CGAL::orientation(P, Q, A, B), s2 = CGAL::orientation(P, Q, B, C),
                 s3 = CGAL::orientation(P, Q, C, A);
      // A zero means the segment's line meets an edge's line: through an edge or vertex, or beside the
      // triangle in line with an edge. Only the first is ambiguous; telling them apart is not worth it
      // on a path this rare.
      if (s1 == CGAL::COPLANAR || s2 == CGAL::COPLANAR || s3 == CGAL::COPLANAR) return false;
      if (s1 == s2 && s2 == s3) {
        ++crossings;
        if (signed_sum) *signed_sum += op == CGAL::NEGATIVE ? 1 : -1;
      }
    }
    return true;
  }

  // The inside test's cost near the surface. A point in a cell the surface passes through is decided by
  // the faces of the cells on its short way out (VoxelCache::escape), one exact test each: a few faces on
  // average on meshes as they come (bunny, cow, torus, gear; about a hundred on a cone of 16 384 sides),
  // but every face of a stack where thousands lie on each other closer than a cell (5000 sheets stacked
  // 1e-4 apart: over ten thousand faces a point, minutes to fill 300 nodes). So it is measured at load,
  // on points drawn on the surface (area-weighted, a fixed seed), before any work is spent on the mesh:
  // a mean above kMaxMeanFaces is refused (those sheets within seconds), naming the most crowded point.
  void check_crowding(const std::string& file) const {
    constexpr std::uint64_t kSamples = 4096;
    constexpr double kMaxMeanFaces = 1024;
    if (!cache_ || triangles_.empty()) return;
    std::vector<double> area(triangles_.size());
    double total = 0;
    for (std::size_t i = 0; i < triangles_.size(); ++i) {
      const MeshTriangle& t = triangles_[i];
      total += 0.5 * (t.b - t.a).cross(t.c - t.a).norm();
      area[i] = total;  // running sum
    }
    if (!(total > 0)) return;
    std::vector<std::uint32_t> faces;
    double sum = 0;
    std::size_t most = 0;
    Vec<3> most_at = triangles_.front().a;
    for (std::uint64_t k = 0; k < kSamples; ++k) {
      const std::uint64_t bits = mix64(k * 3);
      const std::size_t i = std::min<std::size_t>(
          static_cast<std::size_t>(std::upper_bound(area.begin(), area.end(), unit_uniform(bits) * total) - area.begin()),
          triangles_.size() - 1);
      const double r1 = std::sqrt(unit_uniform(mix64(k * 3 + 1))), r2 = unit_uniform(mix64(k * 3 + 2));
      const MeshTriangle& t = triangles_[i];
      const Vec<3> p = (1 - r1) * t.a + r1 * (1 - r2) * t.b + r1 * r2 * t.c;
      Vec<3> q;
      VoxelCache::Side side;
      if (!cache_->escape(p, 0, q, side, faces)) continue;
      sum += static_cast<double>(faces.size());
      if (faces.size() > most) {
        most = faces.size();
        most_at = p;
      }
    }
    const double mean = sum / static_cast<double>(kSamples);
    if (mean > kMaxMeanFaces)
      throw std::runtime_error(
          "mesh " + file + " has faces lying on each other: its inside test would compare a point near the surface "
          "with " + std::to_string(static_cast<long long>(mean)) + " faces on average (at most " +
          std::to_string(static_cast<int>(kMaxMeanFaces)) + "; meshes as they come: under 10), " +
          std::to_string(most) + " near " + point_text(most_at) + ": remove the stacked or duplicated faces");
  }

  // The exact test: crossing parity on the closed, oriented mesh_.
  void build_exact(bool accelerate) {
    // Face indices then run 0..n-1, so triangles_[face.idx()] is the face's triangle.
    if (mesh_.has_garbage()) mesh_.collect_garbage();
    collect_triangles();
    // Built eagerly: Side_of_triangle_mesh would otherwise build its tree on the first query, and
    // contains() is called from many threads without a lock.
    tree_ = std::make_unique<Tree>(faces(mesh_).first, faces(mesh_).second, mesh_);
    tree_->build();
    side_ = std::make_unique<Side>(*tree_);
    if (accelerate)
      cache_ = std::make_unique<VoxelCache>(
          triangles_, box_,
          [this](const Vec<3>& p) { return (*side_)(Point3(p[0], p[1], p[2])) == CGAL::ON_BOUNDED_SIDE; },
          std::vector<Box<3>>{}, max_cells_);
  }

  // The tolerant test: winding number >= 1/2 on the outward-oriented triangles. The voxel cache still
  // answers for cells no triangle touches: off a closed surface the winding number is constant between
  // surfaces. Near a hole left open it is not: it passes 1/2 on a film spanning the hole, which bulges
  // by a fraction of the hole's size, so the cells within a quarter of the hole's diagonal (plus 1% of
  // the mesh's extent) of its border's box are evaluated every time.
  void build_winding(bool accelerate, const std::vector<Box<3>>& open_borders) {
    collect_triangles();
    std::vector<std::array<Vec<3>, 3>> soup;
    soup.reserve(triangles_.size());
    for (const auto& t : triangles_) soup.push_back({t.a, t.b, t.c});
    winding_ = std::make_unique<WindingNumber>(std::move(soup));
    std::vector<Box<3>> uncertain;
    for (const Box<3>& b : open_borders) {
      const Vec<3> reach = Vec<3>::Constant(0.25 * b.size().norm() + 0.01 * box_.size().maxCoeff());
      uncertain.push_back({b.lo - reach, b.hi + reach});
    }
    if (accelerate)
      cache_ = std::make_unique<VoxelCache>(
          triangles_, box_, [this](const Vec<3>& p) { return inside_by_winding(p); }, uncertain, max_cells_);
  }

  void collect_triangles() {
    box_ = {Vec<3>::Constant(1e300), Vec<3>::Constant(-1e300)};
    for (auto v : mesh_.vertices()) {
      const Vec<3> p = vec(mesh_.point(v));
      box_.lo = box_.lo.cwiseMin(p);
      box_.hi = box_.hi.cwiseMax(p);
    }
    triangles_.clear();
    for (auto f : mesh_.faces()) {
      auto h = mesh_.halfedge(f);
      triangles_.push_back({vec(mesh_.point(mesh_.source(h))), vec(mesh_.point(mesh_.target(h))),
                            vec(mesh_.point(mesh_.target(mesh_.next(h))))});
    }
  }

  bool inside_by_winding(const Vec<3>& p) const { return (*winding_)(p) >= 0.5; }

  // The winding number through the voxel cache. Away from holes left open it is an integer off the
  // surface: 0 in free cells outside, 1 or more inside (parts may overlap). So a point in a surface cell
  // is decided by the signed crossings s of its short way to a free cell: from outside, it is inside
  // when s >= 1; from inside, when s >= 0; only s < 0 from inside (2 - 1 or 1 - 1?), a way through
  // cells near an open hole, or grazing segments need the winding number itself.
  bool inside_by_cached_winding(const Vec<3>& p) const {
    if (!cache_) return inside_by_winding(p);
    const VoxelCache::Side side = cache_->at(p);
    if (side != VoxelCache::Side::surface) return side == VoxelCache::Side::inside;
    thread_local std::vector<std::uint32_t> candidates;
    for (int rank = 0; rank < 6; ++rank) {
      Vec<3> q;
      VoxelCache::Side q_side;
      bool uncertain = false;
      if (!cache_->escape(p, rank, q, q_side, candidates, &uncertain) || uncertain) break;
      int crossings = 0, jump = 0;
      if (!count_crossings(p, q, candidates, crossings, &jump)) continue;
      if (q_side == VoxelCache::Side::outside) return jump >= 1;
      if (jump >= 0) return true;
      break;
    }
    return inside_by_winding(p);
  }

  Mesh mesh_;
  Box<3> box_;
  std::vector<MeshTriangle> triangles_;
  std::unique_ptr<Tree> tree_;
  std::unique_ptr<Side> side_;
  std::unique_ptr<WindingNumber> winding_;  // set when the inside test is the winding number
  std::unique_ptr<VoxelCache> cache_;  // null when not accelerated
  std::size_t max_cells_;
  std::vector<std::string> group_names_;  // the file's face groups; empty: none
  bool any_ungrouped_ = true;
  std::vector<int> triangle_group_;  // per triangle: index into group_names_, -1 for none; empty: none
  std::shared_ptr<const SurfaceLift> lift_;  // a CAD part's exact surface; null for a mesh file
  std::vector<std::array<std::uint8_t, 3>> soup_order_;  // with a lift: see soup_corner_order
  std::unique_ptr<const MeshFeatures> features_;  // its feature curves and smooth normals
  std::vector<int> triangle_face_;  // a surface given as triangles: each one's face (MeshSoup::face)
};

// A mesh leaf: a loaded surface under this leaf's name and boundary parts ("surface", and one per face
// group of the file). The groups belong to the surface, which leaves share; the parts' ids to the leaf.
class MeshShape final : public Shape<3> {
 public:
  MeshShape(std::shared_ptr<const MeshSurface> surface, std::string label)
      : surface_(std::move(surface)), label_(std::move(label)) {}

  bool contains(const Vec<3>& p) const override { return surface_->contains(p); }
  Box<3> bounds() const override { return surface_->bounds(); }
  // "surface" first when some face has no group, then the groups in the order of their first faces in
  // the file; a group named "surface" is that part.
  void register_parts(std::vector<std::string>& names) override {
    ShapeParts parts(names, label_);
    auto part = [&](const std::string& name) { return parts.id(name); };
    ids_ = MeshPartIds{};
    if (surface_->any_ungrouped()) ids_.ungrouped = part("surface");
    for (const std::string& group : surface_->group_names()) ids_.group.push_back(part(group));
  }
  void emit_boundary(const Placement<3>& where, BoundarySink<3>& sink) const override {
    surface_->emit_boundary(where, sink, ids_);
  }
  void part_geometry(const Affine<3>& to_world, std::vector<PartPrimitive>& out) const override {
    surface_->part_geometry(to_world, ids_, out);
  }

 private:
  std::shared_ptr<const MeshSurface> surface_;
  std::string label_;
  MeshPartIds ids_;
};

}  // namespace

struct MeshCache::Loaded {
  std::shared_ptr<const MeshSurface> surface;
  std::vector<std::string> notes;
};

MeshCache::MeshCache() = default;
MeshCache::~MeshCache() = default;

// A leaf of the surface the cache holds for `key`, loaded by `load(notes, cells)` the first time (cells:
// the voxel cells it may take, half of what the domain's meshes have left); `notes` its load's notes.
template <class Load>
ShapePtr<3> shared_surface_leaf(MeshCache& cache, const std::string& key, std::string label,
                                std::vector<std::string>& notes, Load load) {
  auto found = cache.loaded_.find(key);
  if (found == cache.loaded_.end()) {
    const std::size_t left = MeshCache::kAllCells - std::min(cache.cells_, MeshCache::kAllCells);
    const std::size_t cap = std::clamp(left / 2, MeshCache::kFewestCells, VoxelCache::kMaxCells);
    auto loaded = std::make_unique<MeshCache::Loaded>();
    loaded->surface = load(loaded->notes, cap);
    cache.cells_ += loaded->surface->cache_cells();
    found = cache.loaded_.emplace(key, std::move(loaded)).first;
  }
  notes = found->second->notes;
  return std::make_shared<MeshShape>(found->second->surface, std::move(label));
}

namespace {
// The file as the cache knows it: its canonical path (the same file under another name is one file).
std::string canonical_name(const std::string& file) {
  std::error_code ec;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(file, ec);
  return (ec ? std::filesystem::path(file) : resolved).string();
}
}  // namespace

ShapePtr<3> make_mesh(const std::string& file, std::string label, const MeshOptions& options,
                      std::vector<std::string>& notes, MeshCache& cache) {
  std::ostringstream key;
  key.precision(17);
  key << canonical_name(file) << '\n' << options.accelerate << options.repair << ' ' << options.max_hole << ' '
      << options.feature_angle;
  return shared_surface_leaf(cache, key.str(), std::move(label), notes, [&](std::vector<std::string>& load_notes, std::size_t cap) {
    return std::make_shared<const MeshSurface>(file, options, load_notes, cap);
  });
}

ShapePtr<3> make_cad(const std::string& file, std::string label, const CadOptions& options,
                     std::vector<std::string>& notes, MeshCache& cache) {
  std::ostringstream key;
  key.precision(17);
  key << "cad\n" << canonical_name(file) << '\n' << options.unit << ' ' << options.tolerance;
  return shared_surface_leaf(cache, key.str(), std::move(label), notes, [&](std::vector<std::string>& load_notes, std::size_t cap) {
    // A CAD part's feature curves are its faces' borders (each face is a part); no tessellation edge
    // within a face is sharp, and the lift gives the exact normals.
    MeshOptions mesh_options;
    mesh_options.feature_angle = 180.0;
    return std::make_shared<const MeshSurface>(read_cad(file, options, load_notes), mesh_options, cap);
  });
}

}  // namespace nodegen::geometry_detail
