#pragma once
// The generalized winding number of a triangle soup (Jacobson, Kavan & Sorkine-Hornung 2013): the sum
// of the signed solid angles its triangles subtend at a point, over 4 pi. It is 1 inside and 0 outside
// a closed, outward-oriented surface, and degrades gracefully where the surface has holes or gaps (about
// 1/2 across a hole), so thresholding it at 1/2 decides inside/outside for surfaces that are not
// watertight. Triangles must be consistently oriented (outward); it tolerates nothing else.
//
// Fast evaluation (Barill, Dickson, Schmidt, Levin & Jacobson 2018): a bounding-volume tree over the
// triangles stores, per node, the area-weighted centroid p, the radius r of the node's points about p,
// and the first three moments of the node's area-weighted normals about p (integrated over each
// triangle). A node seen from farther than beta r is replaced by its Taylor expansion to second order;
// nearer nodes are opened, and leaves sum exact solid angles (Van Oosterom & Strackee 1983). All queries
// are const and thread-safe.
#include <array>
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include <nodegen/spatial/point.hpp>

namespace nodegen::geometry_detail {

// The solid angle the triangle abc subtends at q, over 4 pi: in (-1/2, 1/2), positive when q is behind
// the triangle (on the side its normal (b - a) x (c - a) points away from).
double triangle_winding(const Vec<3>& a, const Vec<3>& b, const Vec<3>& c, const Vec<3>& q);

// The exact sum over every triangle: the reference the tree is tested against.
double winding_number_brute(const std::vector<std::array<Vec<3>, 3>>& triangles, const Vec<3>& q);

class WindingNumber {
 public:
  // beta: the far-field distance in node radii (2 in Barill et al.: errors about 1e-3 or below).
  explicit WindingNumber(std::vector<std::array<Vec<3>, 3>> triangles, double beta = 2.0);

  double operator()(const Vec<3>& q) const;
  std::size_t size() const { return triangles_.size(); }

 private:
  struct Node {
    Vec<3> centre;        // area-weighted centroid of the node's triangles
    double radius2;       // squared distance from centre to the node's farthest vertex
    Vec<3> normal_sum;    // sum of a n (a: area, n: unit normal), the dipole moment
    Eigen::Matrix3d first_moment;      // sum of a (x - centre) n^T, x the triangle's centroid
    Eigen::Matrix3d second_moment[3];  // [i]: sum of a n_i Q, Q = the triangle's integral of (y - centre)(y - centre)^T / a
    std::uint32_t first, count;  // leaves: triangles [first, first + count) of order_
    std::uint32_t left = 0, right = 0;  // children (0: a leaf; the root is node 0)
  };
  std::uint32_t build(std::uint32_t first, std::uint32_t count);

  std::vector<std::array<Vec<3>, 3>> triangles_;
  std::vector<std::uint32_t> order_;
  std::vector<Node> nodes_;
  double beta2_;
};

}  // namespace nodegen::geometry_detail
