#pragma once
// The three ways a leaf shape covers its boundary with nodes at spacing h(x):
//   place_curve   a parametric curve (2D edges and circles, 3D box edges and cube-sphere seams):
//                 nodes at equal steps of the integral of ds/h, so the spacing follows h exactly.
//   fill_patch    a parametric surface patch: an advancing front in parameter space that measures
//                 distances with the surface's own metric (as Medusa's GeneralSurfaceFill).
//   sample_triangles  a triangle mesh: dense area-weighted random samples thinned greedily to
//                 spacing h (Poisson-disk sample elimination), so nodes cover the surface, not its vertices.
// All of them tag nodes with the sink's keep() filter and add junction nodes where a part stops being on
// the combined boundary (found by bisection along the curve or front step that crosses it).
#include <functional>
#include <vector>

#include <nodegen/spatial/point.hpp>

#include "geometry/boundary/boundary_sink.hpp"
#include "geometry/boundary/point_grid.hpp"
#include "geometry/boundary/triangle_samples.hpp"

namespace nodegen::geometry_detail {

template <int D>
struct Curve {
  std::function<Vec<D>(double)> point;   // world coordinates
  std::function<Vec<D>(double)> normal;  // world, outward, unit
  double t0 = 0.0, t1 = 1.0;
  bool closed = false;  // closed: t1 wraps to t0; open: the end points are corners placed by the caller
  int id = 1;
  // The part of the node at t, where it varies along the curve (a polygon ring whose edges are named
  // apart); empty: `id` everywhere. Only ids follow it: the nodes' positions do not depend on it.
  std::function<int(double)> id_at;
  int priority = edge_priority;
  int id_of(double t) const { return id_at ? id_at(t) : id; }
  // For a sharp edge (a box's edge in 3D): the faces meeting at the node at t, so that on a CSG
  // boundary it gets the combined solid's normal and id (BoundarySink::feature_normal). Empty: none.
  std::function<std::vector<Facet<D>>(double)> facets;
  // Where given, moves each node emitted at t (its position and normal) onto the exact geometry the
  // curve approximates (a CAD edge given by its tessellation); placement and filters use point(t), and
  // a normal feature_normal changed (a CSG boundary) stays.
  std::function<void(double, Vec<D>&, Vec<D>&)> finish;
};

// Returns the parameters of every node placed (kept or not), so surface fills can start from them.
template <int D>
std::vector<double> place_curve(const Curve<D>& curve, BoundarySink<D>& sink, PointGrid<D>* occupied = nullptr);

// A corner: emitted when kept (with the normal and id feature_normal gives it from the part's faces
// meeting there), and recorded in `occupied`.
template <int D>
void place_corner(const Vec<D>& p, const Vec<D>& n, int id, BoundarySink<D>& sink, PointGrid<D>* occupied = nullptr,
                  const std::vector<Facet<D>>& facets = {});

struct Patch {
  std::function<Vec<3>(const Vec<2>&)> point;   // parameter -> world
  std::function<Vec<3>(const Vec<2>&)> normal;  // parameter -> world outward unit normal
  Vec<2> lo, hi;                                // parameter rectangle
  int id = 1;
};

// Fills the patch from `seeds` (parameters of nodes already on its border, recorded in `occupied`).
void fill_patch(const Patch& patch, const std::vector<Vec<2>>& seeds, PointGrid<3>& occupied,
                BoundarySink<3>& sink);

// Which nodes bound a part's solid (a mesh left to the winding number): side(pos, normal) is 1 for a
// node as it is, -1 for one whose normal must turn, 0 for one that bounds nothing (inside the solid or
// between two of its parts). Called concurrently.
using BoundarySide = std::function<int(const Vec<3>& pos, const Vec<3>& normal)>;

// Each node takes the part of its triangle (WorldTriangle::part); `side`, when given, filters and
// turns them. `lift`, when given, moves each kept node (its position and normal, the triangle's) onto
// the exact surface the triangles approximate, after the filters; called from the sink's threads at once.
using TriangleLift = std::function<void(const WorldTriangle&, Vec<3>& pos, Vec<3>& normal)>;
// The least distance between two nodes of a mesh's faces, in h: the radius of their Poisson-disk
// thinning. A maximal Poisson-disk set of radius r has mean nearest-neighbour distance a little above r;
// 0.92 makes the mean spacing close to h on the shipped torus and gear meshes. Feature nodes
// (feature_placement.hpp) keep it among themselves too.
constexpr double kMeshNodeSpacing = 0.92;

// `placed`, when given: nodes placed before (feature curves and corners); no node comes nearer to them
// than to each other.
void sample_triangles(const std::vector<WorldTriangle>& triangles, BoundarySink<3>& sink,
                      const BoundarySide& side = {}, const TriangleLift& lift = {},
                      const PointGrid<3>* placed = nullptr);

}  // namespace nodegen::geometry_detail
