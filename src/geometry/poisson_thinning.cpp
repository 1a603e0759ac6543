// Blocked, coloured Poisson-disk sample elimination (see poisson_thinning.hpp).
#include "poisson_thinning.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "nodegen/storage/thread_team.hpp"
#include "point_grid.hpp"

namespace nodegen::geometry_detail {
namespace {

// Block edge in cells, at least: larger blocks mean fewer tests that reach into a neighbouring block,
// smaller ones more blocks to share between threads.
constexpr std::int64_t kMinBlockCells = 6;

using Coords = std::array<std::int64_t, 3>;

struct CoordsHash {
  std::size_t operator()(const Coords& c) const { return static_cast<std::size_t>(cell_hash(c)); }
};

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Space is cut into cubic cells of edge `cell`, and the cells into cubic blocks of block_cells^3. Each
// block keeps its kept samples in a dense grid of its own cells (a head per cell, a linked list per
// head): a test reads a handful of small arrays instead of hashing every cell it visits.
class BlockedThinning {
 public:
  BlockedThinning(const std::vector<Vec<3>>& samples, double cell, std::int64_t block_cells)
      : samples_(samples), inv_cell_(1.0 / cell), block_cells_(block_cells) {}

  // Bins the samples into blocks (numbered in order of first occurrence) and lists each block's
  // members in sample order.
  void bin() {
    std::vector<std::uint32_t> block_of(samples_.size());
    std::vector<std::uint32_t> count;
    for (std::size_t i = 0; i < samples_.size(); ++i) {
      const Coords c = cell_coords(samples_[i]);
      const Coords bc{floor_div(c[0], block_cells_), floor_div(c[1], block_cells_), floor_div(c[2], block_cells_)};
      const auto [it, fresh] = directory_.try_emplace(bc, static_cast<std::uint32_t>(blocks_.size()));
      if (fresh) {
        blocks_.emplace_back();
        blocks_.back().coords = bc;
        count.push_back(0);
      }
      block_of[i] = it->second;
      ++count[it->second];
    }
    first_.assign(blocks_.size() + 1, 0);
    for (std::size_t b = 0; b < blocks_.size(); ++b) first_[b + 1] = first_[b] + count[b];
    members_.resize(samples_.size());
    std::vector<std::uint32_t> next(first_.begin(), first_.end() - 1);
    for (std::size_t i = 0; i < samples_.size(); ++i) members_[next[block_of[i]]++] = static_cast<std::uint32_t>(i);
  }

  // Thins every block: colour after colour, the blocks of one colour shared out over the team.
  void thin(const std::vector<double>& radius, std::uint64_t seed, int threads) {
    std::array<std::vector<std::uint32_t>, 8> by_colour;
    for (std::uint32_t b = 0; b < blocks_.size(); ++b) by_colour[colour(blocks_[b].coords)].push_back(b);
    for (const auto& blocks : by_colour)
      parallel_for_each_item(blocks.size(), threads, [&](std::size_t k) { thin_block(blocks[k], radius, seed); });
  }

  std::vector<std::uint32_t> kept() const {
    std::vector<std::uint32_t> out;
    for (const Block& b : blocks_) out.insert(out.end(), b.kept.begin(), b.kept.end());
    return out;
  }

 private:
  struct Block {
    Coords coords{};
    std::vector<std::int32_t> head;  // per cell of the block: last kept sample in it (into kept), -1 none
    std::vector<std::int32_t> next;  // per kept sample: the previous one in its cell, -1 none
    std::vector<Vec<3>> pos;         // per kept sample
    std::vector<std::uint32_t> kept;  // per kept sample: its index in the samples
  };

  // The block's members in a random order drawn from (seed, block), each kept when no kept sample
  // (of this block or a neighbouring one) lies within its radius.
  void thin_block(std::uint32_t b, const std::vector<double>& radius, std::uint64_t seed) {
    Block& block = blocks_[b];
    block.head.assign(static_cast<std::size_t>(block_cells_ * block_cells_ * block_cells_), -1);
    const auto begin = members_.begin() + first_[b], end = members_.begin() + first_[b + 1];
    std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ull * (std::uint64_t{b} + 1)));
    std::shuffle(begin, end, rng);
    for (auto it = begin; it != end; ++it) {
      const Vec<3>& p = samples_[*it];
      if (near_kept(block, p, radius[*it])) continue;
      const std::size_t cell = local_cell(block, cell_coords(p));
      block.next.push_back(block.head[cell]);
      block.head[cell] = static_cast<std::int32_t>(block.pos.size());
      block.pos.push_back(p);
      block.kept.push_back(*it);
    }
  }

  // Whether a kept sample lies within r of p, p in `own`. r <= the block edge, so only `own` and its
  // direct neighbours can hold one; those of its colour are never neighbours, so while `own` is thinned
  // no other thread writes any block read here.
  bool near_kept(const Block& own, const Vec<3>& p, double r) const {
    Coords lo, hi, blo, bhi;
    for (int a = 0; a < 3; ++a) {
      lo[a] = static_cast<std::int64_t>(std::floor((p[a] - r) * inv_cell_));
      hi[a] = static_cast<std::int64_t>(std::floor((p[a] + r) * inv_cell_));
      blo[a] = floor_div(lo[a], block_cells_);
      bhi[a] = floor_div(hi[a], block_cells_);
    }
    const double r2 = r * r;
    // p's own cell first: most samples are dropped, usually for a kept sample in that cell.
    const Coords c = cell_coords(p);
    if (any_within(own, c, c, p, r2)) return true;
    Coords bc = blo;
    for (;;) {
      const Block* block = nullptr;
      if (bc == own.coords) block = &own;
      else if (const auto found = directory_.find(bc); found != directory_.end()) block = &blocks_[found->second];
      // A neighbour not thinned yet (a later colour) has an empty grid.
      if (block && !block->head.empty() && any_within(*block, lo, hi, p, r2)) return true;
      int a = 0;
      while (a < 3 && bc[a] == bhi[a]) bc[a] = blo[a], ++a;
      if (a == 3) return false;
      ++bc[a];
    }
  }

  // Whether a kept sample of `block` in the cells [lo, hi] (clipped to the block) is within sqrt(r2) of p.
  bool any_within(const Block& block, const Coords& lo, const Coords& hi, const Vec<3>& p, double r2) const {
    Coords from, to;
    for (int a = 0; a < 3; ++a) {
      const std::int64_t origin = block.coords[a] * block_cells_;
      from[a] = std::max(lo[a], origin) - origin;
      to[a] = std::min(hi[a], origin + block_cells_ - 1) - origin;
    }
    for (std::int64_t z = from[2]; z <= to[2]; ++z)
      for (std::int64_t y = from[1]; y <= to[1]; ++y)
        for (std::int64_t x = from[0]; x <= to[0]; ++x)
          for (std::int32_t k = block.head[static_cast<std::size_t>((z * block_cells_ + y) * block_cells_ + x)]; k >= 0;
               k = block.next[static_cast<std::size_t>(k)])
            if ((block.pos[static_cast<std::size_t>(k)] - p).squaredNorm() < r2) return true;
    return false;
  }

  Coords cell_coords(const Vec<3>& p) const {
    Coords c;
    for (int a = 0; a < 3; ++a) c[a] = static_cast<std::int64_t>(std::floor(p[a] * inv_cell_));
    return c;
  }
  std::size_t local_cell(const Block& block, const Coords& c) const {
    std::size_t index = 0;
    for (int a = 2; a >= 0; --a)
      index = index * static_cast<std::size_t>(block_cells_) + static_cast<std::size_t>(c[a] - block.coords[a] * block_cells_);
    return index;
  }
  static int colour(const Coords& c) { return static_cast<int>((c[0] & 1) | ((c[1] & 1) << 1) | ((c[2] & 1) << 2)); }

  const std::vector<Vec<3>>& samples_;
  double inv_cell_;
  std::int64_t block_cells_;
  std::unordered_map<Coords, std::uint32_t, CoordsHash> directory_;
  std::vector<Block> blocks_;
  std::vector<std::uint32_t> first_, members_;  // block b's samples: members_[first_[b] .. first_[b + 1])
};

}  // namespace

std::vector<std::uint32_t> thin_samples(const std::vector<Vec<3>>& samples, const Spacing& spacing,
                                        double radius_factor, double cell, std::uint64_t seed, int threads) {
  if (samples.empty()) return {};
  threads = std::max(1, threads);
  std::vector<double> radius(samples.size());
  std::vector<double> largest(static_cast<std::size_t>(threads), 0.0);
  std::vector<Spacing::Evaluator> h;  // one per thread: an evaluator is never shared
  for (int t = 0; t < threads; ++t) h.push_back(spacing.evaluator());
  parallel_for(samples.size(), threads, [&](int t, std::size_t i) {
    radius[i] = radius_factor * h[static_cast<std::size_t>(t)](samples[i]);
    if (!(radius[i] > 0.0) || !std::isfinite(radius[i]))
      throw std::runtime_error("spacing h = " + std::to_string(radius[i] / radius_factor) +
                               " on the surface; h must be positive and finite");
    largest[static_cast<std::size_t>(t)] = std::max(largest[static_cast<std::size_t>(t)], radius[i]);
  });
  const double max_radius = *std::max_element(largest.begin(), largest.end());
  // Blocks at least as wide as the largest radius, so a test reaches no further than the next block.
  const auto block_cells = std::max(kMinBlockCells, static_cast<std::int64_t>(std::ceil(max_radius / cell)));
  BlockedThinning thinning(samples, cell, block_cells);
  thinning.bin();
  thinning.thin(radius, seed, threads);
  return thinning.kept();
}

}  // namespace nodegen::geometry_detail
