#pragma once
// A hashed uniform grid of points answering "is any stored point closer than r to q". Used while
// placing boundary nodes (a few 1e5 points per thread), where a hash grid is simpler than the
// concurrent k-d tree and faster.
//
// Layout: cells are grouped in blocks of 4 cells per axis (64 in 3D), found through an open-addressing
// table keyed by the block's coordinates; a block holds the head of each of its cells' point lists, and
// the points sit in one flat array linked cell by cell. A query's ball (r below the cell size) spans 2
// cells per axis, which mostly lie in one block: one table probe and one or two cache lines of heads,
// where a hash map of cells cost a bucket, a node and a vector per cell (8 of each in 3D). Placing the
// boundary of a 1e6-node box minus ball spends most of its time in these queries
// (bench/RESULTS.md, Geometry and meshes).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <nodegen/spatial/point.hpp>

namespace nodegen::geometry_detail {

// FNV-1a over a cell's integer coordinates: the hash of a grid cell (or block), for the hash grids of
// boundary placement.
template <std::size_t D>
inline std::uint64_t cell_hash(const std::array<std::int64_t, D>& c) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::int64_t x : c) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ull;
  return h;
}

template <int D>
class PointGrid {
  using Coords = std::array<std::int64_t, D>;
  static constexpr int kSideLog2 = 2;  // 4 cells per block edge
  static constexpr int kSide = 1 << kSideLog2;
  static constexpr int kBlockCells = D == 2 ? kSide * kSide : kSide * kSide * kSide;
  static constexpr std::uint32_t kNone = 0xFFFF'FFFFu;

 public:
  explicit PointGrid(double cell) : cell_(cell), inv_(1.0 / cell), slots_(64, kNone) {}

  void insert(const Vec<D>& p) {
    const Coords c = coords(p);
    Block& b = blocks_[find_or_add(block_of(c))];
    std::uint32_t& head = b.head[static_cast<std::size_t>(local_index(c))];
    points_.push_back(p);  // first, so a failed allocation leaves the lists as they were
    next_.push_back(head);
    head = static_cast<std::uint32_t>(points_.size() - 1);
  }

  bool any_within(const Vec<D>& q, double r) const {
    // Only the cells the ball's bounding box overlaps: with r below the cell size that is 2 per axis.
    Coords lo, hi, k;
    double cells = 1.0;
    for (int i = 0; i < D; ++i) {
      lo[i] = coord(q[i] - r);
      hi[i] = coord(q[i] + r);
      cells *= static_cast<double>(hi[i] - lo[i]) + 1.0;
    }
    const double r2 = r * r;
    // A ball far wider than the cells (h many orders above the grid's cell somewhere): walking its cells
    // would never end, so look at every point instead.
    if (cells > static_cast<double>(points_.size()) + 64.0) {
      for (const Vec<D>& p : points_)
        if ((p - q).squaredNorm() < r2) return true;
      return false;
    }
    Coords cached_block{};
    std::uint32_t block = kNone;
    bool looked_up = false;
    k = lo;
    for (;;) {
      const Coords bk = block_of(k);
      if (!looked_up || bk != cached_block) {
        cached_block = bk;
        block = find(bk);
        looked_up = true;
      }
      if (block != kNone)
        for (std::uint32_t j = blocks_[block].head[static_cast<std::size_t>(local_index(k))]; j != kNone; j = next_[j])
          if ((points_[j] - q).squaredNorm() < r2) return true;
      int i = 0;
      while (i < D && k[i] == hi[i]) k[i] = lo[i], ++i;
      if (i == D) return false;
      ++k[i];
    }
  }

  double cell() const { return cell_; }
  bool empty() const { return points_.empty(); }

 private:
  struct Block {
    Coords key;
    std::array<std::uint32_t, kBlockCells> head;
  };

  // Clamped so a far point or a huge radius stays a finite cell index.
  std::int64_t coord(double x) const { return static_cast<std::int64_t>(std::clamp(std::floor(x * inv_), -1e15, 1e15)); }
  Coords coords(const Vec<D>& p) const {
    Coords c;
    for (int i = 0; i < D; ++i) c[i] = coord(p[i]);
    return c;
  }
  static Coords block_of(const Coords& c) {
    Coords b;
    for (int i = 0; i < D; ++i) b[i] = c[i] >> kSideLog2;  // arithmetic shift: floor division for negatives too
    return b;
  }
  static int local_index(const Coords& c) {
    int l = 0;
    for (int i = D - 1; i >= 0; --i) l = l * kSide + static_cast<int>(c[i] & (kSide - 1));
    return l;
  }

  // Element by element: std::array's == compiles to a memcmp call here.
  static bool same(const Coords& a, const Coords& b) {
    for (int i = 0; i < D; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

  std::size_t slot_of(const Coords& key) const { return cell_hash(key) & (slots_.size() - 1); }

  std::uint32_t find(const Coords& key) const {
    for (std::size_t s = slot_of(key);; s = (s + 1) & (slots_.size() - 1)) {
      const std::uint32_t b = slots_[s];
      if (b == kNone || same(blocks_[b].key, key)) return b;
    }
  }

  std::uint32_t find_or_add(const Coords& key) {
    std::size_t s = slot_of(key);
    for (;; s = (s + 1) & (slots_.size() - 1)) {
      const std::uint32_t b = slots_[s];
      if (b == kNone) break;
      if (same(blocks_[b].key, key)) return b;
    }
    const auto b = static_cast<std::uint32_t>(blocks_.size());
    Block block;
    block.key = key;
    block.head.fill(kNone);
    blocks_.push_back(block);
    slots_[s] = b;
    if (2 * blocks_.size() > slots_.size()) grow();  // load at most 1/2: probes stay short
    return b;
  }

  void grow() {
    slots_.assign(2 * slots_.size(), kNone);
    for (std::uint32_t b = 0; b < blocks_.size(); ++b) {
      std::size_t s = slot_of(blocks_[b].key);
      while (slots_[s] != kNone) s = (s + 1) & (slots_.size() - 1);
      slots_[s] = b;
    }
  }

  double cell_, inv_;
  std::vector<std::uint32_t> slots_;  // block index, or kNone; size a power of two
  std::vector<Block> blocks_;
  std::vector<Vec<D>> points_;
  std::vector<std::uint32_t> next_;  // next point of the same cell, or kNone
};

}  // namespace nodegen::geometry_detail
