// Nodes along a parametric curve at equal steps of the integral of ds/h (boundary_fill.hpp), and
// corners. Where the sink filters (a CSG boundary), the curve's kept stretches end in junction nodes
// found by bisection, and in 2D each kept stretch is re-spaced between its ends so the spacing stays h
// up to the junction.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>

#include "geometry/boundary/bisect.hpp"
#include "geometry/boundary/boundary_fill.hpp"

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

// One curve's placement: its nodes' parameters, which of them the sink keeps, the junctions where the
// curve stops or starts being on the combined boundary, and the nodes emitted.
template <int D>
class CurvePlacer {
 public:
  CurvePlacer(const Curve<D>& c, BoundarySink<D>& sink) : c_(c), sink_(sink) {}

  // The nodes' parameters (placed()); false when the curve stays away from the sink's region.
  bool place_parameters();
  // Which placed nodes the sink keeps; each placed node recorded in `occupied`.
  void test_kept(PointGrid<D>* occupied) {
    kept_.resize(placed_.size());
    for (std::size_t i = 0; i < placed_.size(); ++i) {
      if (occupied) occupied->insert(c_.point(placed_[i]));
      kept_[i] = keep_at(placed_[i]);
    }
  }
  void emit_placed() {
    for (std::size_t i = 0; i < placed_.size(); ++i)
      if (kept_[i]) emit_at(placed_[i]);
  }
  // Wherever consecutive nodes (or an end point) disagree about being on the boundary: (unwrapped
  // parameter, curve is kept after it). `start_kept`: whether an open curve is kept at t0.
  std::vector<std::pair<double, bool>> junctions(bool& start_kept);
  void emit_junction_at(double t) { sink_.emit_junction(c_.point(wrap(t)), c_.normal(wrap(t)), c_.id_of(wrap(t))); }
  // 2D: re-spaces each kept stretch between its ends and junctions.
  void respace(const std::vector<std::pair<double, bool>>& junctions, bool start_kept);
  const std::vector<double>& placed() const { return placed_; }

 private:
  bool keep_at(double t) { return sink_.keep(c_.point(t), c_.normal(t)); }
  // A kept node; a sharp edge's gets the combined solid's normal and id.
  void emit_at(double t) {
    Vec<D> p = c_.point(t);
    const Vec<D> n = c_.normal(t);
    const int id = c_.id_of(t);
    auto [normal, part] = c_.facets ? sink_.feature_normal(p, n, id, c_.facets(t)) : std::pair(n, id);
    // Finished after the filters' probes, which test the curve where its faces are (a lifted node lies
    // off them); the combined solid's normal, where it differs from the curve's own, stays.
    if (c_.finish) {
      Vec<D> exact = n;
      c_.finish(t, p, exact);
      if (normal == n) normal = exact;
    }
    sink_.emit(p, normal, part, c_.priority);
  }
  // Parameters of closed curves are unwrapped here (they may exceed t1 by up to one period).
  double wrap(double t) const { return c_.closed && t > c_.t1 ? t - (c_.t1 - c_.t0) : t; }
  // The integral of ds/h from t0 to the (unwrapped) parameter t.
  double forward(double t) const {
    const double extra = t > c_.t1 ? total_ : 0.0;
    const double x = wrap(t);
    auto it = std::upper_bound(ts_.begin(), ts_.end(), x);
    if (it == ts_.begin()) return extra;
    if (it == ts_.end()) return extra + total_;
    const auto i = static_cast<std::size_t>(it - ts_.begin());
    return extra + f_[i - 1] + (f_[i] - f_[i - 1]) * (x - ts_[i - 1]) / (ts_[i] - ts_[i - 1]);
  }
  void stretch(double a, double b, bool a_junction, bool b_junction) {
    const double fa = forward(a), fb = forward(b);
    const long m = std::max(1L, std::lround(fb - fa));
    for (long i = 1; i < m; ++i) {
      const double s = fa + (fb - fa) * i / m;
      const double t = s > total_ ? invert(ts_, f_, s - total_) : invert(ts_, f_, s);
      emit_at(t);
    }
    if (a_junction) emit_junction_at(a);
    if (b_junction) emit_junction_at(b);
  }

  const Curve<D>& c_;
  BoundarySink<D>& sink_;
  std::vector<double> ts_, f_;  // parameters of the chords' ends, and the integral of ds/h there
  double total_ = 0.0;          // the integral over the whole curve
  std::vector<double> placed_;
  std::vector<char> kept_;
};

template <int D>
bool CurvePlacer<D>::place_parameters() {
  // Only the stretches that come near the region where nodes can be kept (BoundarySink::region) get
  // theirs, at the places they have on the whole curve (in 3D the faces are seeded from them, and
  // fill_patch keeps to the region too).
  std::optional<StretchesNear<D>> near;
  if (sink_.region()) near = StretchesNear<D>{*sink_.region(), {}};
  integrate_steps(c_, sink_, 256, ts_, f_, near ? &*near : nullptr);
  if (near && near->stretches.empty()) {
    // The phase below, drawn all the same: the parts placed later keep their random streams.
    if (c_.closed) std::uniform_real_distribution<double>(0.0, 1.0)(sink_.rng());
    return false;
  }
  // Enough chords that each node step spans at least 16 of them.
  const int k = static_cast<int>(std::clamp(16.0 * f_.back(), 256.0, 4e6));
  integrate_steps(c_, sink_, k, ts_, f_, near ? &*near : nullptr);
  total_ = f_.back();
  const long n = c_.closed ? std::max(3L, std::lround(total_)) : std::max(1L, std::lround(total_));
  // The nodes i of [first, n) are at the integral (i + phase) * total / n (a closed curve's random
  // phase, so closed curves do not all start at the same angle), or i * total / n.
  const double phase = c_.closed ? std::uniform_real_distribution<double>(0.0, 1.0)(sink_.rng()) : 0.0;
  const long first = c_.closed ? 0 : 1;
  const std::vector<std::pair<double, double>> stretches =
      near ? near->stretches : std::vector{std::pair{0.0, total_}};
  std::vector<std::pair<long, long>> ranges;  // node index ranges [from, to)
  double count = 0.0;
  for (const auto& [s0, s1] : stretches) {
    const long from = std::max(first, static_cast<long>(std::ceil(s0 * n / total_ - phase)));
    const long to = std::min(n, static_cast<long>(std::floor(s1 * n / total_ - phase)) + 1);
    if (from >= to) continue;
    ranges.emplace_back(from, to);
    count += static_cast<double>(to - from);
  }
  sink_.check_count(count);
  for (const auto& [from, to] : ranges)
    for (long i = from; i < to; ++i) placed_.push_back(invert(ts_, f_, (i + phase) * total_ / n));
  return true;
}

template <int D>
std::vector<std::pair<double, bool>> CurvePlacer<D>::junctions(bool& start_kept) {
  const double period = c_.t1 - c_.t0;
  std::vector<std::pair<double, bool>> seq;
  if (!c_.closed) seq.emplace_back(c_.t0, keep_at(c_.t0));
  for (std::size_t i = 0; i < placed_.size(); ++i) seq.emplace_back(placed_[i], kept_[i] != 0);
  if (!c_.closed) seq.emplace_back(c_.t1, keep_at(c_.t1));
  else if (!placed_.empty()) seq.emplace_back(placed_.front() + period, kept_.front() != 0);
  start_kept = !seq.empty() && seq.front().second;
  std::vector<std::pair<double, bool>> found;
  for (std::size_t i = 0; i + 1 < seq.size(); ++i) {
    if (seq[i].second == seq[i + 1].second) continue;
    const double t = bisect(seq[i].first, seq[i + 1].first, seq[i].second, [&](double x) { return keep_at(wrap(x)); });
    found.emplace_back(t, seq[i + 1].second);
  }
  return found;
}

template <int D>
void CurvePlacer<D>::respace(const std::vector<std::pair<double, bool>>& junctions, bool start_kept) {
  if (!c_.closed) {
    bool on = start_kept;
    double start = c_.t0;
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
    if (on) stretch(start, c_.t1, start_is_junction, false);
    return;
  }
  // Transitions alternate around a closed curve: each "enters" is followed by a "leaves".
  const double period = c_.t1 - c_.t0;
  for (std::size_t i = 0; i < junctions.size(); ++i) {
    if (!junctions[i].second) continue;
    const auto& next = junctions[(i + 1) % junctions.size()];
    double b = next.first;
    while (b <= junctions[i].first) b += period;
    stretch(junctions[i].first, b, true, true);
  }
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
  CurvePlacer<D> curve(c, sink);
  if (!curve.place_parameters()) return {};
  curve.test_kept(occupied);
  if (!sink.filtering()) {
    curve.emit_placed();
    return curve.placed();
  }
  bool start_kept = false;
  const std::vector<std::pair<double, bool>> junctions = curve.junctions(start_kept);
  if (D == 3 || junctions.empty()) {
    // Surfaces are seeded from `placed`, so in 3D the edge keeps its nodes and only gains junctions.
    curve.emit_placed();
    for (const auto& j : junctions) curve.emit_junction_at(j.first);
    return curve.placed();
  }
  // 2D: re-space each kept stretch of the curve between its ends and junctions, so the spacing stays h
  // right up to the junction instead of leaving a gap of up to 2h there.
  curve.respace(junctions, start_kept);
  return curve.placed();
}

template std::vector<double> place_curve<2>(const Curve<2>&, BoundarySink<2>&, PointGrid<2>*);
template std::vector<double> place_curve<3>(const Curve<3>&, BoundarySink<3>&, PointGrid<3>*);
template void place_corner<2>(const Vec<2>&, const Vec<2>&, int, BoundarySink<2>&, PointGrid<2>*,
                              const std::vector<Facet<2>>&);
template void place_corner<3>(const Vec<3>&, const Vec<3>&, int, BoundarySink<3>&, PointGrid<3>*,
                              const std::vector<Facet<3>>&);

}  // namespace nodegen::geometry_detail
