// The fill's tiles: levels by spacing, colours, and the Z-order the completion step merges them in.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "nodegen/fill/tile_grid.hpp"

namespace {

using nodegen::Vec;
using nodegen::fill_detail::kBlockBits;
using nodegen::fill_detail::morton_less;
using nodegen::fill_detail::TileGrid;
using nodegen::fill_detail::TileKey;

// The Z-order position of non-negative coordinates below 2^20 by explicit bit interleaving (axis 0 the
// most significant of each group of D bits, as morton_less breaks ties).
template <int D>
std::uint64_t interleaved(const TileKey<D>& k) {
  std::uint64_t code = 0;
  for (int bit = 19; bit >= 0; --bit)
    for (std::size_t a = 0; a < static_cast<std::size_t>(D); ++a) code = (code << 1) | ((k.c[a] >> bit) & 1);
  return code;
}

template <int D>
void check_against_interleaving(unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> coord(0, (1 << 20) - 1), small(0, 7);
  for (int i = 0; i < 20000; ++i) {
    TileKey<D> a, b;
    for (std::size_t k = 0; k < static_cast<std::size_t>(D); ++k) {
      // Half the pairs close together, so low bits decide too.
      a.c[k] = coord(rng);
      b.c[k] = i % 2 ? a.c[k] + small(rng) - 3 : coord(rng);
      b.c[k] = std::clamp<std::int64_t>(b.c[k], 0, (1 << 20) - 1);
    }
    ASSERT_EQ(morton_less<D>(a, b), interleaved<D>(a) < interleaved<D>(b)) << i;
  }
}

TEST(MortonLess, MatchesBitInterleavingIn2DAnd3D) {
  check_against_interleaving<2>(1);
  check_against_interleaving<3>(2);
}

TEST(MortonLess, LevelFirstAndNegativeCoordinatesBeforePositive) {
  TileKey<2> fine{-3, {100, 100}}, coarse{-2, {0, 0}};
  EXPECT_TRUE(morton_less<2>(fine, coarse));
  EXPECT_FALSE(morton_less<2>(coarse, fine));
  TileKey<2> neg{0, {-1, 0}}, pos{0, {0, 0}};
  EXPECT_TRUE(morton_less<2>(neg, pos));
  EXPECT_FALSE(morton_less<2>(pos, pos));
}

// What the distributed order needs: the tiles inside an aligned block of 2^j x 2^j tiles are
// consecutive in the order, so the tiles of a Z-order-contiguous range of blocks are too.
TEST(MortonLess, TilesOfAnAlignedBlockAreConsecutive) {
  std::vector<TileKey<2>> tiles;
  for (std::int64_t x = 0; x < 32; ++x)
    for (std::int64_t y = 0; y < 32; ++y) tiles.push_back({0, {x, y}});
  std::sort(tiles.begin(), tiles.end(), morton_less<2>);
  for (std::int64_t edge : {2, 4, 8}) {
    // The block of each tile (edge x edge tiles); along the sorted tiles, each block appears in one run.
    std::vector<std::int64_t> seen;
    for (const auto& t : tiles) {
      const std::int64_t block = (t.c[0] / edge) * 1000 + t.c[1] / edge;
      if (seen.empty() || seen.back() != block) {
        EXPECT_EQ(std::find(seen.begin(), seen.end(), block), seen.end()) << "block " << block << " split, edge " << edge;
        seen.push_back(block);
      }
    }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>((32 / edge) * (32 / edge)));
  }
}

// The grid of a box with its low corner off the origin, so no test passes by the corner's zeros.
template <int D>
TileGrid<D> test_grid() {
  Vec<D> lo;
  for (int a = 0; a < D; ++a) lo[a] = -0.3 + 0.1 * a;
  return TileGrid<D>(lo, 1.7);
}

template <int D>
Vec<D> random_point(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  Vec<D> p;
  for (int a = 0; a < D; ++a) p[a] = u(rng);
  return p;
}

// The gap between two cells (0 when they touch or overlap).
template <int D>
double gap(const Vec<D>& lo1, const Vec<D>& hi1, const Vec<D>& lo2, const Vec<D>& hi2) {
  double s = 0;
  for (int a = 0; a < D; ++a) {
    const double d = std::max({0.0, lo2[a] - hi1[a], lo1[a] - hi2[a]});
    s += d * d;
  }
  return std::sqrt(s);
}

// Every point lies in the cell of its own tile, and the cells tile space (a point's tile is the only
// one among its neighbours whose cell holds it).
template <int D>
void check_cells_hold_their_points() {
  const TileGrid<D> grid = test_grid<D>();
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const Vec<D> p = random_point<D>(rng, -0.5, 1.5);
    const std::int32_t level = -1 - i % 4;
    const TileKey<D> k = grid.key_of(p, level);
    Vec<D> lo, hi;
    grid.cell_of(k, lo, hi);
    ASSERT_TRUE((p.array() >= lo.array()).all() && (p.array() < hi.array()).all()) << i;
    int holders = 0;
    grid.tiles_near(p, level, 1.0, [&](const TileKey<D>& n) {
      Vec<D> l, h;
      grid.cell_of(n, l, h);
      holders += (p.array() >= l.array()).all() && (p.array() < h.array()).all();
    });
    ASSERT_EQ(holders, 1) << i;
  }
}
TEST(TileGrid, CellsHoldTheirPointsAndTileSpace2D) { check_cells_hold_their_points<2>(); }
TEST(TileGrid, CellsHoldTheirPointsAndTileSpace3D) { check_cells_hold_their_points<3>(); }

// The separation the fill's safety rests on: distinct tiles of one level and colour are at least
// half an edge apart in 2D (bricks) and an edge in 3D; tiles that touch differ in colour. 2D uses
// 3 colours, 3D 8.
template <int D>
void check_colours_keep_tiles_apart(double least_gap, int colours) {
  const TileGrid<D> grid = test_grid<D>();
  const std::int32_t level = -3;
  const double w = grid.edge(level);
  std::vector<TileKey<D>> tiles;
  std::vector<int> seen(static_cast<std::size_t>(colours), 0);
  // Every tile near a block of space, with negative coordinates among them.
  std::mt19937_64 rng(11);
  for (int i = 0; i < 4000; ++i) {
    const TileKey<D> k = grid.key_of(random_point<D>(rng, -0.6, 0.2), level);
    if (std::find(tiles.begin(), tiles.end(), k) == tiles.end()) tiles.push_back(k);
  }
  double closest = INFINITY;
  for (std::size_t x = 0; x < tiles.size(); ++x) {
    const int cx = TileGrid<D>::colour(tiles[x]);
    ASSERT_GE(cx, 0);
    ASSERT_LT(cx, colours);
    ++seen[static_cast<std::size_t>(cx)];
    Vec<D> lo1, hi1;
    grid.cell_of(tiles[x], lo1, hi1);
    for (std::size_t y = x + 1; y < tiles.size(); ++y) {
      if (TileGrid<D>::colour(tiles[y]) != cx) continue;
      Vec<D> lo2, hi2;
      grid.cell_of(tiles[y], lo2, hi2);
      closest = std::min(closest, gap<D>(lo1, hi1, lo2, hi2));
    }
  }
  EXPECT_GE(closest, least_gap * w * (1 - 1e-12));
  EXPECT_LE(closest, least_gap * w * (1 + 1e-12));  // the bound is reached: it is the grid's, not luck
  for (int c = 0; c < colours; ++c) EXPECT_GT(seen[static_cast<std::size_t>(c)], 0) << "colour " << c;
}
TEST(TileGrid, ColoursKeepTilesApart2D) { check_colours_keep_tiles_apart<2>(0.5, 3); }
TEST(TileGrid, ColoursKeepTilesApart3D) { check_colours_keep_tiles_apart<3>(1.0, 8); }

// tiles_near gives exactly the tiles whose cell, grown by `grow` edges, holds the point.
template <int D>
void check_tiles_near(double grow) {
  const TileGrid<D> grid = test_grid<D>();
  std::mt19937_64 rng(13);
  for (int i = 0; i < (D == 2 ? 3000 : 500); ++i) {
    const Vec<D> p = random_point<D>(rng, -0.4, 1.4);
    const std::int32_t level = -2 - i % 3;
    const double w = grid.edge(level);
    std::vector<TileKey<D>> near, expected;
    grid.tiles_near(p, level, grow, [&](const TileKey<D>& k) { near.push_back(k); });
    // Brute force: the tiles of every point of a fine lattice around p.
    const double reach = (grow + 1.5) * w;
    const int steps = 24;
    std::array<int, D> at{};
    while (true) {
      Vec<D> q;
      for (int a = 0; a < D; ++a) q[a] = p[a] - reach + 2 * reach * at[static_cast<std::size_t>(a)] / steps;
      const TileKey<D> k = grid.key_of(q, level);
      Vec<D> lo, hi;
      grid.cell_of(k, lo, hi);
      const bool holds = ((p.array() >= lo.array() - grow * w) && (p.array() <= hi.array() + grow * w)).all();
      if (holds && std::find(expected.begin(), expected.end(), k) == expected.end()) expected.push_back(k);
      int a = 0;
      for (; a < D; ++a) {
        if (++at[static_cast<std::size_t>(a)] <= steps) break;
        at[static_cast<std::size_t>(a)] = 0;
      }
      if (a == D) break;
    }
    for (const auto& k : expected) ASSERT_NE(std::find(near.begin(), near.end(), k), near.end()) << i;
    for (const auto& k : near) {
      Vec<D> lo, hi;
      grid.cell_of(k, lo, hi);
      ASSERT_TRUE(((p.array() >= lo.array() - grow * w - 1e-12) && (p.array() <= hi.array() + grow * w + 1e-12)).all()) << i;
    }
  }
}
TEST(TileGrid, TilesNearAreTheGrownCellsHoldingThePoint2D) { check_tiles_near<2>(1.0 / 16); }
TEST(TileGrid, TilesNearAreTheGrownCellsHoldingThePoint3D) { check_tiles_near<3>(0.25); }

// A tile's ownership block is the block holding its cell's low corner (a 2D brick's included), as
// block_of finds it from the point.
template <int D>
void check_block_of_low_corner() {
  const TileGrid<D> grid = test_grid<D>();
  std::mt19937_64 rng(17);
  for (int i = 0; i < 20000; ++i) {
    const std::int32_t level = -kBlockBits<D> - 2 + i % (kBlockBits<D> + 3);  // finer, equal and coarser
    const TileKey<D> k = grid.key_of(random_point<D>(rng, -0.5, 1.6), level);
    Vec<D> lo, hi;
    grid.cell_of(k, lo, hi);
    // Nudged inwards by far less than a block, so rounding of the corner cannot cross a block face.
    const Vec<D> inside = lo + Vec<D>::Constant(1e-9);
    ASSERT_EQ(TileGrid<D>::block_code(k), grid.block_of(inside)) << i << " level " << level;
  }
}
TEST(TileGrid, TileBlockIsTheBlockOfItsLowCorner2D) { check_block_of_low_corner<2>(); }
TEST(TileGrid, TileBlockIsTheBlockOfItsLowCorner3D) { check_block_of_low_corner<3>(); }

}  // namespace
