// The fill's tiles: levels by spacing, colours, and the Z-order the completion step merges them in.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "nodegen/fill/tile_grid.hpp"

namespace {

using nodegen::fill_detail::morton_less;
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

}  // namespace
