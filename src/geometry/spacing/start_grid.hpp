#pragma once
// Where a point location in a triangulation of samples starts: a uniform grid over the samples' box,
// each cell holding a handle (a face in 2D, a cell in 3D) at or near the cell. A walk from the last
// point found is short while the queries move little, but the fill's tiles follow one another across
// the domain, and a walk from the other side crosses the whole triangulation; a walk from the grid's
// handle crosses a few samples.
//
// Layout: about one grid cell per `samples_per_cell` samples on the box's average density; a cell with
// no sample takes the handle of the nearest cell that has one (breadth-first from every filled cell at
// once, neighbours in a fixed order), so every cell has a start. Which start a walk takes changes how
// far it walks, never where it ends: the interpolant is a function of the point (sample_model.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include <Eigen/Core>

namespace nodegen::spacing_detail {

template <class Handle>
class StartGrid {
 public:
  StartGrid() = default;

  // `points[i]` the position of sample i (z = 0 in 2D), `handle_of(i)` a handle incident to it.
  template <class HandleOf>
  StartGrid(const std::vector<Eigen::Vector3d>& points, int dim, double samples_per_cell, HandleOf handle_of) {
    if (points.empty()) return;
    dim_ = dim;
    lo_ = hi_ = points.front();
    for (const auto& p : points) {
      lo_ = lo_.cwiseMin(p);
      hi_ = hi_.cwiseMax(p);
    }
    size_cells(points.size(), samples_per_cell);
    cells_.assign(cell_count(), Handle());
    std::vector<std::uint8_t> filled(cells_.size(), 0);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::size_t c = cell_of(points[i]);
      if (!filled[c]) cells_[c] = handle_of(i), filled[c] = 1;  // the first sample of a cell names it
    }
    spread(filled);
  }

  // The start for a walk to p: the handle of p's cell (p outside the box: the nearest cell).
  Handle at(const Eigen::Vector3d& p) const { return cells_.empty() ? Handle() : cells_[cell_of(p)]; }
  // Whether a walk from a point found at `from` to p is likely no longer than one from p's grid start:
  // they are within three cells' sides of each other.
  bool near(const Eigen::Vector3d& from, const Eigen::Vector3d& p) const { return (p - from).squaredNorm() <= 9.0 * side2_; }

 private:
  std::size_t cell_of(const Eigen::Vector3d& p) const {
    std::size_t c = 0;
    for (int k = dim_ - 1; k >= 0; --k) {
      const double t = std::min((p[k] - lo_[k]) * inverse_[k], static_cast<double>(n_[k] - 1));  // far beyond: the last
      const auto i = t > 0 ? static_cast<std::size_t>(t) : std::size_t{0};  // NaN -> 0
      c = c * n_[k] + i;
    }
    return c;
  }

  // The cell side from the extent of the axes the samples spread along: an axis thinner than a cell
  // (samples in a plane, a slab) gets one cell and leaves the others the cells, so the grid has about
  // samples / samples_per_cell cells (at most 4 samples' worth) whatever the samples' shape.
  void size_cells(std::size_t samples, double samples_per_cell) {
    const Eigen::Vector3d extent = hi_ - lo_;
    const double cells = std::max(1.0, static_cast<double>(samples) / samples_per_cell);
    bool spread[3] = {false, false, false};
    for (int k = 0; k < dim_; ++k) spread[k] = extent[k] > 0;
    double side = 0.0;
    for (bool changed = true; changed;) {
      double volume = 1.0;
      int axes = 0;
      for (int k = 0; k < dim_; ++k)
        if (spread[k]) volume *= extent[k], ++axes;
      side = axes > 0 ? std::pow(volume / cells, 1.0 / axes) : 0.0;
      changed = false;
      for (int k = 0; k < dim_; ++k)
        if (spread[k] && extent[k] < side) spread[k] = false, changed = true;
    }
    side2_ = side * side;
    const double most = 4.0 * static_cast<double>(samples) + 1.0;
    double total = 1.0;
    for (int k = 0; k < 3; ++k) {
      n_[k] = 1;
      inverse_[k] = 0.0;
      if (k >= dim_ || !spread[k] || !(side > 0)) continue;
      n_[k] = static_cast<std::size_t>(std::clamp(std::ceil(extent[k] / side), 1.0, std::max(1.0, most / total)));
      total *= static_cast<double>(n_[k]);
      inverse_[k] = static_cast<double>(n_[k]) / extent[k];
    }
  }
  std::size_t cell_count() const { return n_[0] * n_[1] * n_[2]; }

  // Breadth-first from every filled cell: an empty cell takes the handle of the cell it was reached from.
  void spread(std::vector<std::uint8_t>& filled) {
    std::deque<std::size_t> queue;
    for (std::size_t c = 0; c < cells_.size(); ++c)
      if (filled[c]) queue.push_back(c);
    const std::array<std::size_t, 3> stride{1, n_[0], n_[0] * n_[1]};
    while (!queue.empty()) {
      const std::size_t c = queue.front();
      queue.pop_front();
      for (int k = 0; k < dim_; ++k) {
        const std::size_t i = (c / stride[k]) % n_[k];
        for (int side = 0; side < 2; ++side) {
          if (side == 0 ? i == 0 : i + 1 == n_[k]) continue;
          const std::size_t m = side == 0 ? c - stride[k] : c + stride[k];
          if (filled[m]) continue;
          filled[m] = 1;
          cells_[m] = cells_[c];
          queue.push_back(m);
        }
      }
    }
  }

  int dim_ = 2;
  Eigen::Vector3d lo_ = Eigen::Vector3d::Zero(), hi_ = Eigen::Vector3d::Zero();
  std::array<std::size_t, 3> n_{1, 1, 1};
  std::array<double, 3> inverse_{0.0, 0.0, 0.0};
  double side2_ = 0.0;
  std::vector<Handle> cells_;
};

}  // namespace nodegen::spacing_detail
