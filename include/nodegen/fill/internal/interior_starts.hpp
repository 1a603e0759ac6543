#pragma once
// Interior starts: fronts that begin inside the domain as well as at its boundary.
//
// Why: a front that only advances from the boundary inward needs about (domain size / h) generations,
// and a phase holds only the tiles on that front, so at many threads the rounds are short and their
// tails, barriers and completion steps dominate (docs/parallel-fill.md, "Interior starts"). With one
// start in every cell of about kStartSpacings spacings on a side (2D: 181, 3D: 16), every region fills
// at once: the generations number about a cell's size / h whatever the domain's size, and the tiles at
// work in a phase grow with the domain.
//
// Rule (a function of the domain, the spacing, the seed and the boundary nodes alone, so the same on
// every process, at every thread count): cells are the squares / cubes of edge unit * 2^m anchored at
// the bounding box's low corner (unit: its longest side, as the tile grid's), visited level by level
// from the one cell m = 0 down. A cell's point is its centre moved by up to a quarter of its edge on
// each axis, drawn from (seed, m, cell). If the point is inside the domain and its spacing asks for
// this cell's level (start_level: the smallest m with unit 2^m >= kStartSpacings h), the point is a
// start unless a boundary node lies within kStartClearance h of it; if it asks for a finer level the
// cell is split into its 2^D children. A point outside the domain splits its cell down to the
// boundary's finest start level, but only where a boundary node lies in a tile of the next coarser level
// around the point (those tiles cover the cell; a cell that meets the domain without holding its point
// meets its boundary). The descent stops after
// kStartCells + max_nodes / 64 cells (level by level, so a cut is the same everywhere): a fill within
// its node cap needs far fewer, since a start's cell holds thousands of nodes.
//
// Invariants: two starts are at least a quarter of the larger cell's edge apart (each lies in the
// central half of its cell, and the cells that hold starts do not overlap), far more than either's
// kStartClearance h, so starts never need checking against each other; no boundary node is within
// kStartClearance h of a start, so a start keeps PNP's spacing (no node within zeta h) with every node.
// The starts come in the merge order of their tiles (tile_grid.hpp: ownership block, then Z-order),
// those of one tile in the order the cells were visited: the order of their store rows.
#include <algorithm>
#include <cmath>
#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/geometry/box.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/splitmix.hpp"

namespace nodegen::fill_detail {

// A start's cell is the smallest cell of at least this many of its spacings on a side.
template <int D>
inline constexpr double kStartSpacings = D == 2 ? 181.0 : 16.0;
// No boundary node within this many h of a start.
inline constexpr double kStartClearance = 2.0;
// The most cells the descent visits, besides one for every 64 nodes of the node cap.
inline constexpr std::size_t kStartCells = std::size_t{1} << 18;

// The level of a start's cell for spacing r: the smallest m with unit 2^m >= kStartSpacings r.
template <int D>
std::int32_t start_level(double r, double unit) {
  return TileGrid<D>::level_at_least(kStartSpacings<D> * r / unit);
}

template <int D>
struct Start {
  Vec<D> pos;
  double h;
  TileKey<D> key;      // its tile
  std::uint64_t block;  // its tile's ownership block
};

// The boundary nodes near a point, bucketed by tile at the levels asked for.
template <int D>
class BoundaryBuckets {
 public:
  BoundaryBuckets(const TileGrid<D>& grid, std::vector<Vec<D>> points) : grid_(grid), points_(std::move(points)) {}

  // Whether a boundary node lies within `radius` of p (radius at most a tile of `level`).
  bool any_within(const Vec<D>& p, std::int32_t level, double radius) {
    auto& buckets = at_level(level);
    const double r2 = radius * radius;
    bool found = false;
    grid_.tiles_near(p, level, radius / grid_.edge(level), [&](const TileKey<D>& key) {
      const auto it = buckets.find(key);
      if (found || it == buckets.end()) return;
      for (std::uint32_t i : it->second)
        if ((points_[i] - p).squaredNorm() < r2) {
          found = true;
          return;
        }
    });
    return found;
  }

  // Whether a boundary node lies in a tile of `level` whose cell grown by half an edge holds p (a
  // coarse test: the tiles only, kept as a set per level).
  bool any_in_tiles_near(const Vec<D>& p, std::int32_t level) {
    const auto made = occupied_.try_emplace(level);
    auto& tiles = made.first->second;
    if (made.second)
      for (const Vec<D>& b : points_) tiles.insert(grid_.key_of(b, level));
    bool found = false;
    grid_.tiles_near(p, level, 0.5, [&](const TileKey<D>& key) { found = found || tiles.count(key) > 0; });
    return found;
  }

 private:
  using Buckets = std::unordered_map<TileKey<D>, std::vector<std::uint32_t>, TileKeyHash<D>>;
  Buckets& at_level(std::int32_t level) {
    const auto made = levels_.try_emplace(level);
    Buckets& buckets = made.first->second;
    if (made.second)
      for (std::size_t i = 0; i < points_.size(); ++i)
        buckets[grid_.key_of(points_[i], level)].push_back(static_cast<std::uint32_t>(i));
    return buckets;
  }
  const TileGrid<D>& grid_;
  std::vector<Vec<D>> points_;
  std::unordered_map<std::int32_t, Buckets> levels_;
  std::unordered_map<std::int32_t, std::unordered_set<TileKey<D>, TileKeyHash<D>>> occupied_;
};

// The starts (rule above). `boundary`: the boundary nodes' positions; `finest`: the finest start level
// of their spacings; `max_nodes`: the fill's node cap; h(p): the checked spacing at a point inside the
// domain.
template <int D, class DomainT, class H>
std::vector<Start<D>> interior_starts(const DomainT& domain, const TileGrid<D>& grid, std::uint64_t seed,
                                      std::vector<Vec<D>> boundary, std::int32_t finest, std::size_t max_nodes,
                                      H&& h) {
  std::vector<Start<D>> starts;
  if (boundary.empty()) return starts;
  const Box<D> box = domain.bounding_box();
  const double unit = box.size().maxCoeff();
  if (!(unit > 0.0)) return starts;
  BoundaryBuckets<D> near(grid, std::move(boundary));
  struct Cell {
    std::array<std::int64_t, D> c;
  };
  std::vector<Cell> level{Cell{}}, next;
  const std::size_t budget = kStartCells + max_nodes / 64;
  std::size_t visited = 0;
  for (std::int32_t m = 0; !level.empty() && m > TileGrid<D>::kMinLevel; --m) {
    const double edge = std::ldexp(unit, m);
    next.clear();
    for (const Cell& cell : level) {
      if (++visited > budget) {
        next.clear();
        break;
      }
      std::uint64_t bits = mix64(seed ^ 0x5EEDC0DE5EEDC0DEull);
      bits = mix64(bits ^ static_cast<std::uint64_t>(static_cast<std::int64_t>(m)));
      Vec<D> p;
      for (int a = 0; a < D; ++a) {
        bits = mix64(bits ^ static_cast<std::uint64_t>(cell.c[static_cast<std::size_t>(a)]));
        const double u = static_cast<double>(bits >> 11) * 0x1.0p-53 - 0.5;  // [-0.5, 0.5)
        p[a] = box.lo[a] + (static_cast<double>(cell.c[static_cast<std::size_t>(a)]) + 0.5 + 0.5 * u) * edge;
      }
      bool split;
      if (domain.contains(p)) {
        const double r = h(p);
        const std::int32_t level_of_h = grid.level_of(r), cell_level = start_level<D>(r, unit);
        split = cell_level < m;
        if (cell_level == m && !near.any_within(p, level_of_h, kStartClearance * r)) {
          const TileKey<D> key = grid.key_of(p, level_of_h);
          starts.push_back({p, r, key, TileGrid<D>::block_code(key)});
        }
      } else {  // the tiles of level m + 1 (two edges) around its point cover the cell
        split = m > finest && near.any_in_tiles_near(p, m + 1);
      }
      if (!split) continue;
      for (int child = 0; child < (1 << D); ++child) {
        Cell k;
        for (int a = 0; a < D; ++a)
          k.c[static_cast<std::size_t>(a)] = 2 * cell.c[static_cast<std::size_t>(a)] + ((child >> a) & 1);
        // Only children that meet the box hold points of the domain.
        bool meets = true;
        for (int a = 0; a < D; ++a)
          meets = meets && box.lo[a] + static_cast<double>(k.c[static_cast<std::size_t>(a)]) * edge * 0.5 <= box.hi[a];
        if (meets) next.push_back(k);
      }
    }
    level.swap(next);
  }
  std::stable_sort(starts.begin(), starts.end(), [](const Start<D>& a, const Start<D>& b) {
    return merge_less<D>(a.key, a.block, b.key, b.block);
  });
  return starts;
}

}  // namespace nodegen::fill_detail
