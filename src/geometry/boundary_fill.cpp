// Boundary node placement on curves, parametric patches and triangle meshes (see boundary_fill.hpp).
#include "boundary_fill.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numbers>
#include <optional>

#include <Eigen/Geometry>

#include "nodegen/parallel/thread_team.hpp"
#include "poisson_thinning.hpp"

namespace nodegen::geometry_detail {
namespace {

// The stretches of a curve, as intervals of its integral f, whose chords come within their own length
// of `region` (a chord's curve bulges from it by less than that), merged where they touch.
template <int D>
struct StretchesNear {
  Box<D> region;
  std::vector<std::pair<double, double>> stretches;

  void chord(const Vec<D>& a, const Vec<D>& b, double f0, double f1) {
    const double reach = (b - a).norm();
    if (!(a.cwiseMin(b).array() - reach <= region.hi.array()).all() ||
        !(a.cwiseMax(b).array() + reach >= region.lo.array()).all())
      return;
    if (!stretches.empty() && stretches.back().second == f0) stretches.back().second = f1;
    else stretches.emplace_back(f0, f1);
  }
};

// Cumulative integral of ds/h along the curve on `k` chords (h at the chord midpoint); where `near` is
// given, its stretches too (from scratch).
template <int D>
void integrate_steps(const Curve<D>& c, BoundarySink<D>& sink, int k, std::vector<double>& ts, std::vector<double>& f,
                     StretchesNear<D>* near = nullptr) {
  ts.resize(static_cast<std::size_t>(k) + 1);
  f.resize(static_cast<std::size_t>(k) + 1);
  if (near) near->stretches.clear();
  Vec<D> prev = c.point(c.t0);
  ts[0] = c.t0;
  f[0] = 0.0;
  for (int i = 1; i <= k; ++i) {
    const double t = c.t0 + (c.t1 - c.t0) * i / k;
    const Vec<D> p = c.point(t);
    ts[i] = t;
    f[i] = f[i - 1] + (p - prev).norm() / sink.h(0.5 * (p + prev));
    if (near) near->chord(prev, p, f[i - 1], f[i]);
    prev = p;
  }
}

// Parameter where the cumulative integral reaches s (linear within a chord).
double invert(const std::vector<double>& ts, const std::vector<double>& f, double s) {
  auto it = std::upper_bound(f.begin(), f.end(), s);
  if (it == f.begin()) return ts.front();
  if (it == f.end()) return ts.back();
  const auto i = static_cast<std::size_t>(it - f.begin());
  const double w = (s - f[i - 1]) / std::max(f[i] - f[i - 1], 1e-300);
  return ts[i - 1] + w * (ts[i] - ts[i - 1]);
}

// Moves from a to b (parameters of any dimension) to where keep() flips; returns the point on the kept
// side of the flip, at ~1e-12 of the segment.
template <class T, class KeepAt>
T bisect(T a, T b, bool keep_a, KeepAt&& keep_at) {
  for (int it = 0; it < 45; ++it) {
    T mid = a + 0.5 * (b - a);
    if (keep_at(mid) == keep_a) a = mid;
    else b = mid;
  }
  return keep_a ? a : b;
}

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
      const WorldTriangle piece{polygon[0], polygon[i], polygon[i + 1], t.normal};
      if ((piece.b - piece.a).cross(piece.c - piece.a).squaredNorm() > 0) out.push_back(piece);
    }
  }
  return out;
}

}  // namespace

template <int D>
void place_corner(const Vec<D>& p, const Vec<D>& n, int id, BoundarySink<D>& sink, PointGrid<D>* occupied,
                  const std::vector<Facet<D>>& facets) {
  if (occupied) occupied->insert(p);
  if (!sink.keep(p, n)) return;
  const auto [normal, part] = sink.feature_normal(p, n, id, facets);
  sink.emit(p, normal, part, corner_priority);
}

template <int D>
std::vector<double> place_curve(const Curve<D>& c, BoundarySink<D>& sink, PointGrid<D>* occupied) {
  std::vector<double> ts, f;
  // Only the stretches that come near the region where nodes can be kept (BoundarySink::region) get
  // theirs, at the places they have on the whole curve (in 3D the faces are seeded from them, and
  // fill_patch keeps to the region too).
  std::optional<StretchesNear<D>> near;
  if (sink.region()) near = StretchesNear<D>{*sink.region(), {}};
  integrate_steps(c, sink, 256, ts, f, near ? &*near : nullptr);
  if (near && near->stretches.empty()) {
    // The phase below, drawn all the same: the parts placed later keep their random streams.
    if (c.closed) std::uniform_real_distribution<double>(0.0, 1.0)(sink.rng());
    return {};
  }
  // Enough chords that each node step spans at least 16 of them.
  const int k = static_cast<int>(std::clamp(16.0 * f.back(), 256.0, 4e6));
  integrate_steps(c, sink, k, ts, f, near ? &*near : nullptr);
  const double total = f.back();
  const long n = c.closed ? std::max(3L, std::lround(total)) : std::max(1L, std::lround(total));
  // The nodes i of [first, n) are at the integral (i + phase) * total / n (a closed curve's random
  // phase, so closed curves do not all start at the same angle), or i * total / n.
  const double phase = c.closed ? std::uniform_real_distribution<double>(0.0, 1.0)(sink.rng()) : 0.0;
  const long first = c.closed ? 0 : 1;
  const std::vector<std::pair<double, double>> stretches = near ? near->stretches : std::vector{std::pair{0.0, total}};
  std::vector<std::pair<long, long>> ranges;  // node index ranges [from, to)
  double count = 0.0;
  for (const auto& [s0, s1] : stretches) {
    const long from = std::max(first, static_cast<long>(std::ceil(s0 * n / total - phase)));
    const long to = std::min(n, static_cast<long>(std::floor(s1 * n / total - phase)) + 1);
    if (from >= to) continue;
    ranges.emplace_back(from, to);
    count += static_cast<double>(to - from);
  }
  sink.check_count(count);

  std::vector<double> placed;
  for (const auto& [from, to] : ranges)
    for (long i = from; i < to; ++i) placed.push_back(invert(ts, f, (i + phase) * total / n));

  auto keep_at = [&](double t) { return sink.keep(c.point(t), c.normal(t)); };
  auto emit_at = [&](double t) {  // a kept node; a sharp edge's gets the combined solid's normal and id
    const Vec<D> p = c.point(t);
    const auto [normal, part] =
        c.facets ? sink.feature_normal(p, c.normal(t), c.id, c.facets(t)) : std::pair(c.normal(t), c.id);
    sink.emit(p, normal, part, c.priority);
  };
  std::vector<char> kept(placed.size());
  for (std::size_t i = 0; i < placed.size(); ++i) {
    if (occupied) occupied->insert(c.point(placed[i]));
    kept[i] = keep_at(placed[i]);
  }
  auto emit_placed = [&] {
    for (std::size_t i = 0; i < placed.size(); ++i)
      if (kept[i]) emit_at(placed[i]);
  };
  if (!sink.filtering()) {
    emit_placed();
    return placed;
  }

  // Junctions: wherever consecutive nodes (or an end point) disagree about being on the boundary.
  // Parameters of closed curves are unwrapped here (they may exceed t1 by up to one period).
  const double period = c.t1 - c.t0;
  auto wrap = [&](double t) { return c.closed && t > c.t1 ? t - period : t; };
  std::vector<std::pair<double, bool>> seq;
  if (!c.closed) seq.emplace_back(c.t0, keep_at(c.t0));
  for (std::size_t i = 0; i < placed.size(); ++i) seq.emplace_back(placed[i], kept[i] != 0);
  if (!c.closed) seq.emplace_back(c.t1, keep_at(c.t1));
  else if (!placed.empty()) seq.emplace_back(placed.front() + period, kept.front() != 0);
  std::vector<std::pair<double, bool>> junctions;  // (unwrapped parameter, curve is kept after it)
  for (std::size_t i = 0; i + 1 < seq.size(); ++i) {
    if (seq[i].second == seq[i + 1].second) continue;
    const double t = bisect(seq[i].first, seq[i + 1].first, seq[i].second, [&](double x) { return keep_at(wrap(x)); });
    junctions.emplace_back(t, seq[i + 1].second);
  }
  auto emit_junction_at = [&](double t) { sink.emit_junction(c.point(wrap(t)), c.normal(wrap(t)), c.id); };

  if (D == 3 || junctions.empty()) {
    // Surfaces are seeded from `placed`, so in 3D the edge keeps its nodes and only gains junctions.
    emit_placed();
    for (const auto& j : junctions) emit_junction_at(j.first);
    return placed;
  }

  // 2D: re-space each kept stretch of the curve between its ends and junctions, so the spacing stays h
  // right up to the junction instead of leaving a gap of up to 2h there.
  auto forward = [&](double t) {  // the integral of ds/h from t0 to the (unwrapped) parameter t
    const double extra = t > c.t1 ? total : 0.0;
    const double x = wrap(t);
    auto it = std::upper_bound(ts.begin(), ts.end(), x);
    if (it == ts.begin()) return extra;
    if (it == ts.end()) return extra + total;
    const auto i = static_cast<std::size_t>(it - ts.begin());
    return extra + f[i - 1] + (f[i] - f[i - 1]) * (x - ts[i - 1]) / (ts[i] - ts[i - 1]);
  };
  auto stretch = [&](double a, double b, bool a_junction, bool b_junction) {
    const double fa = forward(a), fb = forward(b);
    const long m = std::max(1L, std::lround(fb - fa));
    for (long i = 1; i < m; ++i) {
      const double s = fa + (fb - fa) * i / m;
      const double t = s > total ? invert(ts, f, s - total) : invert(ts, f, s);
      emit_at(t);
    }
    if (a_junction) emit_junction_at(a);
    if (b_junction) emit_junction_at(b);
  };
  if (!c.closed) {
    bool on = seq.front().second;
    double start = c.t0;
    bool start_is_junction = false;
    for (const auto& [t, after] : junctions) {
      if (after) {
        start = t;
        start_is_junction = true;
      } else if (on) {
        stretch(start, t, start_is_junction, true);
      }
      on = after;
    }
    if (on) stretch(start, c.t1, start_is_junction, false);
  } else {
    // Transitions alternate around a closed curve: each "enters" is followed by a "leaves".
    for (std::size_t i = 0; i < junctions.size(); ++i) {
      if (!junctions[i].second) continue;
      const auto& next = junctions[(i + 1) % junctions.size()];
      double b = next.first;
      while (b <= junctions[i].first) b += period;
      stretch(junctions[i].first, b, true, true);
    }
  }
  return placed;
}

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

void sample_triangles(const std::vector<WorldTriangle>& whole, int id, BoundarySink<3>& sink,
                      const std::function<int(const Vec<3>&, const Vec<3>&)>& side) {
  // Only the parts of the triangles within the region where nodes can be kept are sampled: a mesh child
  // 170 times the size of the ball it was intersected with took 81 s and 2 GB.
  std::vector<WorldTriangle> clipped;
  if (sink.region()) clipped = triangles_within(whole, *sink.region());
  const std::vector<WorldTriangle>& triangles = sink.region() ? clipped : whole;
  // Candidates per h^2 of area: dense enough that the thinning leaves no holes wider than about 2h
  // (a maximal Poisson-disk set), cheap enough for 1e5-triangle meshes.
  constexpr double samples_per_h2 = 24.0;
  // The thinning radius, as a fraction of h: a maximal Poisson-disk set of radius r has mean nearest
  // neighbour distance a little above r; 0.92 makes the mean spacing close to h (measured on the
  // torus and gear meshes: mean nearest neighbour 1.00 h, minimum 0.92 h).
  constexpr double radius_factor = 0.92;
  // The samples are drawn block by block while being thinned and never exist all at once: held at once
  // (~44 B each, 24 per h^2) they were the peak of a mesh domain's run (torus, 1e6 nodes: 126 MB,
  // against 94 MB in the fill).
  const std::uint64_t sample_seed = sink.rng()(), thinning_seed = sink.rng()();
  TriangleSamples source(triangles, sink.spacing(), samples_per_h2, sample_seed, sink.threads());
  const std::vector<SurfaceSample> kept =
      thin_samples(source, sink.spacing(), radius_factor, sink.cell(), thinning_seed, sink.threads());
  // Which kept samples bound the part (side) and lie on the whole domain's boundary (CSG): two inside
  // tests each, on the team. on_boundary: 1 as placed, -1 turned, 0 dropped.
  std::vector<signed char> on_boundary(kept.size(), 1);
  if (side || sink.filtering())
    parallel_for(kept.size(), sink.threads(), [&](int, std::size_t k) {
      const Vec<3>& n = triangles[kept[k].item].normal;
      const int s = side ? side(kept[k].pos, n) : 1;
      on_boundary[k] = static_cast<signed char>(s != 0 && sink.keep(kept[k].pos, Vec<3>(double(s) * n)) ? s : 0);
    });
  for (std::size_t k = 0; k < kept.size(); ++k)
    if (on_boundary[k] != 0)
      sink.emit(kept[k].pos, Vec<3>(double(on_boundary[k]) * triangles[kept[k].item].normal), id, surface_priority);
}

template std::vector<double> place_curve<2>(const Curve<2>&, BoundarySink<2>&, PointGrid<2>*);
template std::vector<double> place_curve<3>(const Curve<3>&, BoundarySink<3>&, PointGrid<3>*);
template void place_corner<2>(const Vec<2>&, const Vec<2>&, int, BoundarySink<2>&, PointGrid<2>*,
                              const std::vector<Facet<2>>&);
template void place_corner<3>(const Vec<3>&, const Vec<3>&, int, BoundarySink<3>&, PointGrid<3>*,
                              const std::vector<Facet<3>>&);

}  // namespace nodegen::geometry_detail
