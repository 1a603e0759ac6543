#pragma once
// The geometry of boundary parts in world coordinates, primitive by primitive with each one's part id:
// what the distance to a part (dist("NAME"), distance_field.hpp) measures. A shape's part_geometry()
// (shape.hpp) appends its own through these helpers.
#include <vector>

#include "nodegen/geometry/distance_field.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::geometry_detail {

template <int D>
struct Affine;

struct PartPrimitive {
  int part = 1;  // boundary id
  DistanceField::Primitive primitive;
};

// A world point in the field's 3D coordinates (z = 0 in 2D).
template <int D>
Eigen::Vector3d as_3d(const Vec<D>& p) {
  if constexpr (D == 2) return {p[0], p[1], 0.0};
  else return p;
}

// The faces of the box [lo, hi] under `to_world`: its edges in 2D, two triangles a face in 3D; face
// (axis a, side s) is part first_id + 2a + s.
template <int D>
void append_box_faces(const Vec<D>& lo, const Vec<D>& hi, const Affine<D>& to_world, int first_id,
                      std::vector<PartPrimitive>& out);

// The circle or sphere of the ball under `to_world`: exact (a round) where the map is a similarity
// (rotation, reflection, uniform scale, translation), else its image tessellated finely (4096 segments;
// 6 x 64 x 64 x 2 triangles).
template <int D>
void append_ball_surface(const Vec<D>& center, double radius, const Affine<D>& to_world, int id,
                         std::vector<PartPrimitive>& out);

// The segment from a to b under `to_world`.
void append_segment(const Vec<2>& a, const Vec<2>& b, const Affine<2>& to_world, int id, std::vector<PartPrimitive>& out);

// The triangle abc under `to_world`.
void append_triangle(const Vec<3>& a, const Vec<3>& b, const Vec<3>& c, const Affine<3>& to_world, int id,
                     std::vector<PartPrimitive>& out);

}  // namespace nodegen::geometry_detail
