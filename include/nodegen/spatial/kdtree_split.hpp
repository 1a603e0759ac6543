#pragma once
// Where a full leaf splits: at the midpoint of its cell along the cell's longest side.
//
// Why midpoints and not medians: a median split makes the tree shape depend on insertion order, and
// advancing-front order (each new point next to the previous ones) turns median splits of bucket
// leaves into a chain as deep as n / B. Midpoint splits of the cell make the tree a function of the
// point set alone (plus the root cell), so front order builds the same tree as random order; for
// quasi-uniform node sets (what node generation produces) the leaves' cells are all about the same
// size and the depth is log2(n / B) plus a constant. Splitting the longest side keeps every cell's
// aspect ratio at most 2, which keeps radius queries touching few leaves.
//
// When every point of the leaf lies on one side of the midpoint (clustered data), the plan records
// that step (the other side becomes an empty leaf) and halves again, until a step separates them.
#include <cstdint>

#include "nodegen/spatial/kdtree_layout.hpp"

namespace nodegen::spatial_detail {

struct SplitStep {
  int dim;
  double split;
  int full_side;  // for steps before the last: the side that receives every point (the other is empty)
};

// Plans the split of n points x[d][i] lying in `cell`. Writes at most max_steps steps and returns how
// many; the last step separates the points (both sides non-empty). Returns -1 if no plan exists
// within max_steps or the cell cannot be halved any more in floating point (the points coincide).
template <int D, int B>
int plan_split(const double (&x)[D][B], int n, Cell<D> cell, int max_steps, SplitStep* steps) {
  for (int k = 0; k < max_steps; ++k) {
    int dim = 0;
    for (int d = 1; d < D; ++d)
      if (cell.hi[d] - cell.lo[d] > cell.hi[dim] - cell.lo[dim]) dim = d;
    const double mid = 0.5 * cell.lo[dim] + 0.5 * cell.hi[dim];
    if (!(cell.lo[dim] < mid && mid < cell.hi[dim])) return -1;
    int left = 0;
    for (int i = 0; i < n; ++i) left += x[dim][i] < mid ? 1 : 0;
    if (left > 0 && left < n) {
      steps[k] = {dim, mid, -1};
      return k + 1;
    }
    const int full = left == n ? 0 : 1;
    steps[k] = {dim, mid, full};
    (full == 0 ? cell.hi[dim] : cell.lo[dim]) = mid;
  }
  return -1;
}

// The cell a root leaf gets when it first splits: a cube centred on the points' bounding box with
// twice its longest extent, so every point is strictly inside. Points that later fall outside grow
// the root (see KdTree::grow_root). Returns false when the points coincide.
template <int D, int B>
bool root_cell_around(const double (&x)[D][B], int n, Cell<D>& cell) {
  double lo[D], hi[D];
  for (int d = 0; d < D; ++d) {
    lo[d] = hi[d] = x[d][0];
    for (int i = 1; i < n; ++i) {
      lo[d] = x[d][i] < lo[d] ? x[d][i] : lo[d];
      hi[d] = x[d][i] > hi[d] ? x[d][i] : hi[d];
    }
  }
  double extent = 0;
  for (int d = 0; d < D; ++d) extent = hi[d] - lo[d] > extent ? hi[d] - lo[d] : extent;
  if (!(extent > 0)) return false;
  for (int d = 0; d < D; ++d) {
    const double centre = 0.5 * lo[d] + 0.5 * hi[d];
    cell.lo[d] = centre - extent;
    cell.hi[d] = centre + extent;
  }
  return true;
}

}  // namespace nodegen::spatial_detail
