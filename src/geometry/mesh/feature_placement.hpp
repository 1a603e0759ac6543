#pragma once
// A mesh leaf's feature corners and curves (mesh_features.hpp) placed as nodes before its faces are
// sampled, so sharp edges and corners keep their nodes: corners first, then each curve at spacing h
// between its end corners (place_curve: equal steps of the integral of ds/h). A node within 0.92 h (the
// faces' least spacing, kMeshNodeSpacing) of one placed before is left out (a cluster of short feature edges on a scanned surface gives one node, not
// one per vertex; curves meeting at a narrow angle do not crowd their corner). Every node kept is
// recorded in `placed`, which the faces' sampling keeps its nodes away from (sample_triangles). Under
// the winding number (`side` given) a node that bounds nothing is left out before that (a cube's edge
// inside an overlapping shell) and one facing into the solid is turned, as the faces' nodes are.
#include <cstddef>
#include <functional>
#include <vector>

#include "geometry/boundary/boundary_fill.hpp"
#include "geometry/mesh/mesh_features.hpp"
#include "geometry/shapes/shape.hpp"

namespace nodegen::geometry_detail {

struct FeatureLeaf {
  const MeshFeatures& features;
  const Placement<3>& where;  // where the leaf puts the mesh
  std::function<int(std::size_t)> part;  // a triangle's part id
  // Where given (a CAD part): moves a node at `pos` (world) where the exact faces of the triangles meet
  // (an edge, a corner) onto them, with the normalised sum of their normals there.
  std::function<void(const std::vector<std::size_t>& triangles, Vec<3>& pos, Vec<3>& normal)> lift;
  BoundarySide side;  // where given: which nodes bound the solid (boundary_fill.hpp)
};

void place_features(const FeatureLeaf& leaf, BoundarySink<3>& sink, PointGrid<3>& placed);

}  // namespace nodegen::geometry_detail
