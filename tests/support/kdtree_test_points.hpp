#pragma once
// Point sets and brute-force answers shared by the k-d tree suites.
//   random:  uniform in the unit box.
//   clustered: a few tight Gaussian clusters of very different widths, far apart (empty cells, deep
//            chains of one-sided splits).
//   front:   a jittered lattice (quasi-uniform, like generated nodes) ordered by distance from a
//            corner, i.e. inserted as an advancing front sweeps the box.
//   sweep:   the same lattice sorted by x: the worst order for a median-split tree.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "nodegen/spatial/point.hpp"

namespace nodegen::test {

enum class PointOrder { random, clustered, front, sweep };

inline const char* order_name(PointOrder o) {
  switch (o) {
    case PointOrder::random: return "random";
    case PointOrder::clustered: return "clustered";
    case PointOrder::front: return "front";
    case PointOrder::sweep: return "sweep";
  }
  return "?";
}

template <int D>
std::vector<Vec<D>> jittered_lattice(std::size_t n, std::mt19937_64& rng) {
  const int side = static_cast<int>(std::ceil(std::pow(static_cast<double>(n), 1.0 / D)));
  const double h = 1.0 / side;
  std::uniform_real_distribution<double> jitter(-0.3 * h, 0.3 * h);
  std::vector<Vec<D>> pts;
  pts.reserve(n);
  int index[3] = {0, 0, 0};
  while (pts.size() < n) {
    Vec<D> p;
    for (int d = 0; d < D; ++d) p[d] = (index[d] + 0.5) * h + jitter(rng);
    pts.push_back(p);
    for (int d = 0; d < D; ++d) {
      if (++index[d] < side) break;
      index[d] = 0;
    }
  }
  return pts;
}

template <int D>
std::vector<Vec<D>> make_points(PointOrder order, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<Vec<D>> pts;
  pts.reserve(n);
  switch (order) {
    case PointOrder::random:
      for (std::size_t i = 0; i < n; ++i) {
        Vec<D> p;
        for (int d = 0; d < D; ++d) p[d] = unit(rng);
        pts.push_back(p);
      }
      break;
    case PointOrder::clustered: {
      const double widths[] = {1e-1, 1e-3, 1e-5, 3e-2};
      const double centres[] = {-50.0, 0.25, 7.0, 1000.0};
      std::normal_distribution<double> gauss(0.0, 1.0);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t c = rng() % 4;
        Vec<D> p;
        for (int d = 0; d < D; ++d) p[d] = centres[c] * (d == 0 ? 1.0 : 0.5) + widths[c] * gauss(rng);
        pts.push_back(p);
      }
      break;
    }
    case PointOrder::front:
      pts = jittered_lattice<D>(n, rng);
      std::sort(pts.begin(), pts.end(), [](const Vec<D>& a, const Vec<D>& b) {
        return a.squaredNorm() < b.squaredNorm();
      });
      break;
    case PointOrder::sweep:
      pts = jittered_lattice<D>(n, rng);
      std::sort(pts.begin(), pts.end(), [](const Vec<D>& a, const Vec<D>& b) { return a[0] < b[0]; });
      break;
  }
  return pts;
}

// Query points: half near data points (offsets from 1e-6 to 1e-2, so tight clusters get queries that
// land inside them), half uniform in the data's bounding box.
template <int D>
std::vector<Vec<D>> make_queries(const std::vector<Vec<D>>& pts, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> gauss(0.0, 1.0);
  Vec<D> lo = pts.front(), hi = pts.front();
  for (const auto& p : pts) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const double offsets[] = {1e-6, 1e-4, 1e-2};
  std::vector<Vec<D>> qs;
  for (std::size_t i = 0; i < n; ++i) {
    Vec<D> q;
    if (i % 2 == 0) {
      const Vec<D>& base = pts[rng() % pts.size()];
      const double s = offsets[rng() % 3];
      for (int d = 0; d < D; ++d) q[d] = base[d] + s * gauss(rng);
    } else {
      for (int d = 0; d < D; ++d) q[d] = lo[d] + unit(rng) * (hi[d] - lo[d]);
    }
    qs.push_back(q);
  }
  return qs;
}

// All (id, distance) sorted by distance then id; id = index in pts.
template <int D>
std::vector<std::pair<std::uint32_t, double>> all_by_distance(const std::vector<Vec<D>>& pts,
                                                              std::size_t count, const Vec<D>& q) {
  std::vector<std::pair<std::uint32_t, double>> out;
  out.reserve(count);
  for (std::size_t i = 0; i < count; ++i) out.emplace_back(static_cast<std::uint32_t>(i), (pts[i] - q).norm());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.second < b.second || (a.second == b.second && a.first < b.first);
  });
  return out;
}

// Distances computed by the tree and by brute force may differ in the last bit (fused multiply-add,
// summation order), so boundary decisions are compared with this relative slack.
inline bool near_equal(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

}  // namespace nodegen::test
