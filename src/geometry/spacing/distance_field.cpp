// The distance to a boundary part's primitives through a bounding-volume hierarchy (distance_field.hpp).
#include "nodegen/geometry/distance_field.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace nodegen {
namespace {

using Vec3 = Eigen::Vector3d;
constexpr std::uint32_t kLeafSize = 4;
// A box is pruned only when its squared distance exceeds the best squared distance by this factor:
// far above the relative rounding of either computation, so no primitive that could hold the least
// computed distance is ever skipped (the determinism argument of distance_field.hpp).
constexpr double kPruneMargin = 1.0 + 1e-9;

double point_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double len2 = ab.squaredNorm();
  const double t = len2 > 0 ? std::clamp((p - a).dot(ab) / len2, 0.0, 1.0) : 0.0;
  return (p - (a + t * ab)).norm();
}

// The closest point of triangle abc to p by its Voronoi regions (Ericson, Real-Time Collision
// Detection, 5.1.5), then its distance.
double point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return ap.norm();
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return bp.norm();
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return point_segment(p, a, b);
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return cp.norm();
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return point_segment(p, a, c);
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) return point_segment(p, b, c);
  const double denom = va + vb + vc;
  if (!(denom > 0)) return std::min({point_segment(p, a, b), point_segment(p, a, c), point_segment(p, b, c)});
  const double v = vb / denom, w = vc / denom;
  return (p - (a + v * ab + w * ac)).norm();
}

void bounds_of(const DistanceField::Primitive& q, Vec3& lo, Vec3& hi) {
  using Kind = DistanceField::Primitive::Kind;
  if (q.kind == Kind::round) {
    lo = q.a.array() - q.radius;
    hi = q.a.array() + q.radius;
    return;
  }
  lo = q.a.cwiseMin(q.b);
  hi = q.a.cwiseMax(q.b);
  if (q.kind == Kind::triangle) {
    lo = lo.cwiseMin(q.c);
    hi = hi.cwiseMax(q.c);
  }
}

Vec3 centre_of(const DistanceField::Primitive& q) {
  Vec3 lo, hi;
  bounds_of(q, lo, hi);
  return 0.5 * (lo + hi);
}

double box_distance2(const Vec3& p, const Vec3& lo, const Vec3& hi) {
  const Vec3 outside = (lo - p).cwiseMax(p - hi).cwiseMax(0.0);
  return outside.squaredNorm();
}

}  // namespace

double DistanceField::distance_to(const Primitive& q, const Vec3& p) {
  switch (q.kind) {
    case Primitive::Kind::segment: return point_segment(p, q.a, q.b);
    case Primitive::Kind::triangle: return point_triangle(p, q.a, q.b, q.c);
    case Primitive::Kind::round: return std::abs((p - q.a).norm() - q.radius);
  }
  return std::numeric_limits<double>::infinity();
}

DistanceField::DistanceField(std::vector<Primitive> primitives) : primitives_(std::move(primitives)) {
  if (primitives_.empty()) throw std::invalid_argument("a distance field needs at least one primitive");
  if (primitives_.size() >= std::numeric_limits<std::uint32_t>::max() / 2)
    throw std::invalid_argument("a distance field holds at most 2^31 primitives");
  nodes_.reserve(2 * primitives_.size() / kLeafSize + 2);
  build(0, static_cast<std::uint32_t>(primitives_.size()));
}

// Builds the subtree of primitives_[first, first + count) at nodes_.size(); returns its index. The
// first child of an inner node follows it, the second's index is kept in `first`.
std::uint32_t DistanceField::build(std::uint32_t first, std::uint32_t count) {
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.emplace_back();
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  Vec3 centre_lo = lo, centre_hi = hi;
  for (std::uint32_t i = first; i < first + count; ++i) {
    Vec3 a, b;
    bounds_of(primitives_[i], a, b);
    lo = lo.cwiseMin(a);
    hi = hi.cwiseMax(b);
    const Vec3 c = centre_of(primitives_[i]);
    centre_lo = centre_lo.cwiseMin(c);
    centre_hi = centre_hi.cwiseMax(c);
  }
  nodes_[index].lo = lo;
  nodes_[index].hi = hi;
  if (count <= kLeafSize) {
    nodes_[index].first = first;
    nodes_[index].count = count;
    return index;
  }
  int axis = 0;
  (centre_hi - centre_lo).maxCoeff(&axis);
  const std::uint32_t half = count / 2;
  auto begin = primitives_.begin() + first;
  // Ties by the other coordinates and then by the primitive's corners keep the order a function of
  // the primitives alone.
  std::nth_element(begin, begin + half, begin + count, [axis](const Primitive& x, const Primitive& y) {
    const Vec3 cx = centre_of(x), cy = centre_of(y);
    if (cx[axis] != cy[axis]) return cx[axis] < cy[axis];
    return std::lexicographical_compare(cx.data(), cx.data() + 3, cy.data(), cy.data() + 3);
  });
  build(first, half);
  const std::uint32_t second = build(first + half, count - half);
  nodes_[index].first = second;
  nodes_[index].count = 0;
  return index;
}

double DistanceField::distance(double x, double y, double z, Hint& hint) const {
  const Vec3 p(x, y, z);
  std::uint32_t best_at = hint.primitive < primitives_.size() ? hint.primitive : 0;
  double best = distance_to(primitives_[best_at], p);
  std::uint32_t stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const Node& node = nodes_[stack[--top]];
    if (box_distance2(p, node.lo, node.hi) > best * best * kPruneMargin) continue;
    if (node.count > 0) {
      for (std::uint32_t i = node.first; i < node.first + node.count; ++i) {
        const double d = distance_to(primitives_[i], p);
        if (d < best) best = d, best_at = i;
      }
      continue;
    }
    const std::uint32_t near = static_cast<std::uint32_t>(&node - nodes_.data()) + 1, far = node.first;
    const bool swap = box_distance2(p, nodes_[far].lo, nodes_[far].hi) < box_distance2(p, nodes_[near].lo, nodes_[near].hi);
    stack[top++] = swap ? near : far;  // the nearer child is walked first
    stack[top++] = swap ? far : near;
  }
  hint.primitive = best_at;
  return best;
}

}  // namespace nodegen
