#pragma once
// Covers a surface that is a deformed cube (a box, or a sphere as the radially projected cube) with
// nodes: 8 corners, 12 edges as curves, then each of the 6 faces by the parametric advancing front
// seeded with its corners and edge nodes. Using the cube as the chart avoids the pole singularities of
// a latitude/longitude parametrisation of the sphere.
#include <functional>

#include "geometry/boundary/boundary_fill.hpp"

namespace nodegen::geometry_detail {

struct CubeChart {
  std::function<Vec<3>(const Vec<3>&)> point;   // point of the cube surface [-1,1]^3 -> world
  std::function<Vec<3>(const Vec<3>&)> normal;  // point of the cube surface -> world outward unit normal
  std::function<int(int axis, int side)> face_id;  // side 0: -1 face, 1: +1 face
  bool sharp = true;  // corners and edges are geometric features (box), or only chart seams (sphere)
};

void cover_cube_chart(const CubeChart& chart, BoundarySink<3>& sink);

}  // namespace nodegen::geometry_detail
