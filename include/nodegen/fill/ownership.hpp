#pragma once
// Which process (MPI rank) owns which tiles of the fill, and which processes must see a node.
//
// Ownership: the domain's ownership blocks (tile_grid.hpp: a fixed grid numbered along the Z-order
// curve) are cut into R ranges of consecutive block numbers of about equal expected node count; rank r
// owns the tiles whose block lies in its range. Because the fill merges a phase's tiles by block first
// (merge_less), one rank's tiles of a phase are consecutive in the merge order, and the ranks' runs of
// rows follow each other in rank order.
//
// Readers: a tile of level L expands nodes of spacing r <= w_L / kTileSpacings lying in its cell, and
// reads the nodes within (1 + zeta) r < 2 w_L / kTileSpacings of them (internal/node_rule.hpp,
// NodeRule::reach). So a node p can be read only by tiles whose cell, grown by 2 / kTileSpacings of its
// edge, contains p: for every level that nodes exist at, at most 2^D tiles. Their owners are the ranks
// that must hold p.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D>
class Ownership {
 public:
  // One rank owns everything.
  Ownership() : splits_{0, TileGrid<D>::block_count()} {}

  // `weights[b]`: the expected node count of block b (any scale); `ranks` >= 1. Every rank computes the
  // same splits from the same weights. With no weight at all the blocks are shared out evenly.
  Ownership(const std::vector<double>& weights, int ranks) {
    const std::uint64_t n = TileGrid<D>::block_count();
    double total = 0.0;
    for (double w : weights) total += w;
    splits_.assign(static_cast<std::size_t>(ranks) + 1, n);
    splits_[0] = 0;
    if (!(total > 0.0)) {
      for (int r = 1; r < ranks; ++r) splits_[static_cast<std::size_t>(r)] = n * static_cast<std::uint64_t>(r) / static_cast<std::uint64_t>(ranks);
      return;
    }
    double prefix = 0.0;
    int r = 1;
    for (std::uint64_t b = 0; b < n && r < ranks; ++b) {
      while (r < ranks && prefix >= total * r / ranks) splits_[static_cast<std::size_t>(r++)] = b;
      prefix += weights[static_cast<std::size_t>(b)];
    }
  }

  int ranks() const { return static_cast<int>(splits_.size()) - 1; }

  int owner_of_block(std::uint64_t block) const {
    const auto it = std::upper_bound(splits_.begin(), splits_.end(), block);
    return std::clamp(static_cast<int>(it - splits_.begin()) - 1, 0, ranks() - 1);
  }
  int owner(const TileKey<D>& key) const { return owner_of_block(TileGrid<D>::block_code(key)); }

  // The ranks owning a tile of a level in [lmin, lmax] that may read p, each once, in `out` (cleared).
  void readers(const TileGrid<D>& grid, const Vec<D>& p, std::int32_t lmin, std::int32_t lmax,
               std::vector<int>& out) const {
    out.clear();
    if (ranks() == 1) {
      out.push_back(0);
      return;
    }
    // 2 / kTileSpacings of the edge, and a margin far above the rounding of the tile coordinates.
    constexpr double kGrow = 2.0 / kTileSpacings<D> + 1e-6;
    for (std::int32_t level = lmin; level <= lmax; ++level)
      grid.tiles_near(p, level, kGrow, [&](const TileKey<D>& k) {
        const int r = owner(k);
        if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
      });
  }

 private:
  std::vector<std::uint64_t> splits_;  // rank r owns the blocks [splits_[r], splits_[r + 1])
};

}  // namespace nodegen::fill_detail
