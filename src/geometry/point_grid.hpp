#pragma once
// A hashed uniform grid of points answering "is any stored point closer than r to q". Used while
// placing boundary nodes (one thread, a few 1e5 points), where a plain hash grid is simpler than the
// concurrent k-d tree and just as fast.
#include <array>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <nodegen/spatial/point.hpp>

namespace nodegen::geometry_detail {

// FNV-1a over a cell's integer coordinates: the hash of a grid cell, for the hash grids of boundary
// placement.
template <std::size_t D>
inline std::uint64_t cell_hash(const std::array<std::int64_t, D>& c) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::int64_t x : c) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ull;
  return h;
}

template <int D>
class PointGrid {
 public:
  explicit PointGrid(double cell) : cell_(cell), inv_(1.0 / cell) {}

  void insert(const Vec<D>& p) { cells_[key(coords(p))].push_back(p); }

  bool any_within(const Vec<D>& q, double r) const {
    // Only the cells the ball's bounding box overlaps: with r below the cell size that is 2 per axis
    // (8 cells in 3D) rather than the 3 per axis (27) of "the cell of q and its neighbours".
    std::array<std::int64_t, D> lo, hi, k;
    for (int i = 0; i < D; ++i) {
      lo[i] = coord(q[i] - r);
      hi[i] = coord(q[i] + r);
    }
    const double r2 = r * r;
    k = lo;
    for (;;) {
      auto it = cells_.find(key(k));
      if (it != cells_.end())
        for (const auto& p : it->second)
          if ((p - q).squaredNorm() < r2) return true;
      int i = 0;
      while (i < D && k[i] == hi[i]) k[i] = lo[i], ++i;
      if (i == D) return false;
      ++k[i];
    }
  }

  double cell() const { return cell_; }

 private:
  std::int64_t coord(double x) const { return static_cast<std::int64_t>(std::floor(x * inv_)); }
  std::array<std::int64_t, D> coords(const Vec<D>& p) const {
    std::array<std::int64_t, D> c;
    for (int i = 0; i < D; ++i) c[i] = coord(p[i]);
    return c;
  }
  static std::uint64_t key(const std::array<std::int64_t, D>& c) { return cell_hash(c); }

  double cell_, inv_;
  std::unordered_map<std::uint64_t, std::vector<Vec<D>>> cells_;
};

}  // namespace nodegen::geometry_detail
