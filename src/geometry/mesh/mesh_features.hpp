#pragma once
// The sharp features of a triangle mesh and the smooth normals between them.
//
// Feature edges: an edge whose two faces' normals differ by more than the feature angle (the dihedral
// angle, 0 on a flat stretch; default 30 degrees, a domain file's "feature_angle") is sharp; a border
// edge (a mesh left open) is sharp too, and a feature curve unless the winding number decides the solid
// (where a hole is left open the solid ends on the winding number's half-way surface across it, not on
// the border, so the border carries no nodes of its own). An edge between two faces of different parts (face groups of a
// mesh file, the faces of a CAD part) is not sharp unless its angle says so, but it is a feature curve
// all the same: its nodes come first, so both parts' boundary conditions have nodes along where they meet.
//
// Curves: the feature edges chained at their shared vertices into polylines, ending at corners: a vertex
// where one or three or more feature edges meet, or where two meet at a turn sharper than the feature
// angle. A chain that meets no corner is a closed loop.
//
// Smooth normals (as Max's angle-weighted vertex normals, split at creases): around each vertex the faces
// are joined across edges that are not sharp into sectors; a sector's normal is the sum of its faces'
// unit normals, each weighted by its angle at the vertex. A face's corner takes the normal of its sector,
// and a point of the face the normalised barycentric blend of its three corners' (smooth_normal): on a
// smooth surface it turns continuously from face to face, and it never blends across a sharp edge. A
// node on a feature edge takes the normalised sum of the two faces' blends there (the bisector of the
// faces at a sharp edge), a corner the angle-weighted normal of every face around it.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include <Eigen/Geometry>

#include <nodegen/spatial/point.hpp>

#include "geometry/mesh/mesh_repair.hpp"

namespace nodegen::geometry_detail {

// The barycentric weights of p (on or near the triangle abc) on the corners a, b, c, clamped into the
// triangle; none when it has no area.
inline std::optional<Vec<3>> barycentric(const Vec<3>& p, const Vec<3>& a, const Vec<3>& b, const Vec<3>& c) {
  const Vec<3> n = (b - a).cross(c - a);
  const double n2 = n.squaredNorm();
  if (!(n2 > 0)) return std::nullopt;
  Vec<3> w;
  w[1] = std::max(0.0, n.dot((p - a).cross(c - a)) / n2);
  w[2] = std::max(0.0, n.dot((b - a).cross(p - a)) / n2);
  w[0] = std::max(0.0, 1.0 - w[1] - w[2]);
  return Vec<3>(w / w.sum());
}

struct FeatureCurve {
  std::vector<Vec<3>> points;  // the polyline's vertices; a closed one does not repeat its first
  std::vector<std::uint32_t> vertices;  // their mesh vertex indices
  // Per segment (points[i] to points[i + 1], the last one of a closed curve back to points[0]): its two
  // faces (triangle indices; the second is -1 on a border).
  std::vector<std::array<std::int64_t, 2>> faces;
  bool closed = false;
};

struct FeatureCorner {
  Vec<3> point;
  Vec<3> normal;                     // angle-weighted over every face around it, unit
  std::vector<std::uint32_t> faces;  // the triangles around it
};

class MeshFeatures {
 public:
  MeshFeatures() = default;
  // `mesh`: the leaf's surface, its faces in the order of the leaf's triangles (SurfaceMesh's faces()
  // order); `group`: each triangle's part (empty: all one); `feature_angle`: degrees, 0 to 180
  // (180: no edge is sharp); `border_curves`: whether border edges are feature curves.
  MeshFeatures(const SurfaceMesh& mesh, const std::vector<int>& group, double feature_angle, bool border_curves = true);

  // The smooth normal at barycentric weights w (of the triangle's corners as the leaf lists them).
  Vec<3> smooth_normal(std::size_t triangle, const Vec<3>& w) const;
  // The normal of a node on a feature curve's segment, a fraction `along` of the way from its first
  // point to its second.
  Vec<3> curve_normal(const FeatureCurve& curve, std::size_t segment, double along) const;
  // Triangle t's unit normal (zero for one of no area), and its corner that is neither mesh vertex u nor v.
  const Vec<3>& face_normal(std::size_t t) const { return face_normal_[t]; }
  Vec<3> third_corner(std::size_t t, std::uint32_t u, std::uint32_t v) const;
  const std::vector<FeatureCurve>& curves() const { return curves_; }
  const std::vector<FeatureCorner>& corners() const { return corners_; }

 private:
  // Each triangle's corners: the mesh vertex (by index) and the sector normal (index into sectors_).
  std::vector<std::array<std::uint32_t, 3>> corner_vertex_, corner_sector_;
  std::vector<Vec<3>> sectors_;
  std::vector<Vec<3>> points_;  // by mesh vertex index
  std::vector<Vec<3>> face_normal_;
  std::vector<FeatureCurve> curves_;
  std::vector<FeatureCorner> corners_;

  // The blend of triangle t's corner normals along its edge from mesh vertex u to v, a fraction `along`.
  Vec<3> edge_blend(std::int64_t t, std::uint32_t u, std::uint32_t v, double along) const;
  void find_sectors(const SurfaceMesh& mesh, const std::vector<char>& sharp, const std::vector<std::int64_t>& triangle_of);
  void chain_curves(const SurfaceMesh& mesh, const std::vector<char>& curve, const std::vector<std::int64_t>& triangle_of,
                    double cos_limit, bool border_curves);
};

}  // namespace nodegen::geometry_detail
