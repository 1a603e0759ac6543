// Boundary node placement on parametric patches and triangle meshes (see boundary_fill.hpp; curves
// and corners: curve_placement.cpp).
#include "geometry/boundary/boundary_fill.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numbers>
#include <optional>

#include <Eigen/Geometry>

#include "nodegen/parallel/thread_team.hpp"
#include "geometry/boundary/bisect.hpp"
#include "geometry/boundary/poisson_thinning.hpp"

namespace nodegen::geometry_detail {
namespace {

// The parts of the triangles within the box: a triangle inside it as it is, one the box cuts as the fan
// of its clipped polygon (Sutherland-Hodgman against the six faces), one outside it not at all.
std::vector<WorldTriangle> triangles_within(const std::vector<WorldTriangle>& triangles, const Box<3>& box) {
  std::vector<WorldTriangle> out;
  std::vector<Vec<3>> polygon, next;
  for (const WorldTriangle& t : triangles) {
    const Vec<3> lo = t.a.cwiseMin(t.b).cwiseMin(t.c), hi = t.a.cwiseMax(t.b).cwiseMax(t.c);
    if ((hi.array() < box.lo.array()).any() || (lo.array() > box.hi.array()).any()) continue;
    if ((lo.array() >= box.lo.array()).all() && (hi.array() <= box.hi.array()).all()) {
      out.push_back(t);
      continue;
    }
    polygon = {t.a, t.b, t.c};
    for (int axis = 0; axis < 3 && !polygon.empty(); ++axis)
      for (int side = 0; side < 2 && !polygon.empty(); ++side) {
        // Keeps the part where sign * (x[axis] - bound) <= 0.
        const double bound = side ? box.hi[axis] : box.lo[axis], sign = side ? 1.0 : -1.0;
        next.clear();
        for (std::size_t i = 0; i < polygon.size(); ++i) {
          const Vec<3>& p = polygon[i];
          const Vec<3>& q = polygon[(i + 1) % polygon.size()];
          const double dp = sign * (p[axis] - bound), dq = sign * (q[axis] - bound);
          if (dp <= 0) next.push_back(p);
          if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) next.push_back(p + (dp / (dp - dq)) * (q - p));
        }
        std::swap(polygon, next);
      }
    for (std::size_t i = 1; i + 1 < polygon.size(); ++i) {
      const WorldTriangle piece{polygon[0], polygon[i], polygon[i + 1], t.normal, t.part, t.source};
      if ((piece.b - piece.a).cross(piece.c - piece.a).squaredNorm() > 0) out.push_back(piece);
    }
  }
  return out;
}

}  // namespace

// Parameters of points of the patch inside `region`, for a patch that crosses the region away from
// its border: for each of 27 probes (a 3 x 3 x 3 grid over the region), the parameter of the patch's
// point nearest to it (the best of a 9 x 9 grid of parameters, then Gauss-Newton steps kept in the
// parameter rectangle), where that point lies in the region. A flat face that crosses a box has a
// point in it nearest to one of the probes: to its centre when it crosses the box whole, to a corner
// or an edge's midpoint when it cuts one off.
std::vector<Vec<2>> parameters_in_region(const Patch& patch, const Box<3>& region) {
  const Vec<2> span = patch.hi - patch.lo;
  auto clamp = [&](Vec<2> u) { return Vec<2>(u.cwiseMax(patch.lo).cwiseMin(patch.hi)); };
  const double du = 1e-6 * span.maxCoeff();
  std::vector<Vec<2>> out;
  for (int k = 0; k < 27; ++k) {
    Vec<3> probe;
    for (int a = 0, m = k; a < 3; ++a, m /= 3) probe[a] = region.lo[a] + 0.5 * (m % 3) * (region.hi[a] - region.lo[a]);
    Vec<2> u = patch.lo;
    double best = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= 8; ++i)
      for (int j = 0; j <= 8; ++j) {
        const Vec<2> v = patch.lo + Vec<2>(span[0] * i / 8.0, span[1] * j / 8.0);
        const double d = (patch.point(v) - probe).squaredNorm();
        if (d < best) best = d, u = v;
      }
    for (int it = 0; it < 30; ++it) {
      const Vec<3> p = patch.point(u);
      Eigen::Matrix<double, 3, 2> J;
      J.col(0) = (patch.point(clamp(u + Vec<2>(du, 0))) - patch.point(clamp(u - Vec<2>(du, 0)))) / (2 * du);
      J.col(1) = (patch.point(clamp(u + Vec<2>(0, du))) - patch.point(clamp(u - Vec<2>(0, du)))) / (2 * du);
      const Eigen::Matrix2d normal = J.transpose() * J;
      if (!(std::abs(normal.determinant()) > 0)) break;
      const Vec<2> next = clamp(u - normal.inverse() * (J.transpose() * (p - probe)));
      if (!((patch.point(next) - probe).squaredNorm() < (p - probe).squaredNorm())) break;
      u = next;
    }
    if (region.contains(patch.point(u))) out.push_back(u);
  }
  return out;
}

void fill_patch(const Patch& patch, const std::vector<Vec<2>>& seeds, PointGrid<3>& occupied, BoundarySink<3>& sink) {
  constexpr int candidates = 15;
  // Parameter step of the metric's central differences: 1e-7 of the parameter range, but large enough
  // that the step moves the point by 100 coordinate resolutions (of a small patch far from the
  // origin, 1e-7 of the range moves it by less than a unit in the last place, and the metric reads 0).
  const double range = (patch.hi - patch.lo).maxCoeff();
  const double world = (patch.point(patch.hi) - patch.point(patch.lo)).norm();
  const double du = std::clamp(100.0 * sink.resolution() * range / world, 1e-7 * range, 1e-3 * range);
  auto inside = [&](const Vec<2>& u) {
    return (u.array() >= patch.lo.array()).all() && (u.array() <= patch.hi.array()).all();
  };
  auto keep_at = [&](const Vec<2>& u) { return sink.keep(patch.point(u), patch.normal(u)); };
  std::uniform_real_distribution<double> angle(0.0, 2.0 * std::numbers::pi);

  // With a region (BoundarySink::region) the front stays in it: elsewhere no node is kept, and a face
  // of a child far larger than the result (a box of 800 intersected with a unit ball) was covered
  // whole, 2.6e8 nodes a face. A face that crosses the region with no seed in it (its edges lie
  // outside) gets seeds there (parameters_in_region), placed as nodes of the face.
  const std::optional<Box<3>>& region = sink.region();
  auto in_region = [&](const Vec<3>& q) { return !region || region->contains(q); };
  std::deque<std::pair<Vec<2>, bool>> front;
  bool seeded = false;
  for (const auto& s : seeds) {
    front.emplace_back(s, keep_at(s));
    seeded = seeded || in_region(patch.point(s));
  }
  if (region && !seeded)
    for (const Vec<2>& u : parameters_in_region(patch, *region)) {
      const Vec<3> q = patch.point(u);
      if (occupied.any_within(q, 0.99 * sink.h(q))) continue;
      occupied.insert(q);
      const bool keep_u = keep_at(u);
      if (keep_u) sink.emit(q, patch.normal(u), patch.id, surface_priority);
      front.emplace_back(u, keep_u);
    }
  while (!front.empty()) {
    const auto [u, keep_u] = front.front();
    front.pop_front();
    const Vec<3> p = patch.point(u);
    const double h = sink.h(p);
    // The surface metric at u: a parameter step d moves the point by J d.
    const Vec<3> ju = (patch.point(u + Vec<2>(du, 0)) - patch.point(u - Vec<2>(du, 0))) / (2 * du);
    const Vec<3> jv = (patch.point(u + Vec<2>(0, du)) - patch.point(u - Vec<2>(0, du))) / (2 * du);
    const double a0 = angle(sink.rng());
    for (int k = 0; k < candidates; ++k) {
      const double a = a0 + 2.0 * std::numbers::pi * k / candidates;
      const Vec<2> d(std::cos(a), std::sin(a));
      const double len = (ju * d[0] + jv * d[1]).norm();
      if (!(len > 1e-300)) continue;
      Vec<2> v = u + (h / len) * d;
      if (!inside(v)) continue;
      Vec<3> q = patch.point(v);
      // One secant correction so the step is h in space, not just to first order.
      const double dist = (q - p).norm();
      if (dist > 0) {
        v = u + (h / len) * (h / dist) * d;
        if (!inside(v)) continue;
        q = patch.point(v);
      }
      const Vec<3> nq = patch.normal(v);
      const bool keep_v = sink.keep(q, nq);
      // Every candidate step that crosses a junction curve yields a junction point, accepted or not:
      // the many crossings around the curve let emit_junction() space junction nodes about h apart.
      if (keep_v != keep_u) {
        const Vec<2> w = bisect(u, v, keep_u, keep_at);
        sink.emit_junction(patch.point(w), patch.normal(w), patch.id);
      }
      if (!in_region(q)) continue;
      if (occupied.any_within(q, 0.99 * h)) continue;
      occupied.insert(q);
      if (keep_v) sink.emit(q, nq, patch.id, surface_priority);
      front.emplace_back(v, keep_v);
    }
  }
}

void sample_triangles(const std::vector<WorldTriangle>& whole, BoundarySink<3>& sink,
                      const BoundarySide& side, const TriangleLift& lift,
                      const PointGrid<3>* placed) {
  // Only the parts of the triangles within the region where nodes can be kept are sampled: a mesh child
  // far larger than the ball it was intersected with took over a minute and gigabytes.
  std::vector<WorldTriangle> clipped;
  if (sink.region()) clipped = triangles_within(whole, *sink.region());
  const std::vector<WorldTriangle>& triangles = sink.region() ? clipped : whole;
  // Candidates per h^2 of area: dense enough that the thinning leaves no holes wider than about 2h
  // (a maximal Poisson-disk set), cheap enough for 1e5-triangle meshes.
  constexpr double samples_per_h2 = 24.0;
  // The samples are drawn block by block while being thinned and never exist all at once: held at once
  // (~44 B each, 24 per h^2) they were the peak of a mesh domain's run, above the fill's own
  // (measured: bench/RESULTS.md, Geometry and meshes).
  const std::uint64_t sample_seed = sink.rng()(), thinning_seed = sink.rng()();
  TriangleSamples source(triangles, sink.spacing(), samples_per_h2, sample_seed, sink.threads());
  const std::vector<SurfaceSample> kept =
      thin_samples(source, sink.spacing(), kMeshNodeSpacing, sink.cell(), thinning_seed, sink.threads(), placed);
  // Which kept samples bound the part (side) and lie on the whole domain's boundary (CSG): two inside
  // tests each, on the team. on_boundary: 1 as placed, -1 turned, 0 dropped.
  // The filters test the node on its triangle, where the inside tests' surface is (a lifted node lies
  // off it by up to the tessellation's tolerance, beyond their probes); a kept node is then lifted.
  std::vector<signed char> on_boundary(kept.size(), 1);
  if (side || sink.filtering())
    parallel_for(kept.size(), sink.threads(), [&](int, std::size_t k) {
      const Vec<3>& n = triangles[kept[k].item].normal;
      const int s = side ? side(kept[k].pos, n) : 1;
      on_boundary[k] = static_cast<signed char>(s != 0 && sink.keep(kept[k].pos, Vec<3>(double(s) * n)) ? s : 0);
    });
  std::vector<Vec<3>> pos(kept.size()), normal(kept.size());
  parallel_for(kept.size(), lift ? sink.threads() : 1, [&](int, std::size_t k) {
    pos[k] = kept[k].pos;
    normal[k] = triangles[kept[k].item].normal;
    if (lift && on_boundary[k] != 0) lift(triangles[kept[k].item], pos[k], normal[k]);
  });
  for (std::size_t k = 0; k < kept.size(); ++k)
    if (on_boundary[k] != 0)
      sink.emit(pos[k], Vec<3>(double(on_boundary[k]) * normal[k]), triangles[kept[k].item].part, surface_priority);
}

}  // namespace nodegen::geometry_detail
