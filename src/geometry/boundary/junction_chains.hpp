#pragma once
// Which of many points found on curves to keep, so the kept ones follow each curve at about 0.9 h.
//
// A CSG junction curve in 3D (where a face stops being on the combined boundary) is found point by point:
// every step of a face's advancing front that crosses it gives one, dozens per spacing, in the order the
// fronts ran. Kept in that order, dropping those within 0.9 h of one kept (random sequential adsorption
// on a line), consecutive nodes sat 0.9 to 1.8 h apart and stretches of the curve lay 0.8 h from any
// node. Here the kept points are chained: from the first point (in the order found) that no kept point
// covers (lies within 0.9 h of), the next kept is always the nearest uncovered point within 2 h of the
// last, which lies just beyond 0.9 h along the curve; where none is, the chain turns back to run from
// its start the other way, and then the next chain starts at the first uncovered point. A closed curve
// keeps one gap of 0.9 to 1.8 h where its chain meets its start. The result depends only on the points
// and their order (ties: the lower index).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include <nodegen/spatial/point.hpp>

#include "geometry/boundary/point_grid.hpp"

namespace nodegen::geometry_detail {

namespace junction_detail {

// The points' indices by grid cell of edge `cell`, for the searches of space_along_chains.
template <int D>
class IndexGrid {
 public:
  IndexGrid(const std::vector<Vec<D>>& points, double cell) : points_(points), inv_(1.0 / cell) {
    for (std::size_t i = 0; i < points.size(); ++i) cells_[key(coords(points[i]))].push_back(static_cast<std::uint32_t>(i));
  }
  // Calls f(i) for every point within r of p (and maybe a few beyond).
  template <class F>
  void near(const Vec<D>& p, double r, F&& f) const {
    std::array<std::int64_t, D> lo = coords(p - Vec<D>::Constant(r)), hi = coords(p + Vec<D>::Constant(r)), k = lo;
    double cells = 1.0;
    for (int a = 0; a < D; ++a) cells *= static_cast<double>(hi[a] - lo[a]) + 1.0;
    if (cells > static_cast<double>(points_.size())) {  // a radius far wider than the cells: every point
      for (std::size_t i = 0; i < points_.size(); ++i) f(i);
      return;
    }
    for (;;) {
      if (const auto found = cells_.find(key(k)); found != cells_.end())
        for (const std::uint32_t i : found->second) f(static_cast<std::size_t>(i));
      int a = 0;
      while (a < D && k[a] == hi[a]) k[a] = lo[a], ++a;
      if (a == D) return;
      ++k[a];
    }
  }

 private:
  std::array<std::int64_t, D> coords(const Vec<D>& p) const {
    std::array<std::int64_t, D> c;
    for (int a = 0; a < D; ++a) c[a] = static_cast<std::int64_t>(std::clamp(std::floor(p[a] * inv_), -1e15, 1e15));
    return c;
  }
  static std::uint64_t key(const std::array<std::int64_t, D>& c) { return cell_hash<D>(c); }

  const std::vector<Vec<D>>& points_;
  double inv_;
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> cells_;  // hash collisions only add points
};

}  // namespace junction_detail

// The indices of the points to keep, in the order kept. h(p): the spacing at p; cell: about the least h.
template <int D, class Spacing>
std::vector<std::size_t> space_along_chains(const std::vector<Vec<D>>& points, double cell, Spacing h) {
  constexpr double kApart = 0.9, kReach = 2.0;
  const junction_detail::IndexGrid<D> grid(points, cell);
  std::vector<char> covered(points.size(), 0);
  std::vector<std::size_t> kept;
  auto keep = [&](std::size_t k) {
    kept.push_back(k);
    const double r = kApart * h(points[k]);
    grid.near(points[k], r, [&](std::size_t i) {
      if ((points[i] - points[k]).norm() < r) covered[i] = 1;
    });
    covered[k] = 1;
  };
  for (std::size_t start = 0; start < points.size(); ++start) {
    if (covered[start]) continue;
    keep(start);
    // Along the curve one way from the start, then the other way (the start may lie inside a curve).
    for (int way = 0; way < 2; ++way)
      for (std::size_t last = start;;) {
        const double reach = kReach * h(points[last]);
        std::size_t next = points.size();
        double best = std::numeric_limits<double>::infinity();
        grid.near(points[last], reach, [&](std::size_t i) {
          if (covered[i]) return;
          const double d = (points[i] - points[last]).norm();
          if (d < reach && (d < best || (d == best && i < next))) best = d, next = i;
        });
        if (next == points.size()) break;
        last = next;
        keep(last);
      }
  }
  return kept;
}

}  // namespace nodegen::geometry_detail
