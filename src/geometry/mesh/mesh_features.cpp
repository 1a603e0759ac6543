// Feature edges, curves, corners and smooth normals of a triangle mesh (see mesh_features.hpp).
#include "geometry/mesh/mesh_features.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

namespace nodegen::geometry_detail {
namespace {

Vec<3> vec_of(const MeshPoint& p) { return {p.x(), p.y(), p.z()}; }

// One past the largest index of the mesh's elements (a mesh with removed elements has gaps).
template <class Range>
std::size_t index_slots(const Range& range) {
  std::size_t slots = 0;
  for (auto x : range) slots = std::max<std::size_t>(slots, static_cast<std::size_t>(x.idx()) + 1);
  return slots;
}

// The corner (0, 1 or 2) of a triangle whose mesh vertex is v.
int corner_of(const std::array<std::uint32_t, 3>& corners, std::uint32_t v) {
  return corners[0] == v ? 0 : corners[1] == v ? 1 : 2;
}

// The angle of the triangle (a, b, c) at a.
double angle_at(const Vec<3>& a, const Vec<3>& b, const Vec<3>& c) {
  const Vec<3> u = b - a, v = c - a;
  return std::atan2(u.cross(v).norm(), u.dot(v));
}

std::size_t find_root(std::vector<std::size_t>& parent, std::size_t i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

MeshFeatures::MeshFeatures(const SurfaceMesh& mesh, const std::vector<int>& group, double feature_angle,
                           bool border_curves) {
  points_.assign(index_slots(mesh.vertices()), Vec<3>::Zero());
  for (auto v : mesh.vertices()) points_[v.idx()] = vec_of(mesh.point(v));
  std::vector<std::int64_t> triangle_of(index_slots(mesh.faces()), -1);
  for (auto f : mesh.faces()) {
    triangle_of[f.idx()] = static_cast<std::int64_t>(corner_vertex_.size());
    const auto h = mesh.halfedge(f);
    const std::array<std::uint32_t, 3> corners{static_cast<std::uint32_t>(mesh.source(h).idx()),
                                               static_cast<std::uint32_t>(mesh.target(h).idx()),
                                               static_cast<std::uint32_t>(mesh.target(mesh.next(h)).idx())};
    corner_vertex_.push_back(corners);
    const Vec<3> a = vec_of(mesh.point(mesh.source(h))), b = vec_of(mesh.point(mesh.target(h))),
                 c = vec_of(mesh.point(mesh.target(mesh.next(h))));
    const Vec<3> n = (b - a).cross(c - a);
    face_normal_.push_back(n.norm() > 0 ? Vec<3>(n.normalized()) : Vec<3>(Vec<3>::Zero()));
  }
  auto group_of = [&](std::int64_t t) { return group.empty() ? -1 : group[static_cast<std::size_t>(t)]; };
  const double cos_limit = std::cos(feature_angle * std::numbers::pi / 180.0);
  std::vector<char> sharp(index_slots(mesh.edges()), 0), curve(sharp.size(), 0);
  for (auto e : mesh.edges()) {
    if (mesh.is_border(e)) {
      sharp[e.idx()] = 1;
      curve[e.idx()] = border_curves;
      continue;
    }
    const auto h = mesh.halfedge(e);
    const std::int64_t a = triangle_of[mesh.face(h).idx()], b = triangle_of[mesh.face(mesh.opposite(h)).idx()];
    const Vec<3>& na = face_normal_[static_cast<std::size_t>(a)];
    const Vec<3>& nb = face_normal_[static_cast<std::size_t>(b)];
    // A face of no area has no normal: its edges are not sharp for it.
    const bool bent = na.squaredNorm() > 0 && nb.squaredNorm() > 0 && na.dot(nb) < cos_limit;
    sharp[e.idx()] = bent;
    curve[e.idx()] = bent || group_of(a) != group_of(b);
  }
  corner_sector_.resize(corner_vertex_.size());
  find_sectors(mesh, sharp, triangle_of);
  chain_curves(mesh, curve, triangle_of, cos_limit, border_curves);
}

// Around each vertex, the faces joined across edges that are not sharp, and each such sector's
// angle-weighted normal; every corner gets its sector's. A vertex's corner is a feature corner's normal.
void MeshFeatures::find_sectors(const SurfaceMesh& mesh, const std::vector<char>& sharp,
                                const std::vector<std::int64_t>& triangle_of) {
  std::vector<std::int64_t> around;
  std::vector<std::size_t> parent;
  std::vector<std::int64_t> sector_of_root;
  for (auto v : mesh.vertices()) {
    if (mesh.is_isolated(v)) continue;
    const auto vi = static_cast<std::uint32_t>(v.idx());
    around.clear();
    for (auto h : CGAL::halfedges_around_target(mesh.halfedge(v), mesh))
      if (!mesh.is_border(h)) around.push_back(triangle_of[mesh.face(h).idx()]);
    parent.resize(around.size());
    std::iota(parent.begin(), parent.end(), std::size_t{0});
    auto slot = [&](std::int64_t t) {
      return static_cast<std::size_t>(std::find(around.begin(), around.end(), t) - around.begin());
    };
    for (auto h : CGAL::halfedges_around_target(mesh.halfedge(v), mesh)) {
      const auto o = mesh.opposite(h);
      if (mesh.is_border(h) || mesh.is_border(o) || sharp[mesh.edge(h).idx()]) continue;
      parent[find_root(parent, slot(triangle_of[mesh.face(h).idx()]))] =
          find_root(parent, slot(triangle_of[mesh.face(o).idx()]));
    }
    sector_of_root.assign(around.size(), -1);
    for (std::size_t i = 0; i < around.size(); ++i) {
      const std::size_t root = find_root(parent, i);
      if (sector_of_root[root] < 0) {
        sector_of_root[root] = static_cast<std::int64_t>(sectors_.size());
        sectors_.push_back(Vec<3>::Zero());
      }
      const auto t = static_cast<std::size_t>(around[i]);
      const int k = corner_of(corner_vertex_[t], vi);
      const Vec<3> p = vec_of(mesh.point(v));
      const Vec<3> q = vec_of(mesh.point(SurfaceMesh::Vertex_index(corner_vertex_[t][(k + 1) % 3])));
      const Vec<3> r = vec_of(mesh.point(SurfaceMesh::Vertex_index(corner_vertex_[t][(k + 2) % 3])));
      const auto s = static_cast<std::size_t>(sector_of_root[root]);
      sectors_[s] += angle_at(p, q, r) * face_normal_[t];
      corner_sector_[t][static_cast<std::size_t>(k)] = static_cast<std::uint32_t>(s);
    }
  }
  for (Vec<3>& n : sectors_)
    if (n.norm() > 0) n.normalize();
}

// The feature edges chained into curves from corner to corner, then the closed loops that remain.
void MeshFeatures::chain_curves(const SurfaceMesh& mesh, const std::vector<char>& curve,
                                const std::vector<std::int64_t>& triangle_of, double cos_limit, bool border_curves) {
  using Edge = SurfaceMesh::Edge_index;
  using Vertex = SurfaceMesh::Vertex_index;
  const std::size_t vertex_slots = index_slots(mesh.vertices());
  std::vector<std::vector<Edge>> at(vertex_slots);  // a vertex's feature edges
  for (auto e : mesh.edges())
    if (curve[e.idx()]) {
      at[mesh.vertex(e, 0).idx()].push_back(e);
      at[mesh.vertex(e, 1).idx()].push_back(e);
    }
  auto point = [&](Vertex v) { return vec_of(mesh.point(v)); };
  auto other = [&](Edge e, Vertex v) { return mesh.vertex(e, 0) == v ? mesh.vertex(e, 1) : mesh.vertex(e, 0); };
  std::vector<char> corner(vertex_slots, 0);
  for (auto v : mesh.vertices()) {
    const auto& edges = at[v.idx()];
    if (edges.empty()) continue;
    if (edges.size() != 2) {
      corner[v.idx()] = 1;
      continue;
    }
    const Vec<3> in = point(v) - point(other(edges[0], v)), out = point(other(edges[1], v)) - point(v);
    corner[v.idx()] = in.norm() > 0 && out.norm() > 0 && in.normalized().dot(out.normalized()) < cos_limit;
  }
  auto face_index = [&](SurfaceMesh::Halfedge_index h) {
    return mesh.is_border(h) ? std::int64_t{-1} : triangle_of[mesh.face(h).idx()];
  };
  std::vector<char> done(curve.size(), 0);
  // Walks from `start` along `first` until a corner, or back to `start` (a loop).
  auto walk = [&](Vertex start, Edge first) {
    FeatureCurve c;
    c.points.push_back(point(start));
    c.vertices.push_back(static_cast<std::uint32_t>(start.idx()));
    Vertex v = start;
    for (Edge e = first;;) {
      done[e.idx()] = 1;
      const auto h = mesh.halfedge(e);
      std::array<std::int64_t, 2> faces{face_index(h), face_index(mesh.opposite(h))};
      if (faces[0] < 0) std::swap(faces[0], faces[1]);
      c.faces.push_back(faces);
      v = other(e, v);
      if (v == start && !corner[v.idx()]) {
        c.closed = true;
        break;
      }
      c.points.push_back(point(v));
      c.vertices.push_back(static_cast<std::uint32_t>(v.idx()));
      if (corner[v.idx()]) break;
      const auto& edges = at[v.idx()];
      const auto next = std::find_if(edges.begin(), edges.end(), [&](Edge x) { return !done[x.idx()]; });
      if (next == edges.end()) break;
      e = *next;
    }
    curves_.push_back(std::move(c));
  };
  for (auto v : mesh.vertices()) {
    if (!corner[v.idx()]) continue;
    FeatureCorner fc{point(v), Vec<3>::Zero(), {}};
    for (auto h : CGAL::halfedges_around_target(mesh.halfedge(v), mesh))
      if (!mesh.is_border(h)) fc.faces.push_back(static_cast<std::uint32_t>(triangle_of[mesh.face(h).idx()]));
    for (std::uint32_t t : fc.faces) {
      const int k = corner_of(corner_vertex_[t], static_cast<std::uint32_t>(v.idx()));
      fc.normal += angle_at(point(v), point(Vertex(corner_vertex_[t][(k + 1) % 3])),
                            point(Vertex(corner_vertex_[t][(k + 2) % 3]))) *
                   face_normal_[t];
    }
    if (fc.normal.norm() > 0) fc.normal.normalize();
    // Where borders are no curves, a vertex on one ends its curves but carries no node: the solid's
    // corner there is not the mesh's.
    if (border_curves || !mesh.is_border(v)) corners_.push_back(std::move(fc));
    for (Edge e : at[v.idx()])
      if (!done[e.idx()]) walk(v, e);
  }
  for (auto e : mesh.edges())
    if (curve[e.idx()] && !done[e.idx()]) walk(mesh.vertex(e, 0), e);
}

Vec<3> MeshFeatures::smooth_normal(std::size_t triangle, const Vec<3>& w) const {
  const auto& s = corner_sector_[triangle];
  const Vec<3> n = w[0] * sectors_[s[0]] + w[1] * sectors_[s[1]] + w[2] * sectors_[s[2]];
  return n.norm() > 1e-12 ? Vec<3>(n.normalized()) : face_normal_[triangle];
}

Vec<3> MeshFeatures::third_corner(std::size_t t, std::uint32_t u, std::uint32_t v) const {
  const auto& corners = corner_vertex_[t];
  for (std::uint32_t c : corners)
    if (c != u && c != v) return points_[c];
  return points_[corners[0]];
}

Vec<3> MeshFeatures::edge_blend(std::int64_t t, std::uint32_t u, std::uint32_t v, double along) const {
  const auto triangle = static_cast<std::size_t>(t);
  const auto& s = corner_sector_[triangle];
  const auto& corners = corner_vertex_[triangle];
  return (1.0 - along) * sectors_[s[static_cast<std::size_t>(corner_of(corners, u))]] +
         along * sectors_[s[static_cast<std::size_t>(corner_of(corners, v))]];
}

Vec<3> MeshFeatures::curve_normal(const FeatureCurve& curve, std::size_t segment, double along) const {
  const std::uint32_t u = curve.vertices[segment], v = curve.vertices[(segment + 1) % curve.vertices.size()];
  const auto& faces = curve.faces[segment];
  Vec<3> n = edge_blend(faces[0], u, v, along);
  if (faces[1] >= 0) n += edge_blend(faces[1], u, v, along);
  return n.norm() > 1e-12 ? Vec<3>(n.normalized()) : face_normal_[static_cast<std::size_t>(faces[0])];
}

}  // namespace nodegen::geometry_detail
