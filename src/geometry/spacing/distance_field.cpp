// The distance to a boundary part's primitives through a bounding-volume hierarchy (distance_field.hpp).
#include "nodegen/geometry/distance_field.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <Eigen/Eigenvalues>

#include "nodegen/spatial/target_clones.hpp"

namespace nodegen {
namespace {

using Vec3 = Eigen::Vector3d;
using Wide = distance_detail::WideNode;
constexpr std::uint32_t kLeafSize = 4;
// A box is pruned only when its distance exceeds the best so far by this much relative to the best,
// plus kAbsoluteSlack of the primitives' coordinate scale: both far above the rounding of either
// computation (a few ulps of the coordinates), so no primitive that could hold the least computed
// distance is ever skipped (the determinism argument of distance_field.hpp).
constexpr double kRelativeSlack = 1e-9;
constexpr double kAbsoluteSlack = 1e-12;

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

// The points whose convex hull holds a primitive, or for a round its centre (with `radius` beside).
template <class Take>
void for_each_corner(const DistanceField::Primitive& q, Take&& take) {
  using Kind = DistanceField::Primitive::Kind;
  if (q.kind == Kind::round) return take(q.a, q.radius);
  take(q.a, 0.0);
  take(q.b, 0.0);
  if (q.kind == Kind::triangle) take(q.c, 0.0);
}

Vec3 centre_of(const DistanceField::Primitive& q) {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for_each_corner(q, [&](const Vec3& v, double r) {
    lo = lo.cwiseMin((v.array() - r).matrix());
    hi = hi.cwiseMax((v.array() + r).matrix());
  });
  return 0.5 * (lo + hi);
}

// The extent of primitives [first, last) along each of the rows of `axes` (unit vectors): the box in
// that frame holding every primitive, as its centre (in world coordinates) and half-sides.
void fit_box(const std::vector<DistanceField::Primitive>& all, std::uint32_t first, std::uint32_t last,
             const Eigen::Matrix3d& axes, Vec3& centre, Vec3& half) {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (std::uint32_t i = first; i < last; ++i)
    for_each_corner(all[i], [&](const Vec3& v, double r) {
      const Vec3 along = axes * v;
      lo = lo.cwiseMin((along.array() - r).matrix());
      hi = hi.cwiseMax((along.array() + r).matrix());
    });
  half = 0.5 * (hi - lo);
  centre = axes.transpose() * (0.5 * (lo + hi));
}

// The principal axes (rows, unit, orthogonal) of corners whose sum is `sum` and sum of outer products
// `outer`, n of them: a run of segments along a curve or triangles of a smooth patch lie in a thin box
// along them.
// Planar corners (every z 0) get two axes in the plane and z as the third, as the planar walk needs.
Eigen::Matrix3d principal_axes(const Vec3& sum, const Eigen::Matrix3d& outer, double n, bool planar) {
  const Vec3 mean = sum / n;
  const Eigen::Matrix3d covariance = outer / n - mean * mean.transpose();
  Eigen::Matrix3d axes = Eigen::Matrix3d::Identity();
  if (planar) {
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d> solver(covariance.topLeftCorner<2, 2>());
    if (solver.info() != Eigen::Success || !solver.eigenvectors().allFinite()) return axes;
    axes.topLeftCorner<2, 2>() = solver.eigenvectors().transpose();
    return axes;
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> solver(covariance);
  if (solver.info() != Eigen::Success || !solver.eigenvectors().allFinite()) return axes;
  return solver.eigenvectors().transpose();
}

// A node of the binary hierarchy the wide one is collapsed from.
struct BinaryNode {
  Eigen::Matrix3d axes = Eigen::Matrix3d::Identity();
  Vec3 centre = Vec3::Zero(), half = Vec3::Zero();
  std::uint32_t first = 0;  // leaf: its first primitive; inner: its second child (the first follows it)
  std::uint32_t count = 0;  // leaf: its primitives; inner: 0
};

// The node's box: along the primitives' principal axes, or along x, y, z where that box is smaller
// (the sum of its half-sides).
void fit(const std::vector<DistanceField::Primitive>& all, bool planar, BinaryNode& node, std::uint32_t first,
         std::uint32_t last) {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo, sum = Vec3::Zero();
  Eigen::Matrix3d outer = Eigen::Matrix3d::Zero();
  double n = 0;
  const Vec3 origin = all[first].a;  // moments about a corner: no cancellation far from 0
  for (std::uint32_t i = first; i < last; ++i)
    for_each_corner(all[i], [&](const Vec3& v, double r) {
      lo = lo.cwiseMin((v.array() - r).matrix());
      hi = hi.cwiseMax((v.array() + r).matrix());
      const Vec3 u = v - origin;
      sum += u, outer += u * u.transpose(), n += 1;
    });
  node.half = 0.5 * (hi - lo);
  node.centre = 0.5 * (lo + hi);
  Vec3 centre, half;
  const Eigen::Matrix3d axes = principal_axes(sum, outer, n, planar);
  fit_box(all, first, last, axes, centre, half);
  node.axes = Eigen::Matrix3d::Identity();
  if (half.sum() < node.half.sum()) node.axes = axes, node.centre = centre, node.half = half;
}

// Builds the binary subtree of all[first, first + count) at nodes.size() (median splits of the
// primitives' centres along their longest spread); returns its index.
std::uint32_t build_binary(std::vector<DistanceField::Primitive>& all, bool planar, std::vector<BinaryNode>& nodes,
                           std::uint32_t first, std::uint32_t count) {
  const auto index = static_cast<std::uint32_t>(nodes.size());
  nodes.emplace_back();
  fit(all, planar, nodes[index], first, first + count);
  if (count <= kLeafSize) {
    nodes[index].first = first;
    nodes[index].count = count;
    return index;
  }
  Vec3 centre_lo = Vec3::Constant(std::numeric_limits<double>::infinity()), centre_hi = -centre_lo;
  for (std::uint32_t i = first; i < first + count; ++i) {
    const Vec3 c = centre_of(all[i]);
    centre_lo = centre_lo.cwiseMin(c);
    centre_hi = centre_hi.cwiseMax(c);
  }
  int axis = 0;
  (centre_hi - centre_lo).maxCoeff(&axis);
  const std::uint32_t half = count / 2;
  auto begin = all.begin() + first;
  // Ties by the other coordinates keep the order a function of the primitives alone.
  std::nth_element(begin, begin + half, begin + count, [axis](const auto& x, const auto& y) {
    const Vec3 cx = centre_of(x), cy = centre_of(y);
    if (cx[axis] != cy[axis]) return cx[axis] < cy[axis];
    return std::lexicographical_compare(cx.data(), cx.data() + 3, cy.data(), cy.data() + 3);
  });
  build_binary(all, planar, nodes, first, half);
  const std::uint32_t second = build_binary(all, planar, nodes, first + half, count - half);
  nodes[index].first = second;
  nodes[index].count = 0;
  return index;
}

void set_lane(Wide& wide, int lane, const BinaryNode& node) {
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) wide.axes[3 * r + c][lane] = node.axes(r, c);
    wide.centre[r][lane] = node.centre[r];
    wide.half[r][lane] = node.half[r];
  }
}

// Adds the wide node standing for binary node `at` (an inner one, or a leaf at the root) and those
// below it: its lanes are its children, or in place of an inner child that child's two children.
std::uint32_t collapse(const std::vector<BinaryNode>& binary, std::uint32_t at, std::vector<Wide>& wide) {
  const auto index = static_cast<std::uint32_t>(wide.size());
  wide.emplace_back();
  std::uint32_t lanes[Wide::kLanes];
  int used = 0;
  if (binary[at].count > 0) {
    lanes[used++] = at;
  } else {
    for (const std::uint32_t child : {at + 1, binary[at].first}) {
      if (binary[child].count > 0) {
        lanes[used++] = child;
      } else {
        lanes[used++] = child + 1;
        lanes[used++] = binary[child].first;
      }
    }
  }
  for (int lane = 0; lane < used; ++lane) {
    const BinaryNode& node = binary[lanes[lane]];
    set_lane(wide[index], lane, node);
    wide[index].count[lane] = node.count;
    wide[index].child[lane] = node.count > 0 ? node.first : collapse(binary, lanes[lane], wide);
  }
  return index;
}

// The squared distance from p to each lane's box, a lower bound of its primitives' distances: p in
// the box's frame, the excess of each coordinate over the half-side, squared and summed. Written in
// GCC's vector extension, one lane per element and no sum across lanes, so every clone computes the
// same values (two SSE2 halves, or one AVX register).
typedef double Lanes __attribute__((vector_size(sizeof(double) * Wide::kLanes), may_alias));

#define NODEGEN_LANES(row) (*reinterpret_cast<const Lanes*>(row))

template <bool Planar>
inline void lane_distances2_in(const Wide& w, const double* p, double* out) {
  const Lanes zero = {}, dx = p[0] - NODEGEN_LANES(w.centre[0]), dy = p[1] - NODEGEN_LANES(w.centre[1]),
              dz = p[2] - NODEGEN_LANES(w.centre[2]);
  Lanes sum = zero;
  for (int r = 0; r < 3; ++r) {
    // A planar box's first two axes lie in the plane and its third is z.
    const Lanes local = Planar ? (r == 2 ? dz : NODEGEN_LANES(w.axes[3 * r]) * dx + NODEGEN_LANES(w.axes[3 * r + 1]) * dy)
                               : NODEGEN_LANES(w.axes[3 * r]) * dx + NODEGEN_LANES(w.axes[3 * r + 1]) * dy +
                                     NODEGEN_LANES(w.axes[3 * r + 2]) * dz;
    const Lanes magnitude = local < zero ? -local : local;
    const Lanes excess = magnitude - NODEGEN_LANES(w.half[r]);
    const Lanes positive = excess > zero ? excess : zero;
    sum += positive * positive;
  }
  std::memcpy(out, &sum, sizeof sum);
}

NODEGEN_CLONES void lane_distances2(const Wide& w, const double* p, double* out) { lane_distances2_in<false>(w, p, out); }
NODEGEN_CLONES void planar_lane_distances2(const Wide& w, const double* p, double* out) {
  lane_distances2_in<true>(w, p, out);
}
#undef NODEGEN_LANES

// A plane (or in 2D a line) every point of the primitive lies on, so that its distance bounds the
// primitive's from below; a zero normal for a round or a degenerate primitive (no bound).
distance_detail::Plane plane_of(const DistanceField::Primitive& q) {
  using Kind = DistanceField::Primitive::Kind;
  Vec3 normal = Vec3::Zero();
  if (q.kind == Kind::triangle) normal = (q.b - q.a).cross(q.c - q.a);
  // A segment in the plane z = const (every 2D part): the line's normal in that plane.
  if (q.kind == Kind::segment && q.a.z() == q.b.z()) normal = Vec3(q.a.y() - q.b.y(), q.b.x() - q.a.x(), 0.0);
  const double length = normal.norm();
  if (!(length > 0.0) || !std::isfinite(length)) return {};
  normal /= length;
  return {normal, normal.dot(q.a)};
}

}  // namespace

distance_detail::WideNode::WideNode() {
  for (int l = 0; l < kLanes; ++l) {
    for (int k = 0; k < 9; ++k) axes[k][l] = k % 4 == 0 ? 1.0 : 0.0;
    // Far but finite (an infinite centre would make 0 * inf = NaN): its squared distance overflows to
    // infinity, above every bound.
    for (int r = 0; r < 3; ++r) centre[r][l] = 1e300, half[r][l] = 0.0;
    child[l] = count[l] = 0;
  }
}

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
  double scale = 0.0;
  planar_ = true;
  for (const Primitive& q : primitives_)
    for_each_corner(q, [&](const Vec3& v, double r) {
      scale = std::max(scale, v.cwiseAbs().maxCoeff() + r);
      planar_ = planar_ && v.z() == 0.0;
    });
  slack_ = kAbsoluteSlack * std::max(scale, std::numeric_limits<double>::min());
  std::vector<BinaryNode> binary;
  binary.reserve(2 * primitives_.size() / kLeafSize + 2);
  build_binary(primitives_, planar_, binary, 0, static_cast<std::uint32_t>(primitives_.size()));
  wide_.reserve(binary.size() / 2 + 1);
  collapse(binary, 0, wide_);
  planes_.reserve(primitives_.size());
  for (const Primitive& q : primitives_) planes_.push_back(plane_of(q));
}

double DistanceField::distance(double x, double y, double z, Hint& hint) const {
  const Vec3 p(x, y, z);
  // bound: the best so far plus the pruning margin; a box or plane farther than it holds nothing nearer.
  double best = std::numeric_limits<double>::infinity(), bound = best, prune2 = best;
  Hint nearest = hint;
  // Measures a leaf's primitives; true once one is within the slack of p, when the answer is 0
  // whichever primitive shows it (see distance_field.hpp).
  const auto measure = [&](std::uint32_t first, std::uint32_t count) {
    for (std::uint32_t i = first; i < first + count; ++i) {
      const distance_detail::Plane& plane = planes_[i];
      const double off = std::abs(plane.normal.dot(p) - plane.offset);
      if (off > bound) continue;  // its plane alone is farther
      const double d = distance_to(primitives_[i], p);
      if (d >= best) continue;
      best = d, nearest = {first, count};
      bound = best * (1.0 + kRelativeSlack) + slack_;
      prune2 = bound * bound;
      if (best <= slack_) return true;
    }
    return false;
  };
  const bool hinted = hint.count > 0 && hint.count <= kLeafSize && hint.first < primitives_.size() &&
                      hint.count <= primitives_.size() - hint.first;
  if (hinted && measure(hint.first, hint.count)) return 0.0;
  struct Pending {
    std::uint32_t node;
    double distance2;
  };
  Pending stack[4 * Wide::kLanes * 16];
  int top = 0;
  stack[top++] = {0, 0.0};
  while (top > 0) {
    const Pending next = stack[--top];
    if (next.distance2 > prune2) continue;
    const Wide& w = wide_[next.node];
    double d2[Wide::kLanes];
    if (planar_) planar_lane_distances2(w, p.data(), d2);
    else lane_distances2(w, p.data(), d2);
    // Nearest lane first: leaves measured in that order, inner nodes pushed farthest first.
    int order[Wide::kLanes] = {0, 1, 2, 3};
    const auto swap_if = [&](int a, int b) {
      if (d2[order[b]] < d2[order[a]]) std::swap(order[a], order[b]);
    };
    swap_if(0, 1), swap_if(2, 3), swap_if(0, 2), swap_if(1, 3), swap_if(1, 2);
    for (const int lane : order) {
      if (w.count[lane] == 0 || d2[lane] > prune2) continue;
      if (measure(w.child[lane], w.count[lane])) {
        hint = nearest;
        return 0.0;
      }
    }
    for (int k = Wide::kLanes - 1; k >= 0; --k) {
      const int lane = order[k];
      if (w.count[lane] == 0 && d2[lane] <= prune2) stack[top++] = {w.child[lane], d2[lane]};
    }
  }
  hint = nearest;
  return best;
}

}  // namespace nodegen
