#include "geometry/mesh/voxel_cache.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Geometry>

namespace nodegen::geometry_detail {
namespace {

// Separating-axis test of a triangle against the box centre +- half (Akenine-Moller): the 3 box axes,
// the triangle normal and the 9 edge cross products. Callers pad `half`, so the test errs towards
// reporting overlap.
bool triangle_overlaps_box(const MeshTriangle& t, const Vec<3>& centre, const Vec<3>& half) {
  const Vec<3> v0 = t.a - centre, v1 = t.b - centre, v2 = t.c - centre;
  const Vec<3> e[3] = {v1 - v0, v2 - v1, v0 - v2};
  for (int k = 0; k < 3; ++k) {
    const double lo = std::min({v0[k], v1[k], v2[k]}), hi = std::max({v0[k], v1[k], v2[k]});
    if (lo > half[k] || hi < -half[k]) return false;
  }
  const Vec<3> normal = e[0].cross(e[1]);
  const double r = half.dot(normal.cwiseAbs()), d = normal.dot(v0);
  if (d > r || d < -r) return false;
  for (const auto& edge : e)
    for (int k = 0; k < 3; ++k) {
      Vec<3> axis = Vec<3>::Zero();
      axis[k] = 1.0;
      axis = axis.cross(edge);
      const double p0 = axis.dot(v0), p1 = axis.dot(v1), p2 = axis.dot(v2);
      const double radius = half.dot(axis.cwiseAbs());
      if (std::min({p0, p1, p2}) > radius || std::max({p0, p1, p2}) < -radius) return false;
    }
  return true;
}

// The cell (0 to n - 1) of a coordinate already scaled to cells, clamped in double before the cast:
// along an axis where the mesh is flat, a cell is 1e-300 wide, and a padded triangle box reached
// -5e29 cells (the cast to int was undefined; found by fuzz_mesh_repair).
int clamped_cell(double scaled, int n) {
  if (!(scaled > 0)) return 0;
  return scaled >= n - 1 ? n - 1 : static_cast<int>(scaled);
}

}  // namespace

VoxelCache::VoxelCache(const std::vector<MeshTriangle>& triangles, const Box<3>& box,
                       const std::function<bool(const Vec<3>&)>& inside, const std::vector<Box<3>>& uncertain,
                       std::size_t max_cells)
    : box_(box) {
  // Cells about the size of a triangle (a closed surface of T triangles spans ~sqrt(T) of them along
  // its length), 48 to 320 along the longest side, at most max_cells (2^23 cells, 32 MiB, by default).
  const Vec<3> size = box.size();
  const double along = std::clamp(3.0 * std::sqrt(static_cast<double>(triangles.size())), 48.0, 320.0);
  double cell = size.maxCoeff() / along;
  // A triangle touches a few cells of its size, but many where it is larger than its neighbours'
  // cells: thousands of large triangles stacked on each other, or fanned round one edge, made hundreds
  // of millions of (cell, triangle) pairs (gigabytes). The pairs are held to kPairsPerTriangle per triangle (at least
  // kMinPairs): past that the cells grow 2x along each axis and the marking starts again (about a
  // quarter of the pairs each time, so at most a third more work in all).
  const std::size_t budget = std::max(kMinPairs, kPairsPerTriangle * triangles.size());
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;
  for (;; cell *= 2.0) {
    for (;;) {
      for (int i = 0; i < 3; ++i) n_[i] = std::max(1, static_cast<int>(std::ceil(size[i] / cell)));
      if (static_cast<double>(n_[0]) * n_[1] * n_[2] <= static_cast<double>(std::min(max_cells, kMaxCells))) break;
      cell *= 1.25;
    }
    for (int i = 0; i < 3; ++i) inv_[i] = n_[i] / std::max(size[i], 1e-300);
    if (surface_pairs(triangles, budget, pairs)) break;
  }
  cells_.assign(static_cast<std::size_t>(n_[0]) * n_[1] * n_[2], static_cast<std::uint32_t>(Side::unknown));
  mark_surface(pairs, uncertain);
  classify_rest(inside);
}

bool VoxelCache::surface_pairs(const std::vector<MeshTriangle>& triangles, std::size_t budget,
                               std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) const {
  const Vec<3> cell_size(1.0 / inv_[0], 1.0 / inv_[1], 1.0 / inv_[2]);
  const double pad = 1e-9 * box_.size().norm();
  pairs.clear();
  struct Block {
    int lo[3], hi[3];
  };
  std::vector<Block> todo;  // the blocks of one triangle still to test, kept across triangles
  for (std::uint32_t t = 0; t < triangles.size(); ++t) {
    const auto& tri = triangles[t];
    const Vec<3> lo = tri.a.cwiseMin(tri.b).cwiseMin(tri.c).array() - pad;
    const Vec<3> hi = tri.a.cwiseMax(tri.b).cwiseMax(tri.c).array() + pad;
    int c0[3], c1[3];
    for (int i = 0; i < 3; ++i) {
      c0[i] = clamped_cell((lo[i] - box_.lo[i]) * inv_[i], n_[i]);
      c1[i] = clamped_cell((hi[i] - box_.lo[i]) * inv_[i], n_[i]);
    }
    // The cells of the triangle's bounding box, halved block by block, a block whose padded box the
    // triangle misses dropped whole: a long thin triangle (a fan across a large polygon face) crosses
    // few of the cells of its bounding box, which may be most of the grid. A cell is kept by the same
    // per-cell test as when every cell of the box is tested (a block's padded box holds its cells').
    todo.push_back(Block{{c0[0], c0[1], c0[2]}, {c1[0], c1[1], c1[2]}});
    while (!todo.empty()) {
      const Block b = todo.back();
      todo.pop_back();
      const Vec<3> lo_corner = box_.lo + Vec<3>(b.lo[0] * cell_size[0], b.lo[1] * cell_size[1], b.lo[2] * cell_size[2]);
      const Vec<3> extent((b.hi[0] - b.lo[0] + 1) * cell_size[0], (b.hi[1] - b.lo[1] + 1) * cell_size[1],
                          (b.hi[2] - b.lo[2] + 1) * cell_size[2]);
      if (!triangle_overlaps_box(tri, lo_corner + 0.5 * extent, 0.5 * extent + Vec<3>::Constant(pad))) continue;
      int axis = 0;
      for (int i = 1; i < 3; ++i)
        if (b.hi[i] - b.lo[i] > b.hi[axis] - b.lo[axis]) axis = i;
      if (b.hi[axis] == b.lo[axis]) {  // one cell
        if (pairs.size() == budget) return false;
        pairs.emplace_back(static_cast<std::uint32_t>(index(Cell{{b.lo[0], b.lo[1], b.lo[2]}})), t);
        continue;
      }
      const int mid = b.lo[axis] + (b.hi[axis] - b.lo[axis]) / 2;
      Block first = b, second = b;
      first.hi[axis] = mid;
      second.lo[axis] = mid + 1;
      todo.push_back(first);
      todo.push_back(second);
    }
  }
  return true;
}

void VoxelCache::mark_surface(std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs,
                              const std::vector<Box<3>>& uncertain) {
  std::sort(pairs.begin(), pairs.end());
  // Uncertain cells: surface cells, some with triangles of their own, all flagged (escape() reports
  // passing them).
  std::vector<std::uint32_t> flagged;
  if (!uncertain.empty()) uncertain_.assign(cells_.size(), 0);
  for (const Box<3>& b : uncertain) {
    int c0[3], c1[3];
    for (int i = 0; i < 3; ++i) {
      c0[i] = clamped_cell((b.lo[i] - box_.lo[i]) * inv_[i], n_[i]);
      c1[i] = clamped_cell((b.hi[i] - box_.lo[i]) * inv_[i], n_[i]);
    }
    for (int z = c0[2]; z <= c1[2]; ++z)
      for (int y = c0[1]; y <= c1[1]; ++y)
        for (int x = c0[0]; x <= c1[0]; ++x) {
          const std::size_t c = index(Cell{{x, y, z}});
          if (!uncertain_[c]) flagged.push_back(static_cast<std::uint32_t>(c));
          uncertain_[c] = 1;
        }
  }
  offsets_.clear();
  triangle_ids_.clear();
  triangle_ids_.reserve(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    if (i == 0 || pairs[i].first != pairs[i - 1].first) {
      cells_[pairs[i].first] = surface_base + static_cast<std::uint32_t>(offsets_.size());
      offsets_.push_back(static_cast<std::uint32_t>(triangle_ids_.size()));
    }
    triangle_ids_.push_back(pairs[i].second);
  }
  for (const std::uint32_t c : flagged)
    if (cells_[c] < surface_base) {
      cells_[c] = surface_base + static_cast<std::uint32_t>(offsets_.size());
      offsets_.push_back(static_cast<std::uint32_t>(triangle_ids_.size()));
    }
  offsets_.push_back(static_cast<std::uint32_t>(triangle_ids_.size()));
}

void VoxelCache::classify_rest(const std::function<bool(const Vec<3>&)>& inside) {
  const auto unknown = static_cast<std::uint32_t>(Side::unknown);
  std::vector<std::size_t> stack;
  for (int z = 0; z < n_[2]; ++z)
    for (int y = 0; y < n_[1]; ++y)
      for (int x = 0; x < n_[0]; ++x) {
        const std::size_t start = index(Cell{{x, y, z}});
        if (cells_[start] != unknown) continue;
        const Vec<3> centre = box_.lo + Vec<3>((x + 0.5) / inv_[0], (y + 0.5) / inv_[1], (z + 0.5) / inv_[2]);
        const auto s = static_cast<std::uint32_t>(inside(centre) ? Side::inside : Side::outside);
        cells_[start] = s;
        stack.push_back(start);
        while (!stack.empty()) {
          const std::size_t k = stack.back();
          stack.pop_back();
          const int cx = static_cast<int>(k % n_[0]);
          const int cy = static_cast<int>((k / n_[0]) % n_[1]);
          const int cz = static_cast<int>(k / (static_cast<std::size_t>(n_[0]) * n_[1]));
          const int nb[6][3] = {{cx - 1, cy, cz}, {cx + 1, cy, cz}, {cx, cy - 1, cz},
                                {cx, cy + 1, cz}, {cx, cy, cz - 1}, {cx, cy, cz + 1}};
          for (const auto& q : nb) {
            if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= n_[0] || q[1] >= n_[1] || q[2] >= n_[2]) continue;
            const std::size_t j = index(Cell{{q[0], q[1], q[2]}});
            if (cells_[j] != unknown) continue;
            cells_[j] = s;
            stack.push_back(j);
          }
        }
      }
}

bool VoxelCache::escape(const Vec<3>& p, int rank, Vec<3>& q, Side& side, std::vector<std::uint32_t>& triangles,
                        bool* uncertain) const {
  if (rank < 0 || rank >= 6) return false;
  const Cell c = cell_of(p);
  struct Way {
    int steps, axis, dir;
  };
  Way ways[6];
  for (int axis = 0; axis < 3; ++axis)
    for (int dir = -1; dir <= 1; dir += 2) {
      Cell k = c;
      int steps = 0;
      do {
        k.i[axis] += dir;
        ++steps;
      } while (k.i[axis] >= 0 && k.i[axis] < n_[axis] && cells_[index(k)] >= surface_base);
      ways[2 * axis + (dir > 0)] = {steps, axis, dir};
    }
  std::stable_sort(ways, ways + 6, [](const Way& a, const Way& b) { return a.steps < b.steps; });
  const Way& w = ways[rank];
  triangles.clear();
  Cell k = c;
  for (int s = 0; s < w.steps; ++s, k.i[w.axis] += w.dir) {
    const std::uint32_t v = cells_[index(k)];
    if (uncertain && !uncertain_.empty() && uncertain_[index(k)]) *uncertain = true;
    if (v < surface_base) continue;
    const std::uint32_t slot = v - surface_base;
    triangles.insert(triangles.end(), triangle_ids_.begin() + offsets_[slot], triangle_ids_.begin() + offsets_[slot + 1]);
  }
  std::sort(triangles.begin(), triangles.end());
  triangles.erase(std::unique(triangles.begin(), triangles.end()), triangles.end());
  // k is now the target cell; outside the grid means half a cell beyond the box: certainly outside.
  q = p;
  q[w.axis] = box_.lo[w.axis] + (k.i[w.axis] + 0.5) / inv_[w.axis];
  const bool beyond = k.i[w.axis] < 0 || k.i[w.axis] >= n_[w.axis];
  side = beyond ? Side::outside : static_cast<Side>(cells_[index(k)]);
  return true;
}

double VoxelCache::surface_fraction() const {
  const auto n = std::count_if(cells_.begin(), cells_.end(), [](std::uint32_t v) { return v >= surface_base; });
  return static_cast<double>(n) / static_cast<double>(cells_.size());
}

}  // namespace nodegen::geometry_detail
