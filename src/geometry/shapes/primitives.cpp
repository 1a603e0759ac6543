// Leaf shapes with analytic inside tests: box and ball (disk / sphere). Polygons: polygon_shape.cpp.
#include <algorithm>
#include <cmath>
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

}  // namespace

template <int D>
ShapePtr<D> make_box(const Vec<D>& lo, const Vec<D>& hi, std::string label) {
  return std::make_shared<BoxShape<D>>(lo, hi, std::move(label));
}
template <int D>
ShapePtr<D> make_ball(const Vec<D>& center, double radius, std::string label) {
  return std::make_shared<BallShape<D>>(center, radius, std::move(label));
}

template ShapePtr<2> make_box<2>(const Vec<2>&, const Vec<2>&, std::string);
template ShapePtr<3> make_box<3>(const Vec<3>&, const Vec<3>&, std::string);
template ShapePtr<2> make_ball<2>(const Vec<2>&, double, std::string);
template ShapePtr<3> make_ball<3>(const Vec<3>&, double, std::string);

}  // namespace nodegen::geometry_detail
