#pragma once
// PointList<D>: points held as one array per coordinate, the layout every distance test of the fill
// runs over; and StoredPoint<D>, a node position as the node store keeps it.
//
// Layout: x[a][i] is coordinate a of point i. A loop over the points then reads D contiguous arrays,
// which the compiler vectorises; an array of Vec<D> would interleave the axes. The fill keeps the
// candidates of the node it expands, the nodes gathered around it and the candidate directions so.
//
// clear_of is the exact test every faster test of the fill must agree with: the squared distance
// summed in axis order, compared with r2. It has no early exit: over a short list a branch-free loop
// beats a data-dependent break.
//
// StoredPoint: Eigen's fixed-size vectors are not trivially copyable, which the stores require, so a
// node is stored as a std::array and converted at the store's edge (to_stored, to_vec).
#include <array>
#include <cstddef>
#include <vector>

#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D>
using StoredPoint = std::array<double, D>;

template <int D>
inline Vec<D> to_vec(const StoredPoint<D>& s) {
  Vec<D> v;
  for (int a = 0; a < D; ++a) v[a] = s[static_cast<std::size_t>(a)];
  return v;
}
template <int D>
inline StoredPoint<D> to_stored(const Vec<D>& v) {
  StoredPoint<D> s;
  for (int a = 0; a < D; ++a) s[static_cast<std::size_t>(a)] = v[a];
  return s;
}

template <int D>
struct PointList {
  std::array<std::vector<double>, D> x;
  std::size_t size() const { return x[0].size(); }
  void clear() {
    for (auto& v : x) v.clear();
  }
  void reserve(std::size_t n) {
    for (auto& v : x) v.reserve(n);
  }
  void push(const Vec<D>& p) {
    for (int a = 0; a < D; ++a) x[static_cast<std::size_t>(a)].push_back(p[a]);
  }
  void resize(std::size_t n) {
    for (auto& v : x) v.resize(n);
  }
  // Point i as a vector.
  Vec<D> at(std::size_t i) const {
    Vec<D> p;
    for (int a = 0; a < D; ++a) p[a] = x[static_cast<std::size_t>(a)][i];
    return p;
  }
  // The points of `pts`, replacing these. Sized first and written by index: push's end pointers live in
  // memory the stores might alias, so a loop of pushes reloads and stores them for every coordinate.
  void assign(const std::vector<Vec<D>>& pts) {
    const std::size_t n = pts.size();
    resize(n);
    for (int a = 0; a < D; ++a) {
      double* out = x[static_cast<std::size_t>(a)].data();
      for (std::size_t i = 0; i < n; ++i) out[i] = pts[i][a];
    }
  }
};

// True when no point of `pts` lies strictly within sqrt(r2) of c.
template <int D>
inline bool clear_of(const Vec<D>& c, const PointList<D>& pts, double r2) {
  const std::size_t n = pts.size();
  const double* px = pts.x[0].data();
  const double* py = pts.x[1].data();
  const double* pz = pts.x[D - 1].data();
  const double cx = c[0], cy = c[1], cz = c[D - 1];
  int hits = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double dx = px[j] - cx, dy = py[j] - cy, dz = D == 3 ? pz[j] - cz : 0.0;
    hits += (dx * dx + dy * dy + dz * dz) < r2;
  }
  return hits == 0;
}

}  // namespace nodegen::fill_detail
