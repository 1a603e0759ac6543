#pragma once
// The fill's units of work: tiles of the domain's bounding box, in levels by spacing, and their
// colours (docs/parallel-fill.md has the argument that builds on them).
//
// A node with spacing r belongs to level L = ceil(log2(kTileSpacings * r / unit)) (unit: the box's
// longest side), whose tiles are squares or cubes of edge w_L = unit * 2^L, so w_L >= kTileSpacings * r:
// a tile holds about kTileSpacings^D nodes (between that and 2^D times it) wherever h is, so graded
// spacings give tiles of similar work, not of similar volume. Tiles are anchored at the box's low corner
// and named by (level, integer coordinates).
//
// 3D: a cube grid, coloured by the parity of each coordinate (8 colours). Two distinct tiles of one
// level and one colour differ by at least 2 in some coordinate, so a whole tile lies between them: they
// are at least w_L apart.
// 2D: bricks. Row j (y in [j, j + 1) w_L) is offset by half an edge in odd rows: tile (i, j) spans x in
// [i - o_j, i + 1 - o_j) w_L, o_j = 1/2 for odd j, 0 for even. A tile then touches six others (two in its
// row, two in each row beside it), and three colours, (i + (j mod 2)) mod 3, keep touching tiles apart:
// two distinct tiles of one colour are at least 2 w_L apart in one row, w_L / 2 apart in neighbouring
// rows (a half tile's overhang) and w_L further. So a generation takes three phases a level instead of
// four, and each phase has a third of the tiles instead of a quarter.
// Gap g = w_L (3D) or w_L / 2 (2D). A node of that level writes within r of its tile (its candidates)
// and reads what can reject a candidate, within (1 + zeta) r < 2 r of its tile; with r < g / 3
// (kTileSpacings below), what one tile writes is never what another tile of its level and colour reads
// or writes (g - r1 - r2 > max(r1, r2)).
// The grid depends on the domain and the spacing alone, never on the thread count.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/splitmix.hpp"

namespace nodegen::fill_detail {

// Tile edge in spacings at least (the separation argument above needs more than 3 in 3D and 6 in 2D).
// The number of phases does not depend on it (one per generation, level and colour); smaller tiles
// give more items per phase to share among threads (the scaling model in docs/parallel-fill.md),
// larger ones hand fewer nodes across tiles and run fewer, longer tile runs (each costs its sort, lists
// and store copy job). The values are the fastest measured at one and two threads (bench/RESULTS.md,
// Fill): in 2D larger tiles also share fewer cache lines between threads, up to where too few tiles a
// phase are left to share; in 3D larger tiles left a thread idle in phases of few tile runs.
template <int D>
inline constexpr double kTileSpacings = D == 2 ? 32.0 : 8.0;

// Ownership blocks: a fixed grid of 2^kBlockBits blocks per axis over the cube [lo, lo + unit)^D (65 536
// blocks in 2D, 32 768 in 3D; squares, not bricks), numbered along the Z-order curve. A tile belongs to
// the block of its cell's low corner. The grid depends on the domain alone; ranks own ranges of block numbers.
template <int D>
inline constexpr int kBlockBits = D == 2 ? 8 : 5;

template <int D>
struct TileKey {
  std::int32_t level = 0;
  std::array<std::int64_t, D> c{};
  friend bool operator==(const TileKey&, const TileKey&) = default;
};

// The order of tiles along the Z-order (Morton) curve of their coordinates, level first. Any process
// that knows two tiles' keys can order them. (For square and cube tiles, those of one level inside a
// Z-order-aligned block of space come consecutively; 2D bricks of odd rows are shifted by half a tile,
// so the merge order below sorts by ownership block first, which is what keeps one process's tiles
// consecutive.)
template <int D>
bool morton_less(const TileKey<D>& a, const TileKey<D>& b) {
  if (a.level != b.level) return a.level < b.level;
  // Coordinates as unsigned values in the same order (the sign bit flipped), then the axis whose
  // difference has the highest bit decides (Chan's comparison, no interleaving needed).
  auto u = [](std::int64_t c) { return static_cast<std::uint64_t>(c) ^ (std::uint64_t{1} << 63); };
  std::size_t axis = 0;
  std::uint64_t top = 0;
  for (std::size_t k = 0; k < static_cast<std::size_t>(D); ++k) {
    const std::uint64_t x = u(a.c[k]) ^ u(b.c[k]);
    if (top < x && top < (top ^ x)) {  // x's highest bit is above top's
      top = x;
      axis = k;
    }
  }
  return u(a.c[axis]) < u(b.c[axis]);
}

// The order in which a phase's tiles merge their nodes (rows, and the set-aside nodes' places in the
// waiting lists): by ownership block first (block_code below), then along the Z-order curve. Ranks own
// ranges of block codes (ownership.hpp), so one rank's tiles of a phase come consecutively in this
// order, and the order is the same whether one process fills the domain or many.
template <int D>
bool merge_less(const TileKey<D>& a, std::uint64_t block_a, const TileKey<D>& b, std::uint64_t block_b) {
  return block_a != block_b ? block_a < block_b : morton_less<D>(a, b);
}

template <int D>
struct TileKeyHash {
  std::size_t operator()(const TileKey<D>& k) const noexcept {
    std::uint64_t h = mix64(static_cast<std::uint64_t>(static_cast<std::uint32_t>(k.level)));
    for (std::int64_t c : k.c) h = mix64(h ^ static_cast<std::uint64_t>(c));
    return static_cast<std::size_t>(h);
  }
};

template <int D>
class TileGrid {
 public:
  // Levels are clamped to this range; a spacing beyond it is refused before the fill (the loader
  // bounds extent / h), so the clamp only guards against overflow of the exponent.
  static constexpr std::int32_t kMinLevel = -1000, kMaxLevel = 1000;

  TileGrid(const Vec<D>& lo, double unit) : lo_(lo), unit_(unit > 0.0 && std::isfinite(unit) ? unit : 1.0) {}

  // The level of a tile for nodes of spacing r: kTileSpacings r fits in its edge.
  std::int32_t level_of(double r) const { return level_at_least(kTileSpacings<D> * r / unit_); }
  // The smallest level L with 2^L >= ratio (edges in units), clamped to [kMinLevel, kMaxLevel].
  static std::int32_t level_at_least(double ratio) {
    int e = 0;
    const double m = std::frexp(ratio, &e);  // ratio = m * 2^e, m in [0.5, 1)
    const std::int32_t level = m == 0.5 ? e - 1 : e;
    return std::clamp<std::int32_t>(level, kMinLevel, kMaxLevel);
  }
  double edge(std::int32_t level) const { return std::ldexp(unit_, level); }

  TileKey<D> key_of(const Vec<D>& p, std::int32_t level) const {
    TileKey<D> k;
    k.level = level;
    const double inv = 1.0 / edge(level);
    for (int a = D - 1; a >= 0; --a)  // the row (axis 1) first: in 2D it decides axis 0's offset
      k.c[static_cast<std::size_t>(a)] = clamped_floor((p[a] - lo_[a]) * inv + row_offset(k, a));
    return k;
  }
  TileKey<D> key_of(const Vec<D>& p, double r) const { return key_of(p, level_of(r)); }

  // The cell of a tile: [lo, hi) per axis.
  void cell_of(const TileKey<D>& k, Vec<D>& lo, Vec<D>& hi) const {
    const double w = edge(k.level);
    for (int a = 0; a < D; ++a) {
      lo[a] = lo_[a] + (static_cast<double>(k.c[static_cast<std::size_t>(a)]) - row_offset(k, a)) * w;
      hi[a] = lo[a] + w;
    }
  }

  // The ownership block of a tile (kBlockBits above): its low corner's block coordinates, from the
  // tile's integer coordinates by shifts (exact), clamped to the grid, bits interleaved. (A 2D brick's
  // low corner on axis 0 is (2 i - j mod 2) / 2 edges.)
  static std::uint64_t block_code(const TileKey<D>& k) {
    const int shift = k.level + kBlockBits<D>;  // block coordinate = tile coordinate * 2^shift
    std::array<std::int64_t, D> b{};
    for (int a = 0; a < D; ++a) {
      const std::int64_t c = k.c[static_cast<std::size_t>(a)];
      if (D == 2 && a == 0 && (k.c[1] & 1)) {
        const std::int64_t half = std::clamp<std::int64_t>(c, -(std::int64_t{1} << 61), std::int64_t{1} << 61);
        b[static_cast<std::size_t>(a)] = block_coordinate(2 * half - 1, shift - 1);
      } else {
        b[static_cast<std::size_t>(a)] = block_coordinate(c, shift);
      }
    }
    return interleave(b);
  }
  static constexpr std::uint64_t block_count() { return std::uint64_t{1} << (kBlockBits<D> * D); }
  // The block holding point p.
  std::uint64_t block_of(const Vec<D>& p) const {
    const double inv = 1.0 / edge(-kBlockBits<D>);
    std::array<std::int64_t, D> b{};
    for (int a = 0; a < D; ++a)
      b[static_cast<std::size_t>(a)] = block_coordinate(clamped_floor((p[a] - lo_[a]) * inv), 0);
    return interleave(b);
  }
  // The centre of block `code`.
  Vec<D> block_centre(std::uint64_t code) const {
    const double e = edge(-kBlockBits<D>);
    Vec<D> c;
    for (int a = 0; a < D; ++a) {
      std::int64_t b = 0;
      for (int bit = 0; bit < kBlockBits<D>; ++bit) b |= static_cast<std::int64_t>((code >> (bit * D + a)) & 1) << bit;
      c[a] = lo_[a] + (static_cast<double>(b) + 0.5) * e;
    }
    return c;
  }

  // Calls f(key) for every tile of `level` whose cell grown by `grow` times its edge on every side
  // contains p (one to 2^D tiles).
  template <class F>
  void tiles_near(const Vec<D>& p, std::int32_t level, double grow, F&& f) const {
    TileKey<D> k;
    k.level = level;
    near_from_axis(D - 1, (p - lo_) * (1.0 / edge(level)), grow, k, f);
  }

  static int colour(const TileKey<D>& k) {
    if constexpr (D == 2) {
      const std::int64_t c = (k.c[0] % 3 + (k.c[1] & 1)) % 3;
      return static_cast<int>(c < 0 ? c + 3 : c);
    } else {
      int c = 0;
      for (int a = 0; a < D; ++a) c |= static_cast<int>(k.c[static_cast<std::size_t>(a)] & 1) << a;
      return c;
    }
  }

 private:
  static constexpr double kCoordLimit = 4.0e18;  // inside int64; far beyond any real tile count
  static constexpr std::int64_t kLastBlock = (std::int64_t{1} << kBlockBits<D>) - 1;

  // The offset of a tile's coordinate on axis a in edges: half an edge on axis 0 in a 2D brick's odd
  // row (k.c[1] must be set first), 0 otherwise.
  static double row_offset(const TileKey<D>& k, int a) { return D == 2 && a == 0 && (k.c[1] & 1) ? 0.5 : 0.0; }
  static std::int64_t clamped_floor(double t) {
    t = std::floor(t);
    return t < kCoordLimit && t > -kCoordLimit ? static_cast<std::int64_t>(t) : t > 0.0 ? static_cast<std::int64_t>(kCoordLimit)
                                                                                        : -static_cast<std::int64_t>(kCoordLimit);
  }
  // floor(c * 2^shift), clamped to the block grid, by shifts (exact).
  static std::int64_t block_coordinate(std::int64_t c, int shift) {
    std::int64_t b;
    if (shift >= 0) b = c <= 0 ? c : shift > kBlockBits<D> || c > (kLastBlock >> shift) ? kLastBlock : c << shift;
    else b = -shift >= 63 ? (c < 0 ? -1 : 0) : c >> -shift;  // arithmetic: the floor
    return b < 0 ? 0 : b > kLastBlock ? kLastBlock : b;
  }
  static std::uint64_t interleave(const std::array<std::int64_t, D>& b) {
    std::uint64_t code = 0;
    for (int a = 0; a < D; ++a)
      for (int bit = 0; bit < kBlockBits<D>; ++bit)
        code |= static_cast<std::uint64_t>((b[static_cast<std::size_t>(a)] >> bit) & 1) << (bit * D + a);
    return code;
  }
  // tiles_near's loop over axes a, a - 1, ..., 0 (t: p in edges from the low corner), the higher axes'
  // coordinates set in k (the row first, which sets a 2D brick's offset).
  template <class F>
  static void near_from_axis(int a, const Vec<D>& t, double grow, TileKey<D>& k, F& f) {
    const double ta = t[a] + row_offset(k, a);  // a tile c with c - grow <= ta <= c + 1 + grow
    const double first = std::max(std::min(std::ceil(ta - 1.0 - grow), kCoordLimit), -kCoordLimit);
    const double last = std::max(std::min(std::floor(ta + grow), kCoordLimit), -kCoordLimit);
    const auto lo = static_cast<std::int64_t>(first);
    const std::int64_t n = std::max<std::int64_t>(1, static_cast<std::int64_t>(last - first) + 1);
    for (std::int64_t i = 0; i < n; ++i) {
      k.c[static_cast<std::size_t>(a)] = lo + i;
      if (a == 0) f(k);
      else near_from_axis(a - 1, t, grow, k, f);
    }
  }

  Vec<D> lo_;
  double unit_;
};

}  // namespace nodegen::fill_detail
