// Leaf shapes with analytic inside tests: box, ball (disk / sphere) and polygon with holes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <stdexcept>

#include "geometry/boundary/cube_chart.hpp"
#include "geometry/boundary/cube_facets.hpp"
#include "geometry/shapes/shape.hpp"

namespace nodegen::geometry_detail {
namespace {

const char* const axis_names[3] = {"x", "y", "z"};

template <int D>
class BoxShape final : public Shape<D> {
 public:
  BoxShape(const Vec<D>& lo, const Vec<D>& hi, std::string label) : lo_(lo), hi_(hi), label_(std::move(label)) {}

  bool contains(const Vec<D>& p) const override {
    return (p.array() >= lo_.array()).all() && (p.array() <= hi_.array()).all();
  }
  Box<D> bounds() const override { return {lo_, hi_}; }

  void register_parts(std::vector<std::string>& names) override {
    first_id_ = static_cast<int>(names.size()) + 1;
    for (int a = 0; a < D; ++a) {
      names.push_back(label_ + ":" + axis_names[a] + "-");
      names.push_back(label_ + ":" + axis_names[a] + "+");
    }
  }
  int face_id(int axis, int side) const { return first_id_ + 2 * axis + side; }
  void part_geometry(const Affine<D>& to_world, std::vector<PartPrimitive>& out) const override {
    append_box_faces<D>(lo_, hi_, to_world, first_id_, out);
  }

  void emit_boundary(const Placement<D>& where, BoundarySink<D>& sink) const override {
    if constexpr (D == 2) emit_2d(where, sink);
    else emit_3d(where, sink);
  }

 private:
  // Box point from cube coordinates c in [-1,1]^D.
  Vec<D> from_cube(const Vec<D>& c) const {
    return lo_ + (0.5 * (c.array() + 1.0) * (hi_ - lo_).array()).matrix();
  }
  // Outward normal at a cube point: the sum of the face normals of every face it lies on.
  static Vec<D> cube_normal(const Vec<D>& c) {
    Vec<D> n = Vec<D>::Zero();
    for (int i = 0; i < D; ++i)
      if (on_cube_face(c, i)) n[i] = c[i] > 0 ? 1.0 : -1.0;
    return n.normalized();
  }

  void emit_2d(const Placement<D>& where, BoundarySink<D>& sink) const {
    const Vec<2> corners[4] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    PointGrid<2> occupied(sink.cell());
    auto point = [&](const Vec<2>& c) { return where.point(from_cube(c)); };
    auto normal = [&](const Vec<2>& c) { return where.normal(cube_normal(c)); };
    auto id = [this](int axis, int side) { return face_id(axis, side); };
    for (const auto& c : corners)
      place_corner<2>(point(c), normal(c), face_id(0, c[0] > 0), sink, &occupied, cube_facets<2>(c, point, normal, id));
    for (int e = 0; e < 4; ++e) {
      const Vec<2> a = corners[e], b = corners[(e + 1) % 4];
      const Vec<2> n = cube_normal(0.5 * (a + b));  // the edge midpoint lies on one face only
      const int axis = std::abs(n[0]) > 0.5 ? 0 : 1;
      Curve<2> edge;
      edge.point = [=, this](double t) { return where.point(from_cube(a + t * (b - a))); };
      const Vec<2> wn = where.normal(n);
      edge.normal = [wn](double) { return wn; };
      edge.id = face_id(axis, n[axis] > 0);
      place_curve(edge, sink, &occupied);
    }
  }

  void emit_3d(const Placement<D>& where, BoundarySink<D>& sink) const {
    CubeChart chart;
    chart.point = [=, this](const Vec<3>& c) { return where.point(from_cube(c)); };
    chart.normal = [=](const Vec<3>& c) { return where.normal(cube_normal(c)); };
    chart.face_id = [this](int axis, int side) { return face_id(axis, side); };
    chart.sharp = true;
    cover_cube_chart(chart, sink);
  }

  Vec<D> lo_, hi_;
  std::string label_;
  int first_id_ = 1;
};

template <int D>
class BallShape final : public Shape<D> {
 public:
  BallShape(const Vec<D>& center, double radius, std::string label)
      : center_(center), radius_(radius), r2_(radius * radius), label_(std::move(label)) {}

  bool contains(const Vec<D>& p) const override { return (p - center_).squaredNorm() <= r2_; }
  Box<D> bounds() const override {
    return {center_.array() - radius_, center_.array() + radius_};
  }
  // The image is an ellipse (ellipsoid): along axis i it reaches radius times the length of row i of A.
  Box<D> bounds_under(const Affine<D>& to_world) const override {
    const Vec<D> c = to_world.point(center_);
    const Vec<D> reach = radius_ * to_world.A.rowwise().norm();
    return {c - reach, c + reach};
  }
  void register_parts(std::vector<std::string>& names) override {
    id_ = static_cast<int>(names.size()) + 1;
    names.push_back(label_ + ":surface");
  }
  void part_geometry(const Affine<D>& to_world, std::vector<PartPrimitive>& out) const override {
    append_ball_surface<D>(center_, radius_, to_world, id_, out);
  }

  void emit_boundary(const Placement<D>& where, BoundarySink<D>& sink) const override {
    if constexpr (D == 2) {
      Curve<2> circle;
      circle.point = [=, this](double t) { return where.point(center_ + radius_ * Vec<2>(std::cos(t), std::sin(t))); };
      circle.normal = [=](double t) { return where.normal(Vec<2>(std::cos(t), std::sin(t))); };
      circle.t0 = 0.0;
      circle.t1 = 2.0 * std::numbers::pi;
      circle.closed = true;
      circle.id = id_;
      circle.priority = surface_priority;
      place_curve(circle, sink);
    } else {
      CubeChart chart;
      chart.point = [=, this](const Vec<3>& c) { return where.point(Vec<3>(center_ + radius_ * c.normalized())); };
      chart.normal = [=](const Vec<3>& c) { return where.normal(c.normalized()); };
      chart.face_id = [this](int, int) { return id_; };
      chart.sharp = false;
      cover_cube_chart(chart, sink);
    }
  }

 private:
  Vec<D> center_;
  double radius_, r2_;
  std::string label_;
  int id_ = 1;
};

// Polygon with holes; the solid is the even-odd interior of all rings (a hole may hold an island, which
// may hold a hole...). Edges are bucketed into horizontal bands so the crossing test only looks at
// edges that can cross the query's row.
class PolygonShape final : public Shape<2> {
 public:
  PolygonShape(std::vector<std::vector<Vec<2>>> rings, std::string label)
      : rings_(std::move(rings)), label_(std::move(label)) {
    box_ = {Vec<2>::Constant(1e300), Vec<2>::Constant(-1e300)};
    for (std::size_t r = 0; r < rings_.size(); ++r) {
      const auto& ring = rings_[r];
      for (const auto& p : ring) {
        box_.lo = box_.lo.cwiseMin(p);
        box_.hi = box_.hi.cwiseMax(p);
      }
      for (std::size_t i = 0; i < ring.size(); ++i) {
        edges_.push_back({ring[i], ring[(i + 1) % ring.size()]});
        edge_ring_.push_back(r);
      }
    }
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

  void register_parts(std::vector<std::string>& names) override {
    first_id_ = static_cast<int>(names.size()) + 1;
    names.push_back(label_ + ":outer");
    for (std::size_t h = 1; h < rings_.size(); ++h) names.push_back(label_ + ":hole" + std::to_string(h));
  }
  void part_geometry(const Affine<2>& to_world, std::vector<PartPrimitive>& out) const override {
    for (std::size_t e = 0; e < edges_.size(); ++e)
      append_segment(edges_[e].first, edges_[e].second, to_world, first_id_ + static_cast<int>(edge_ring_[e]), out);
  }

  // Each ring is walked as one polyline: nodes go at spacing h along its arc length, with a corner node
  // at every sharp vertex (turning more than 30 degrees). Dense outlines (an airfoil read from a file)
  // are thus spaced by h, not by their vertices, while real corners stay exact.
  void emit_boundary(const Placement<2>& where, BoundarySink<2>& sink) const override {
    PointGrid<2> occupied(sink.cell());
    for (std::size_t r = 0; r < rings_.size(); ++r) {
      const auto& ring = rings_[r];
      const int id = first_id_ + static_cast<int>(r);
      // Outward from the solid: right of the travel direction for a counter-clockwise ring whose inside
      // is solid, left of it when the solid lies outside the ring. Which one follows from the even-odd
      // rule, not from the ring's index: just outside the ring, a point is solid iff it lies inside an
      // odd number of the other rings (its nesting depth is odd: a hole's island sits at depth 2, a
      // "hole" placed outside the outline at depth 0). Rings neither cross nor touch
      // (find_ring_crossing), so any vertex of the ring tells the depth.
      const bool solid_outside = odd_crossings(ring.front(), r);
      const double sign = (signed_area(ring) > 0 ? 1.0 : -1.0) * (solid_outside ? -1.0 : 1.0);
      const std::size_t n = ring.size();
      std::vector<Vec<2>> edge_normal(n), vertex_normal(n);
      std::vector<char> sharp(n);
      std::vector<double> arc(n + 1, 0.0);  // arc length at each vertex
      for (std::size_t i = 0; i < n; ++i) {
        const Vec<2> d = ring[(i + 1) % n] - ring[i];
        edge_normal[i] = sign * Vec<2>(d[1], -d[0]).normalized();
        arc[i + 1] = arc[i] + d.norm();
      }
      const double length = arc[n];
      for (std::size_t i = 0; i < n; ++i) {
        const Vec<2>& before = edge_normal[(i + n - 1) % n];
        const Vec<2>& after = edge_normal[i];
        sharp[i] = before.dot(after) < std::cos(std::numbers::pi / 6);
        const Vec<2> bisector = (before + after).normalized();
        vertex_normal[i] = bisector.allFinite() ? bisector : after;
      }
      auto edge_at = [&](double t) {  // t in [0, length)
        const auto it = std::upper_bound(arc.begin(), arc.end(), t);
        return static_cast<std::size_t>(std::clamp<long>(it - arc.begin() - 1, 0, static_cast<long>(n) - 1));
      };
      auto wrap = [length](double t) { return t >= length ? t - length : t; };
      auto local_point = [&](double t) {
        t = wrap(t);
        const std::size_t i = edge_at(t);
        const double w = (t - arc[i]) / std::max(arc[i + 1] - arc[i], 1e-300);
        return Vec<2>(ring[i] + w * (ring[(i + 1) % n] - ring[i]));
      };
      // Normals blend the vertex normals along an edge (a smooth outline gets smooth normals), except
      // that an edge keeps its own normal at a sharp vertex.
      auto local_normal = [&](double t) {
        t = wrap(t);
        const std::size_t i = edge_at(t), j = (i + 1) % n;
        const double w = (t - arc[i]) / std::max(arc[i + 1] - arc[i], 1e-300);
        const Vec<2> a = sharp[i] ? edge_normal[i] : vertex_normal[i];
        const Vec<2> b = sharp[j] ? edge_normal[i] : vertex_normal[j];
        const Vec<2> m = ((1 - w) * a + w * b).normalized();
        return m.allFinite() ? m : edge_normal[i];
      };
      Curve<2> walk;
      walk.point = [&](double t) { return where.point(local_point(t)); };
      walk.normal = [&](double t) { return where.normal(local_normal(t)); };
      walk.id = id;
      std::vector<std::size_t> corners;
      for (std::size_t i = 0; i < n; ++i)
        if (sharp[i]) corners.push_back(i);
      if (corners.empty()) {
        walk.t0 = 0.0;
        walk.t1 = length;
        walk.closed = true;
        place_curve(walk, sink, &occupied);
        continue;
      }
      for (std::size_t i : corners) {
        // The two edges meeting at the corner, for feature_normal (both have the ring's id).
        const Vec<2> ahead = where.point(ring[(i + 1) % n]) - where.point(ring[i]);
        const Vec<2> behind = where.point(ring[(i + n - 1) % n]) - where.point(ring[i]);
        const std::vector<Facet<2>> facets = {{ahead.normalized(), where.normal(edge_normal[i]), id},
                                              {behind.normalized(), where.normal(edge_normal[(i + n - 1) % n]), id}};
        place_corner<2>(where.point(ring[i]), where.normal(vertex_normal[i]), id, sink, &occupied, facets);
      }
      for (std::size_t k = 0; k < corners.size(); ++k) {
        walk.t0 = arc[corners[k]];
        walk.t1 = k + 1 < corners.size() ? arc[corners[k + 1]] : arc[corners.front()] + length;
        place_curve(walk, sink, &occupied);
      }
    }
  }

 private:
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
  Box<2> box_;
  std::vector<std::pair<Vec<2>, Vec<2>>> edges_;
  std::vector<std::size_t> edge_ring_;  // the ring each edge belongs to
  std::vector<std::vector<std::uint32_t>> bands_;
  double band_scale_ = 1.0;
  int first_id_ = 1;
};

}  // namespace

template <int D>
ShapePtr<D> make_box(const Vec<D>& lo, const Vec<D>& hi, std::string label) {
  return std::make_shared<BoxShape<D>>(lo, hi, std::move(label));
}
template <int D>
ShapePtr<D> make_ball(const Vec<D>& center, double radius, std::string label) {
  return std::make_shared<BallShape<D>>(center, radius, std::move(label));
}
ShapePtr<2> make_polygon(std::vector<std::vector<Vec<2>>> rings, std::string label) {
  return std::make_shared<PolygonShape>(std::move(rings), std::move(label));
}

template ShapePtr<2> make_box<2>(const Vec<2>&, const Vec<2>&, std::string);
template ShapePtr<3> make_box<3>(const Vec<3>&, const Vec<3>&, std::string);
template ShapePtr<2> make_ball<2>(const Vec<2>&, double, std::string);
template ShapePtr<3> make_ball<3>(const Vec<3>&, double, std::string);

}  // namespace nodegen::geometry_detail
