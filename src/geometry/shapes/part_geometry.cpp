// Boundary parts as distance primitives (part_geometry.hpp).
#include "geometry/shapes/part_geometry.hpp"

#include <cmath>
#include <numbers>

#include "geometry/shapes/shape.hpp"

namespace nodegen::geometry_detail {
namespace {

using Primitive = DistanceField::Primitive;

// The uniform scale of a similarity (A^T A = s^2 I to rounding), or 0 when A is not one.
template <int D>
double similarity_scale(const typename Affine<D>::Mat& A) {
  const typename Affine<D>::Mat m = A.transpose() * A;
  const double s2 = m.trace() / D;
  if (!(s2 > 0)) return 0.0;
  const double off = (m - s2 * Affine<D>::Mat::Identity()).cwiseAbs().maxCoeff();
  return off <= 1e-12 * s2 ? std::sqrt(s2) : 0.0;
}

// A point of the unit cube's face (axis, side) at (u, v) in [-1, 1]^2, pushed onto the unit sphere.
Vec<3> cube_sphere(int axis, int side, double u, double v) {
  Vec<3> c;
  c[axis] = side ? 1.0 : -1.0;
  c[(axis + 1) % 3] = u;
  c[(axis + 2) % 3] = v;
  return c.normalized();
}

}  // namespace

void append_segment(const Vec<2>& a, const Vec<2>& b, const Affine<2>& to_world, int id, std::vector<PartPrimitive>& out) {
  Primitive q;
  q.kind = Primitive::Kind::segment;
  q.a = as_3d<2>(to_world.point(a));
  q.b = as_3d<2>(to_world.point(b));
  out.push_back({id, q});
}

void append_triangle(const Vec<3>& a, const Vec<3>& b, const Vec<3>& c, const Affine<3>& to_world, int id,
                     std::vector<PartPrimitive>& out) {
  Primitive q;
  q.kind = Primitive::Kind::triangle;
  q.a = to_world.point(a);
  q.b = to_world.point(b);
  q.c = to_world.point(c);
  out.push_back({id, q});
}

template <int D>
void append_box_faces(const Vec<D>& lo, const Vec<D>& hi, const Affine<D>& to_world, int first_id,
                      std::vector<PartPrimitive>& out) {
  auto corner = [&](int bits) {
    Vec<D> p;
    for (int i = 0; i < D; ++i) p[i] = (bits >> i) & 1 ? hi[i] : lo[i];
    return p;
  };
  for (int axis = 0; axis < D; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int id = first_id + 2 * axis + side;
      // The face's corners: the axis bit fixed to the side, the other bits free.
      std::vector<Vec<D>> face;
      for (int bits = 0; bits < (1 << D); ++bits)
        if (((bits >> axis) & 1) == side) face.push_back(corner(bits));
      if constexpr (D == 2) {
        append_segment(face[0], face[1], to_world, id, out);
      } else {
        append_triangle(face[0], face[1], face[3], to_world, id, out);
        append_triangle(face[0], face[3], face[2], to_world, id, out);
      }
    }
}

template <int D>
void append_ball_surface(const Vec<D>& center, double radius, const Affine<D>& to_world, int id,
                         std::vector<PartPrimitive>& out) {
  if (const double s = similarity_scale<D>(to_world.A); s > 0) {
    Primitive q;
    q.kind = Primitive::Kind::round;
    q.a = as_3d<D>(to_world.point(center));
    q.radius = s * radius;
    out.push_back({id, q});
    return;
  }
  if constexpr (D == 2) {
    constexpr int kSegments = 4096;
    auto at = [&](int k) {
      const double t = 2.0 * std::numbers::pi * k / kSegments;
      return Vec<2>(center + radius * Vec<2>(std::cos(t), std::sin(t)));
    };
    for (int k = 0; k < kSegments; ++k) append_segment(at(k), at(k + 1), to_world, id, out);
  } else {
    constexpr int kCells = 64;
    for (int axis = 0; axis < 3; ++axis)
      for (int side = 0; side < 2; ++side)
        for (int i = 0; i < kCells; ++i)
          for (int j = 0; j < kCells; ++j) {
            auto at = [&](int di, int dj) {
              const double u = -1.0 + 2.0 * (i + di) / kCells, v = -1.0 + 2.0 * (j + dj) / kCells;
              return Vec<3>(center + radius * cube_sphere(axis, side, u, v));
            };
            append_triangle(at(0, 0), at(1, 0), at(1, 1), to_world, id, out);
            append_triangle(at(0, 0), at(1, 1), at(0, 1), to_world, id, out);
          }
  }
}

template void append_box_faces<2>(const Vec<2>&, const Vec<2>&, const Affine<2>&, int, std::vector<PartPrimitive>&);
template void append_box_faces<3>(const Vec<3>&, const Vec<3>&, const Affine<3>&, int, std::vector<PartPrimitive>&);
template void append_ball_surface<2>(const Vec<2>&, double, const Affine<2>&, int, std::vector<PartPrimitive>&);
template void append_ball_surface<3>(const Vec<3>&, double, const Affine<3>&, int, std::vector<PartPrimitive>&);

}  // namespace nodegen::geometry_detail
