#include "geometry/mesh/winding_number.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace nodegen::geometry_detail {
namespace {

constexpr double inv_4pi = 0.25 / std::numbers::pi;
constexpr std::uint32_t leaf_size = 8;

Vec<3> centroid(const std::array<Vec<3>, 3>& t) { return (t[0] + t[1] + t[2]) / 3.0; }
Vec<3> area_vector(const std::array<Vec<3>, 3>& t) { return 0.5 * (t[1] - t[0]).cross(t[2] - t[0]); }

}  // namespace

double triangle_winding(const Vec<3>& a, const Vec<3>& b, const Vec<3>& c, const Vec<3>& q) {
  const Vec<3> x = a - q, y = b - q, z = c - q;
  const double lx = x.norm(), ly = y.norm(), lz = z.norm();
  const double det = x.dot(y.cross(z));
  const double den = lx * ly * lz + x.dot(y) * lz + y.dot(z) * lx + z.dot(x) * ly;
  // tan(omega / 2) = det / den (Van Oosterom & Strackee); atan2 keeps the quadrant when den < 0.
  return 2.0 * std::atan2(det, den) * inv_4pi;
}

double winding_number_brute(const std::vector<std::array<Vec<3>, 3>>& triangles, const Vec<3>& q) {
  double w = 0.0;
  for (const auto& t : triangles) w += triangle_winding(t[0], t[1], t[2], q);
  return w;
}

WindingNumber::WindingNumber(std::vector<std::array<Vec<3>, 3>> triangles, double beta)
    : triangles_(std::move(triangles)), beta2_(beta * beta) {
  order_.resize(triangles_.size());
  for (std::uint32_t i = 0; i < order_.size(); ++i) order_[i] = i;
  nodes_.reserve(2 * triangles_.size() / leaf_size + 2);
  if (!triangles_.empty()) build(0, static_cast<std::uint32_t>(triangles_.size()));
}

std::uint32_t WindingNumber::build(std::uint32_t first, std::uint32_t count) {
  const auto id = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  Node node;
  node.first = first;
  node.count = count;
  // Moments about the area-weighted centroid (the plain mean of centroids when the area is nil).
  double area = 0.0;
  Vec<3> weighted = Vec<3>::Zero(), mean = Vec<3>::Zero(), lo = Vec<3>::Constant(1e300), hi = -lo;
  for (std::uint32_t k = first; k < first + count; ++k) {
    const auto& t = triangles_[order_[k]];
    const Vec<3> x = centroid(t);
    const double a = area_vector(t).norm();
    area += a;
    weighted += a * x;
    mean += x;
    lo = lo.cwiseMin(x);
    hi = hi.cwiseMax(x);
  }
  node.centre = area > 0 ? Vec<3>(weighted / area) : Vec<3>(mean / count);
  node.normal_sum.setZero();
  node.first_moment.setZero();
  for (auto& m : node.second_moment) m.setZero();
  node.radius2 = 0.0;
  for (std::uint32_t k = first; k < first + count; ++k) {
    const auto& t = triangles_[order_[k]];
    const Vec<3> n = area_vector(t), c = centroid(t), d = c - node.centre;
    node.normal_sum += n;
    node.first_moment += d * n.transpose();
    // The mean of (y - centre)(y - centre)^T over the triangle: d d^T plus the triangle's own spread
    // about its centroid, (1/12) of the sum over its corners of e e^T (e = corner - centroid).
    Eigen::Matrix3d q = d * d.transpose();
    for (const auto& v : t) q += (v - c) * (v - c).transpose() / 12.0;
    for (int i = 0; i < 3; ++i) node.second_moment[i] += n[i] * q;
    for (const auto& v : t) node.radius2 = std::max(node.radius2, (v - node.centre).squaredNorm());
  }
  if (count > leaf_size) {
    // Median split of the centroids along the widest axis.
    int axis = 0;
    (hi - lo).maxCoeff(&axis);
    const std::uint32_t half = count / 2;
    std::nth_element(order_.begin() + first, order_.begin() + first + half, order_.begin() + first + count,
                     [&](std::uint32_t i, std::uint32_t j) {
                       return centroid(triangles_[i])[axis] < centroid(triangles_[j])[axis];
                     });
    node.left = build(first, half);
    node.right = build(first + half, count - half);
  }
  nodes_[id] = node;
  return id;
}

double WindingNumber::operator()(const Vec<3>& q) const {
  if (nodes_.empty()) return 0.0;
  double w = 0.0;
  std::uint32_t stack[128];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    const Vec<3> r = node.centre - q;
    const double d2 = r.squaredNorm();
    if (d2 > beta2_ * node.radius2) {
      // Far field: the Taylor expansion of the kernel f(y) = (y - q) / |y - q|^3 about the node's
      // centre to second order, integrated against the node's area-weighted normals:
      //   sum a n.f(c) + sum_ij J_ij M1_ji + 1/2 sum_ijk H_ijk M2[i]_jk
      // with J = I / d^3 - 3 r r^T / d^5 and H_ijk = -3 (d_ij r_k + d_ik r_j + d_jk r_i) / d^5 + 15 r_i r_j r_k / d^7.
      const double d = std::sqrt(d2), inv3 = 1.0 / (d2 * d), inv5 = inv3 / d2, inv7 = inv5 / d2;
      const double order0 = node.normal_sum.dot(r) * inv3;
      const double order1 = node.first_moment.trace() * inv3 - 3.0 * inv5 * r.dot(node.first_moment * r);
      double rows = 0.0, traces = 0.0, cubic = 0.0;
      for (int i = 0; i < 3; ++i) {
        const Eigen::Matrix3d& m = node.second_moment[i];
        rows += m.row(i).dot(r);
        traces += m.trace() * r[i];
        cubic += r[i] * r.dot(m * r);
      }
      const double order2 = 0.5 * (-3.0 * inv5 * (2.0 * rows + traces) + 15.0 * inv7 * cubic);
      w += (order0 + order1 + order2) * inv_4pi;
    } else if (node.left == 0) {
      for (std::uint32_t k = node.first; k < node.first + node.count; ++k) {
        const auto& t = triangles_[order_[k]];
        w += triangle_winding(t[0], t[1], t[2], q);
      }
    } else {
      stack[top++] = node.left;
      stack[top++] = node.right;
    }
  }
  return w;
}

}  // namespace nodegen::geometry_detail
