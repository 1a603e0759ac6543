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

template <int D>
class PointGrid {
 public:
  explicit PointGrid(double cell) : cell_(cell), inv_(1.0 / cell) {}

  void insert(const Vec<D>& p) { cells_[key(coords(p))].push_back(p); }

  bool any_within(const Vec<D>& q, double r) const {
    const auto c = coords(q);
    const int reach = static_cast<int>(std::ceil(r * inv_));
    const double r2 = r * r;
    std::array<std::int64_t, D> k{};
    // Visits the (2 reach + 1)^D neighbouring cells.
    return visit(c, reach, 0, k, [&](const std::vector<Vec<D>>& pts) {
      for (const auto& p : pts)
        if ((p - q).squaredNorm() < r2) return true;
      return false;
    });
  }

  double cell() const { return cell_; }

 private:
  std::array<std::int64_t, D> coords(const Vec<D>& p) const {
    std::array<std::int64_t, D> c;
    for (int i = 0; i < D; ++i) c[i] = static_cast<std::int64_t>(std::floor(p[i] * inv_));
    return c;
  }
  static std::uint64_t key(const std::array<std::int64_t, D>& c) {
    std::uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < D; ++i) h = (h ^ static_cast<std::uint64_t>(c[i])) * 1099511628211ull;
    return h;
  }
  template <class F>
  bool visit(const std::array<std::int64_t, D>& c, int reach, int dim, std::array<std::int64_t, D>& k, F&& f) const {
    if (dim == D) {
      auto it = cells_.find(key(k));
      return it != cells_.end() && f(it->second);
    }
    for (std::int64_t d = -reach; d <= reach; ++d) {
      k[dim] = c[dim] + d;
      if (visit(c, reach, dim + 1, k, f)) return true;
    }
    return false;
  }

  double cell_, inv_;
  std::unordered_map<std::uint64_t, std::vector<Vec<D>>> cells_;
};

}  // namespace nodegen::geometry_detail
