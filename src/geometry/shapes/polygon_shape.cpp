// Polygon with holes (2D leaf): even-odd inside test over edges bucketed in horizontal bands, boundary
// nodes walked along each ring, and boundary parts per ring or per named edge (RingEdgeNames).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <numbers>

#include "geometry/boundary/boundary_fill.hpp"
#include "geometry/shapes/shape.hpp"

namespace nodegen::geometry_detail {
namespace {

// A ring as the boundary walk sees it: outward edge normals, vertex normals, which vertices are sharp,
// and the arc length at each vertex.
struct RingWalk {
  const std::vector<Vec<2>>& ring;
  std::vector<Vec<2>> edge_normal, vertex_normal;
  std::vector<char> sharp;
  std::vector<double> arc;  // arc length at each vertex, and the ring's length last

  // `sign`: +1 when the outward side is right of the travel direction, -1 when left.
  RingWalk(const std::vector<Vec<2>>& r, double sign)
      : ring(r), edge_normal(r.size()), vertex_normal(r.size()), sharp(r.size()), arc(r.size() + 1, 0.0) {
    const std::size_t n = ring.size();
    for (std::size_t i = 0; i < n; ++i) {
      const Vec<2> d = ring[(i + 1) % n] - ring[i];
      edge_normal[i] = sign * Vec<2>(d[1], -d[0]).normalized();
      arc[i + 1] = arc[i] + d.norm();
    }
    for (std::size_t i = 0; i < n; ++i) {
      const Vec<2>& before = edge_normal[(i + n - 1) % n];
      const Vec<2>& after = edge_normal[i];
      sharp[i] = before.dot(after) < std::cos(std::numbers::pi / 6);
      const Vec<2> bisector = (before + after).normalized();
      vertex_normal[i] = bisector.allFinite() ? bisector : after;
    }
  }
  std::size_t size() const { return ring.size(); }
  double length() const { return arc.back(); }
  double wrap(double t) const { return t >= length() ? t - length() : t; }
  // The edge at arc length t in [0, length): edge i runs from arc[i] (included) to arc[i + 1], so a
  // node at a vertex belongs to the edge leaving it.
  std::size_t edge_at(double t) const {
    const auto it = std::upper_bound(arc.begin(), arc.end(), t);
    return static_cast<std::size_t>(std::clamp<long>(it - arc.begin() - 1, 0, static_cast<long>(size()) - 1));
  }
  Vec<2> point(double t) const {
    t = wrap(t);
    const std::size_t i = edge_at(t), n = size();
    const double w = (t - arc[i]) / std::max(arc[i + 1] - arc[i], 1e-300);
    return ring[i] + w * (ring[(i + 1) % n] - ring[i]);
  }
  // Normals blend the vertex normals along an edge (a smooth outline gets smooth normals), except that
  // an edge keeps its own normal at a sharp vertex.
  Vec<2> normal(double t) const {
    t = wrap(t);
    const std::size_t i = edge_at(t), j = (i + 1) % size();
    const double w = (t - arc[i]) / std::max(arc[i + 1] - arc[i], 1e-300);
    const Vec<2> a = sharp[i] ? edge_normal[i] : vertex_normal[i];
    const Vec<2> b = sharp[j] ? edge_normal[i] : vertex_normal[j];
    const Vec<2> m = ((1 - w) * a + w * b).normalized();
    return m.allFinite() ? m : edge_normal[i];
  }
};

// Polygon with holes; the solid is the even-odd interior of all rings (a hole may hold an island, which
// may hold a hole...). Edges are bucketed into horizontal bands so the crossing test only looks at
// edges that can cross the query's row.
class PolygonShape final : public Shape<2> {
 public:
  PolygonShape(std::vector<std::vector<Vec<2>>> rings, std::string label, std::vector<RingEdgeNames> edge_names)
      : rings_(std::move(rings)), label_(std::move(label)), edge_names_(std::move(edge_names)) {
    edge_names_.resize(rings_.size());
    box_ = {Vec<2>::Constant(1e300), Vec<2>::Constant(-1e300)};
    for (std::size_t r = 0; r < rings_.size(); ++r) {
      const auto& ring = rings_[r];
      ring_start_.push_back(edges_.size());
      for (const auto& p : ring) {
        box_.lo = box_.lo.cwiseMin(p);
        box_.hi = box_.hi.cwiseMax(p);
      }
      for (std::size_t i = 0; i < ring.size(); ++i) {
        edges_.push_back({ring[i], ring[(i + 1) % ring.size()]});
        edge_ring_.push_back(r);
      }
    }
    edge_id_.assign(edges_.size(), 1);
    bands_.resize(std::clamp<std::size_t>(edges_.size() / 2, 1, 4096));
    band_scale_ = static_cast<double>(bands_.size()) / std::max(box_.hi[1] - box_.lo[1], 1e-300);
    for (std::uint32_t e = 0; e < edges_.size(); ++e) {
      const auto [a, b] = edges_[e];
      const std::size_t b0 = band(std::min(a[1], b[1])), b1 = band(std::max(a[1], b[1]));
      for (std::size_t k = b0; k <= b1; ++k) bands_[k].push_back(e);
    }
  }

  bool contains(const Vec<2>& p) const override { return box_.contains(p) && odd_crossings(p, no_ring); }
  Box<2> bounds() const override { return box_; }

  // One part per name in the polygon: each ring in turn registers its own part ("outer", "holeK") when
  // an edge of it is unnamed, then the names of its edges new to the polygon, in their order in the file.
  void register_parts(std::vector<std::string>& names) override {
    ShapeParts parts(names, label_);
    auto part = [&](const std::string& name) { return parts.id(name); };
    for (std::size_t r = 0; r < rings_.size(); ++r) {
      const RingEdgeNames& named = edge_names_[r];
      const std::size_t n = rings_[r].size();
      auto name_of = [&](std::size_t i) { return named.edge_name.empty() ? -1 : named.edge_name[i]; };
      int own = 0;
      for (std::size_t i = 0; i < n && own == 0; ++i)
        if (name_of(i) < 0) own = part(r == 0 ? "outer" : "hole" + std::to_string(r));
      std::vector<int> id_of_name(named.names.size());
      for (std::size_t k = 0; k < named.names.size(); ++k) id_of_name[k] = part(named.names[k]);
      for (std::size_t i = 0; i < n; ++i)
        edge_id_[ring_start_[r] + i] = name_of(i) < 0 ? own : id_of_name[static_cast<std::size_t>(name_of(i))];
    }
  }
  void part_geometry(const Affine<2>& to_world, std::vector<PartPrimitive>& out) const override {
    for (std::size_t e = 0; e < edges_.size(); ++e)
      append_segment(edges_[e].first, edges_[e].second, to_world, edge_id_[e], out);
  }

  // Each ring is walked as one polyline: nodes go at spacing h along its arc length, with a corner node
  // at every sharp vertex (turning more than 30 degrees). Dense outlines (an airfoil read from a file)
  // are thus spaced by h, not by their vertices, while real corners stay exact. A node takes the part
  // of the edge it lies on; a node at a vertex, that of the edge leaving it.
  void emit_boundary(const Placement<2>& where, BoundarySink<2>& sink) const override {
    PointGrid<2> occupied(sink.cell());
    for (std::size_t r = 0; r < rings_.size(); ++r) emit_ring(r, where, sink, occupied);
  }

 private:
  void emit_ring(std::size_t r, const Placement<2>& where, BoundarySink<2>& sink, PointGrid<2>& occupied) const {
    const auto& ring = rings_[r];
    // Outward from the solid: right of the travel direction for a counter-clockwise ring whose inside
    // is solid, left of it when the solid lies outside the ring. Which one follows from the even-odd
    // rule, not from the ring's index: just outside the ring, a point is solid iff it lies inside an
    // odd number of the other rings (its nesting depth is odd: a hole's island sits at depth 2, a
    // "hole" placed outside the outline at depth 0). Rings neither cross nor touch
    // (find_ring_crossing), so any vertex of the ring tells the depth.
    const bool solid_outside = odd_crossings(ring.front(), r);
    const RingWalk walk_of(ring, (signed_area(ring) > 0 ? 1.0 : -1.0) * (solid_outside ? -1.0 : 1.0));
    const std::size_t n = ring.size();
    const int* edge_id = edge_id_.data() + ring_start_[r];
    Curve<2> walk;
    walk.point = [&](double t) { return where.point(walk_of.point(t)); };
    walk.normal = [&](double t) { return where.normal(walk_of.normal(t)); };
    walk.id = edge_id[0];
    if (std::any_of(edge_id + 1, edge_id + n, [&](int id) { return id != edge_id[0]; }))
      walk.id_at = [&](double t) { return edge_id[walk_of.edge_at(walk_of.wrap(t))]; };
    std::vector<std::size_t> corners;
    for (std::size_t i = 0; i < n; ++i)
      if (walk_of.sharp[i]) corners.push_back(i);
    if (corners.empty()) {
      walk.t0 = 0.0;
      walk.t1 = walk_of.length();
      walk.closed = true;
      place_curve(walk, sink, &occupied);
      return;
    }
    for (std::size_t i : corners) {
      // The two edges meeting at the corner, for feature_normal: the one leaving it (whose part the
      // corner takes) first.
      const std::size_t before = (i + n - 1) % n;
      const Vec<2> ahead = where.point(ring[(i + 1) % n]) - where.point(ring[i]);
      const Vec<2> behind = where.point(ring[before]) - where.point(ring[i]);
      const std::vector<Facet<2>> facets = {{ahead.normalized(), where.normal(walk_of.edge_normal[i]), edge_id[i]},
                                            {behind.normalized(), where.normal(walk_of.edge_normal[before]), edge_id[before]}};
      place_corner<2>(where.point(ring[i]), where.normal(walk_of.vertex_normal[i]), edge_id[i], sink, &occupied, facets);
    }
    for (std::size_t k = 0; k < corners.size(); ++k) {
      walk.t0 = walk_of.arc[corners[k]];
      walk.t1 = k + 1 < corners.size() ? walk_of.arc[corners[k + 1]] : walk_of.arc[corners.front()] + walk_of.length();
      place_curve(walk, sink, &occupied);
    }
  }

  static double signed_area(const std::vector<Vec<2>>& ring) {
    double s = 0.0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const auto& a = ring[i];
      const auto& b = ring[(i + 1) % ring.size()];
      s += a[0] * b[1] - a[1] * b[0];
    }
    return 0.5 * s;
  }
  static constexpr std::size_t no_ring = static_cast<std::size_t>(-1);
  // Even-odd crossing test: whether a ray from p towards +x crosses an odd number of edges, ignoring the
  // edges of ring `skip` (no_ring: count all).
  bool odd_crossings(const Vec<2>& p, std::size_t skip) const {
    bool odd = false;
    for (std::uint32_t e : bands_[band(p[1])]) {
      if (edge_ring_[e] == skip) continue;
      const auto& [a, b] = edges_[e];
      if ((a[1] > p[1]) != (b[1] > p[1])) {
        const double x = a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1]);
        if (p[0] < x) odd = !odd;
      }
    }
    return odd;
  }
  std::size_t band(double y) const {
    const double k = (y - box_.lo[1]) * band_scale_;
    return static_cast<std::size_t>(std::clamp(k, 0.0, static_cast<double>(bands_.size() - 1)));
  }

  std::vector<std::vector<Vec<2>>> rings_;
  std::string label_;
  std::vector<RingEdgeNames> edge_names_;  // one per ring
  Box<2> box_;
  std::vector<std::pair<Vec<2>, Vec<2>>> edges_;  // every ring's edges, ring after ring
  std::vector<std::size_t> edge_ring_;             // the ring each edge belongs to
  std::vector<std::size_t> ring_start_;            // each ring's first edge in edges_
  std::vector<int> edge_id_;                       // each edge's part (register_parts)
  std::vector<std::vector<std::uint32_t>> bands_;
  double band_scale_ = 1.0;
};

}  // namespace

ShapePtr<2> make_polygon(std::vector<std::vector<Vec<2>>> rings, std::string label,
                         std::vector<RingEdgeNames> edge_names) {
  return std::make_shared<PolygonShape>(std::move(rings), std::move(label), std::move(edge_names));
}

}  // namespace nodegen::geometry_detail
