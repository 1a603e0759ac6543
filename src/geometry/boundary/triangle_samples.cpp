// Area-weighted random samples of a triangle mesh, drawn piece by piece (see triangle_samples.hpp).
#include "geometry/boundary/triangle_samples.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <Eigen/Geometry>

#include "nodegen/storage/splitmix.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "geometry/boundary/surface_spacing.hpp"

namespace nodegen::geometry_detail {
namespace {

// A SplitMix64 stream (storage/splitmix.hpp): its whole state is one word, so every piece can start its
// own for the price of a few multiplications (a Mersenne twister per piece would need 2.5 KB of state
// and a 312-word seeding loop).
class SplitMix {
 public:
  explicit SplitMix(std::uint64_t state) : state_(state) {}
  double unit() {  // [0, 1)
    const std::uint64_t bits = mix64(state_);
    state_ += kSplitMixGamma;
    return unit_uniform(bits);
  }

 private:
  std::uint64_t state_;
};

// The box of the square o + [0, c] u + [0, c] v.
Box<3> square_box(const Vec<3>& o, const Vec<3>& u, const Vec<3>& v, double c) {
  Box<3> box{o, o};
  for (const Vec<3>& p : {Vec<3>(o + c * u), Vec<3>(o + c * v), Vec<3>(o + c * (u + v))}) {
    box.lo = box.lo.cwiseMin(p);
    box.hi = box.hi.cwiseMax(p);
  }
  return box;
}

bool overlap(const Box<3>& x, const Box<3>& y) {
  return (x.lo.array() <= y.hi.array()).all() && (y.lo.array() <= x.hi.array()).all();
}

}  // namespace

TriangleSamples::TriangleSamples(const std::vector<WorldTriangle>& triangles, const Spacing& spacing, double per_h2,
                                 std::uint64_t seed, int threads)
    : triangles_(triangles), per_h2_(per_h2), seed_(seed), threads_(std::max(1, threads)) {
  threads = threads_;
  h_ = spacing.evaluators(threads);
  std::vector<std::pair<double, double>> part(static_cast<std::size_t>(threads),
                                              {std::numeric_limits<double>::infinity(), 0.0});
  parallel_for(triangles.size(), threads, [&](int t, std::size_t i) {
    const WorldTriangle& tri = triangles[i];
    auto& [lo, hi] = part[static_cast<std::size_t>(t)];
    for (const Vec<3>& p : {tri.a, tri.b, tri.c, Vec<3>((tri.a + tri.b + tri.c) / 3.0)}) {
      const double hp = checked_surface_spacing(h_[static_cast<std::size_t>(t)](p));
      lo = std::min(lo, hp);
      hi = std::max(hi, hp);
    }
  });
  range_ = part.front();
  for (const auto& [lo, hi] : part) range_ = {std::min(range_.first, lo), std::max(range_.second, hi)};
}

double TriangleSamples::Frame::top(double t) const {
  if (t <= apex_t) return apex_t > 0.0 ? apex_n * t / apex_t : apex_n;
  return length > apex_t ? apex_n * (length - t) / (length - apex_t) : apex_n;
}

TriangleSamples::Frame TriangleSamples::frame(std::uint32_t triangle) const {
  const WorldTriangle& tri = triangles_[triangle];
  // Corners rotated so that ab is the longest edge: c's foot on it then lies between a and b.
  Vec<3> a = tri.a, b = tri.b, c = tri.c;
  const double ab = (b - a).squaredNorm(), bc = (c - b).squaredNorm(), ca = (a - c).squaredNorm();
  if (bc > ab && bc >= ca) a = tri.b, b = tri.c, c = tri.a;
  else if (ca > ab && ca > bc) a = tri.c, b = tri.a, c = tri.b;
  Frame f;
  f.a = a;
  f.length = (b - a).norm();
  f.u = (b - a) / f.length;
  f.apex_t = std::clamp((c - a).dot(f.u), 0.0, f.length);
  const Vec<3> across = (c - a) - f.apex_t * f.u;
  f.apex_n = across.norm();
  f.v = across / f.apex_n;
  return f;
}

// The box of a piece is the box of a square cell of edge cell() in 3D: at most sqrt(2) cell() wide.
double TriangleSamples::cell() const { return piece_ / std::numbers::sqrt2; }

void TriangleSamples::set_piece_size(double size) {
  piece_ = size;
  const double c = cell();
  // Per thread, the cells of a contiguous range of triangles; joined in triangle order, so the list
  // does not depend on the thread count.
  std::vector<std::vector<PieceName>> part(static_cast<std::size_t>(team_for(triangles_.size(), threads_)));
  parallel_ranges(triangles_.size(), threads_, [&](int t, std::size_t begin, std::size_t end) {
    auto& out = part[static_cast<std::size_t>(t)];
    for (std::size_t i = begin; i < end; ++i) {
      const Frame f = frame(static_cast<std::uint32_t>(i));
      // Corners in a line up to rounding (or NaN): no area to sample, and no direction across it.
      if (!(f.apex_n > 1e-12 * f.length)) continue;
      const auto columns = static_cast<std::uint32_t>(std::ceil(f.length / c));
      for (std::uint32_t col = 0; col < columns; ++col) {
        const double t0 = col * c, t1 = std::min(t0 + c, f.length);
        // The column's highest point: an end of its stretch, or the apex.
        const double high = (f.apex_t >= t0 && f.apex_t <= t1) ? f.apex_n : std::max(f.top(t0), f.top(t1));
        const auto rows = std::max<std::uint32_t>(1, static_cast<std::uint32_t>(std::ceil(high / c)));
        for (std::uint32_t row = 0; row < rows; ++row) out.push_back({static_cast<std::uint32_t>(i), col, row});
      }
    }
  });
  pieces_.clear();
  for (const auto& p : part) pieces_.insert(pieces_.end(), p.begin(), p.end());
}

void TriangleSamples::pieces(std::size_t item, const std::function<void(const Box<3>&)>& box) const {
  const PieceName name = pieces_[item];
  const Frame f = frame(name.triangle);
  const double c = cell(), t0 = name.column * c, n0 = name.row * c;
  box(square_box(f.a + t0 * f.u + n0 * f.v, f.u, f.v, c));
}

void TriangleSamples::samples(std::size_t item, const Box<3>& region, int thread, std::vector<SurfaceSample>& out) const {
  const PieceName name = pieces_[item];
  const Frame f = frame(name.triangle);
  const double c = cell(), t0 = name.column * c, n0 = name.row * c;
  if (!overlap(square_box(f.a + t0 * f.u + n0 * f.v, f.u, f.v, c), region)) return;
  SplitMix rng(splitmix_finalize(splitmix_finalize(seed_ ^ (0xD6E8FEB86659FD93ull * (name.triangle + 1ull))) ^
                                 (std::uint64_t{name.column} << 32 | name.row)));
  const double tm = t0 + 0.5 * c, mid_t = std::min(tm, f.length);
  const Vec<3> middle = f.a + mid_t * f.u + std::min(n0 + 0.5 * c, f.top(mid_t)) * f.v;  // in the triangle
  const double h = checked_surface_spacing(h_[static_cast<std::size_t>(thread)](middle));
  const double expected = per_h2_ * c * c / (h * h);
  auto count = static_cast<std::size_t>(expected);
  if (rng.unit() < expected - static_cast<double>(count)) ++count;
  for (std::size_t i = 0; i < count; ++i) {
    const double t = t0 + c * rng.unit(), n = n0 + c * rng.unit();
    if (t <= f.length && n <= f.top(t)) out.push_back({f.a + t * f.u + n * f.v, name.triangle});
  }
}

}  // namespace nodegen::geometry_detail
