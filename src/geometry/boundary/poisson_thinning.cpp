// Blocked, coloured Poisson-disk sample elimination over samples drawn block by block (see
// poisson_thinning.hpp).
#include "geometry/boundary/poisson_thinning.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "nodegen/parallel/thread_team.hpp"
#include "geometry/boundary/point_grid.hpp"
#include "geometry/boundary/surface_spacing.hpp"

namespace nodegen::geometry_detail {
namespace {

// Block edge in cells, at least: larger blocks mean fewer tests that reach into a neighbouring block
// and fewer pieces drawn for two blocks, smaller ones more blocks to share between threads. 6 was best
// while the samples were drawn once; drawn per block, 8 and 10 beat 6 (boundary seconds, torus and gear
// meshes at 1e6 nodes, 1 thread).
constexpr std::int64_t kMinBlockCells = 8;
// ... and at most: a block's dense cell grid takes 4 B per cell (128 KiB at 32), and sized by a radius
// 1e11 times the cell it asked for 1e33 cells. Radii beyond the edge are thinned apart (wide).
constexpr std::int64_t kMaxBlockCells = 32;
// The cell is at most this many times the smallest h on the surface: the cell passed in (the geometric
// mean of the smallest and largest h over the bounding box) is 1e5 h where h spans 1e10, and one cell
// would then hold every sample.
constexpr double kMaxCellPerH = 4.0;
// Pieces are at most this fraction of a block edge wide: a piece's samples are drawn once for every
// block its box overlaps (about (1 + fraction)^2 blocks on a surface), and smaller pieces cost more
// pieces to list (12 B each) and draw. Measured as above: each of 0.5 -> 0.25 -> 0.18 shortened the
// gear's boundary time (0.125: no better).
constexpr double kPieceFraction = 0.18;

using Coords = std::array<std::int64_t, 3>;

struct CoordsHash {
  std::size_t operator()(const Coords& c) const { return static_cast<std::size_t>(cell_hash(c)); }
};

std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// A sample while its block is thinned.
struct Candidate {
  Vec<3> pos;
  double radius;
  std::uint32_t item;
};

// Space is cut into cubic cells of edge `cell`, and the cells into cubic blocks of block_cells^3. Each
// block keeps its kept samples in a dense grid of its own cells (a head per cell, a linked list per
// head): a test reads a handful of small arrays instead of hashing every cell it visits.
class BlockedThinning {
 public:
  BlockedThinning(SampleSource& source, const Spacing& spacing, double radius_factor, double cell,
                  std::int64_t block_cells, int threads, const PointGrid<3>* fixed)
      : source_(source),
        fixed_(fixed && !fixed->empty() ? fixed : nullptr),
        radius_factor_(radius_factor),
        inv_cell_(1.0 / cell),
        block_cells_(block_cells),
        block_edge_(cell * static_cast<double>(block_cells)),
        threads_(threads),
        generated_(static_cast<std::size_t>(threads)),
        candidates_(static_cast<std::size_t>(threads)) {
    h_ = spacing.evaluators(threads);
  }

  // Lists the blocks the items' pieces overlap (numbered in order of first occurrence) and each block's
  // items in item order, so a block can ask for its samples without any sample existing yet.
  void index() {
    std::vector<Coords> mine;  // the blocks of one item
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // (block, item), item by item
    for (std::size_t item = 0; item < source_.items(); ++item) {
      mine.clear();
      source_.pieces(item, [&](const Box<3>& piece) {
        const Box<3> b = widened(piece);
        const Coords lo = block_coords(b.lo), hi = block_coords(b.hi);
        for (std::int64_t z = lo[2]; z <= hi[2]; ++z)
          for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
            for (std::int64_t x = lo[0]; x <= hi[0]; ++x) mine.push_back({x, y, z});
      });
      std::sort(mine.begin(), mine.end());
      mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
      for (const Coords& bc : mine) {
        const auto [it, fresh] = directory_.try_emplace(bc, static_cast<std::uint32_t>(blocks_.size()));
        if (fresh) {
          blocks_.emplace_back();
          blocks_.back().coords = bc;
        }
        pairs.emplace_back(it->second, static_cast<std::uint32_t>(item));
      }
    }
    first_.assign(blocks_.size() + 1, 0);
    for (const auto& p : pairs) ++first_[p.first + 1];
    for (std::size_t b = 0; b < blocks_.size(); ++b) first_[b + 1] += first_[b];
    items_.resize(pairs.size());
    std::vector<std::uint32_t> next(first_.begin(), first_.end() - 1);
    for (const auto& p : pairs) items_[next[p.first]++] = p.second;  // stable: items stay in order
  }

  // Thins every block: colour after colour, the blocks of one colour shared out over the team; then
  // the wide samples.
  void thin(std::uint64_t seed) {
    std::array<std::vector<std::uint32_t>, 8> by_colour;
    for (std::uint32_t b = 0; b < blocks_.size(); ++b) by_colour[colour(blocks_[b].coords)].push_back(b);
    for (const auto& blocks : by_colour)
      parallel_for_each_item(blocks.size(), threads_, [&](int t, std::size_t k) { thin_block(blocks[k], t, seed); });
    thin_wide(seed);
  }

  std::vector<SurfaceSample> kept() const {
    std::vector<SurfaceSample> out;
    for (const Block& b : blocks_)
      for (std::size_t k = 0; k < b.pos.size(); ++k) out.push_back({b.pos[k], b.item[k]});
    out.insert(out.end(), wide_kept_.begin(), wide_kept_.end());
    return out;
  }

 private:
  struct Block {
    Coords coords{};
    bool thinned = false;            // its samples are thinned (or being thinned): its kept ones count
    std::vector<std::int32_t> head;  // dense blocks: per cell, the last kept sample in it, -1 none
    std::vector<std::int32_t> next;  // per kept sample: the previous one in its cell, -1 none
    std::vector<Vec<3>> pos;         // per kept sample
    std::vector<std::uint32_t> item;  // per kept sample
    std::vector<Candidate> wide;     // samples of this block whose radius exceeds the block edge
  };

  // The block's samples (drawn from the pieces that overlap it, in item order) in a random order drawn
  // from (seed, block), each kept when no kept sample (of this block or a neighbouring one) lies within
  // its radius.
  void thin_block(std::uint32_t b, int thread, std::uint64_t seed) {
    Block& block = blocks_[b];
    auto& generated = generated_[static_cast<std::size_t>(thread)];
    auto& candidates = candidates_[static_cast<std::size_t>(thread)];
    const auto& h = h_[static_cast<std::size_t>(thread)];
    candidates.clear();
    Box<3> region;
    for (int a = 0; a < 3; ++a) {
      region.lo[a] = static_cast<double>(block.coords[a]) * block_edge_;
      region.hi[a] = region.lo[a] + block_edge_;
    }
    region = widened(region);
    for (std::uint32_t k = first_[b]; k < first_[b + 1]; ++k) {
      generated.clear();
      source_.samples(items_[k], region, thread, generated);
      for (const SurfaceSample& s : generated) {
        if (block_coords(s.pos) != block.coords) continue;  // another block's: drawn there too
        const double r = radius_factor_ * checked_surface_spacing(h(s.pos));
        // Wide a hair early: a radius within rounding of the block edge must not reach two blocks over
        // (a block of the same colour, thinned at the same time).
        if (r > block_edge_ * (1.0 - 1e-9)) block.wide.push_back({s.pos, r, s.item});
        else candidates.push_back({s.pos, r, s.item});
      }
    }
    std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ull * (std::uint64_t{b} + 1)));
    std::shuffle(candidates.begin(), candidates.end(), rng);
    // A dense grid of heads only where the block has samples enough to fill it: with a graded spacing
    // the cell follows the smallest h on the whole surface, and a 32^3 grid (128 KiB) in every block of
    // the coarse parts held gigabytes for a 1 550-node torus (h from 2e-4 to 0.5). A sparse block keeps
    // its few kept samples in a list, scanned whole (the same answers: any kept sample within r of p
    // lies in the cells a dense test visits).
    const std::size_t cells = static_cast<std::size_t>(block_cells_ * block_cells_ * block_cells_);
    if (candidates.size() >= cells / 16) block.head.assign(cells, -1);
    block.thinned = true;
    for (const Candidate& c : candidates) {
      if (near_kept(block, c.pos, c.radius) || near_fixed(c.pos, c.radius)) continue;
      if (!block.head.empty()) {
        const std::size_t cell = local_cell(block, cell_coords(c.pos));
        block.next.push_back(block.head[cell]);
        block.head[cell] = static_cast<std::int32_t>(block.pos.size());
      }
      block.pos.push_back(c.pos);
      block.item.push_back(c.item);
    }
  }

  // The wide samples of every block, in one random order drawn from the seed, after all blocks: each is
  // tested against every kept sample within its radius, on one thread (there are few: their h is more
  // than the block edge, so their density is at most 1/kMinBlockCells^2 of the usual).
  void thin_wide(std::uint64_t seed) {
    std::vector<Candidate> wide;
    for (Block& b : blocks_) {
      wide.insert(wide.end(), b.wide.begin(), b.wide.end());
      b.wide = {};
    }
    std::mt19937_64 rng(seed ^ 0xD1B54A32D192ED03ull);
    std::shuffle(wide.begin(), wide.end(), rng);
    PointGrid<3> kept(block_edge_);  // scans its points for balls far wider than its cells
    for (const Candidate& c : wide) {
      if (near_fixed(c.pos, c.radius) || kept.any_within(c.pos, c.radius) || near_kept_anywhere(c.pos, c.radius)) continue;
      kept.insert(c.pos);
      wide_kept_.push_back({c.pos, c.item});
    }
  }

  // Whether a node placed before the thinning (fixed_, read by every thread, written by none) lies within r of p.
  bool near_fixed(const Vec<3>& p, double r) const { return fixed_ && fixed_->any_within(p, r); }

  // Whether a kept sample lies within r of p, p in `own`. r <= the block edge, so only `own` and its
  // direct neighbours can hold one; those of its colour are never neighbours, so while `own` is thinned
  // no other thread writes any block read here.
  bool near_kept(const Block& own, const Vec<3>& p, double r) const {
    Coords lo, hi, blo, bhi;
    for (int a = 0; a < 3; ++a) {
      lo[a] = cell_coord(p[a] - r);
      hi[a] = cell_coord(p[a] + r);
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
      // A neighbour not thinned yet (a later colour) has nothing kept yet.
      if (block && block->thinned && any_within(*block, lo, hi, p, r2)) return true;
      int a = 0;
      while (a < 3 && bc[a] == bhi[a]) bc[a] = blo[a], ++a;
      if (a == 3) return false;
      ++bc[a];
    }
  }

  // Whether any block's kept sample lies within r of p, r above the block edge (all blocks are thinned).
  bool near_kept_anywhere(const Vec<3>& p, double r) const {
    const double r2 = r * r;
    auto near_block = [&](const Block& b) {
      if (b.pos.empty()) return false;
      double nearest = 0.0, farthest = 0.0;  // squared distances from p to the block's box
      for (int a = 0; a < 3; ++a) {
        const double lo = static_cast<double>(b.coords[a]) * block_edge_, hi = lo + block_edge_;
        const double out = std::max({lo - p[a], 0.0, p[a] - hi});
        const double far = std::max(p[a] - lo, hi - p[a]);
        nearest += out * out;
        farthest += far * far;
      }
      if (nearest >= r2) return false;
      if (farthest < r2 * (1.0 - 1e-9)) return true;  // the whole box is within r (up to rounding)
      for (const Vec<3>& q : b.pos)
        if ((q - p).squaredNorm() < r2) return true;
      return false;
    };
    const Coords lo = block_coords(p - Vec<3>::Constant(r)), hi = block_coords(p + Vec<3>::Constant(r));
    double range = 1.0;
    for (int a = 0; a < 3; ++a) range *= static_cast<double>(hi[a] - lo[a]) + 1.0;
    if (range > static_cast<double>(blocks_.size())) {
      // More block coordinates in reach than blocks: look at every block.
      for (const Block& b : blocks_)
        if (near_block(b)) return true;
      return false;
    }
    for (std::int64_t z = lo[2]; z <= hi[2]; ++z)
      for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
        for (std::int64_t x = lo[0]; x <= hi[0]; ++x)
          if (const auto found = directory_.find({x, y, z}); found != directory_.end() && near_block(blocks_[found->second]))
            return true;
    return false;
  }

  // Whether a kept sample of `block` in the cells [lo, hi] (clipped to the block) is within sqrt(r2) of p.
  bool any_within(const Block& block, const Coords& lo, const Coords& hi, const Vec<3>& p, double r2) const {
    if (block.head.empty()) {  // a sparse block: its list
      for (const Vec<3>& q : block.pos)
        if ((q - p).squaredNorm() < r2) return true;
      return false;
    }
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

  // Clamped, as in PointGrid, so a far point or a huge radius stays a finite cell index.
  std::int64_t cell_coord(double x) const {
    return static_cast<std::int64_t>(std::clamp(std::floor(x * inv_cell_), -1e15, 1e15));
  }
  Coords cell_coords(const Vec<3>& p) const { return {cell_coord(p[0]), cell_coord(p[1]), cell_coord(p[2])}; }
  Coords block_coords(const Vec<3>& p) const {
    const Coords c = cell_coords(p);
    return {floor_div(c[0], block_cells_), floor_div(c[1], block_cells_), floor_div(c[2], block_cells_)};
  }
  std::size_t local_cell(const Block& block, const Coords& c) const {
    std::size_t index = 0;
    for (int a = 2; a >= 0; --a)
      index = index * static_cast<std::size_t>(block_cells_) + static_cast<std::size_t>(c[a] - block.coords[a] * block_cells_);
    return index;
  }
  // A piece's box or a block's region, grown by far more than the rounding of a sample's coordinates,
  // so a sample on a block face is drawn by the block its coordinates fall in.
  Box<3> widened(const Box<3>& b) const {
    const double margin = 1e-9 * (block_edge_ + b.reach());
    return {b.lo.array() - margin, b.hi.array() + margin};
  }
  static int colour(const Coords& c) { return static_cast<int>((c[0] & 1) | ((c[1] & 1) << 1) | ((c[2] & 1) << 2)); }

  SampleSource& source_;
  const PointGrid<3>* fixed_;
  double radius_factor_, inv_cell_;
  std::int64_t block_cells_;
  double block_edge_;
  int threads_;
  std::vector<Spacing::Evaluator> h_;  // one per thread: an evaluator is never shared
  std::vector<std::vector<SurfaceSample>> generated_;  // per thread: one item's samples
  std::vector<std::vector<Candidate>> candidates_;      // per thread: one block's samples
  std::unordered_map<Coords, std::uint32_t, CoordsHash> directory_;
  std::vector<Block> blocks_;
  std::vector<std::uint32_t> first_, items_;  // block b's items: items_[first_[b] .. first_[b + 1])
  std::vector<SurfaceSample> wide_kept_;
};

}  // namespace

std::vector<SurfaceSample> thin_samples(SampleSource& source, const Spacing& spacing, double radius_factor,
                                        double cell, std::uint64_t seed, int threads, const PointGrid<3>* fixed) {
  threads = std::max(1, threads);
  const auto [h_lo, h_hi] = source.spacing_range();
  if (h_lo > h_hi) return {};  // an empty range: no samples
  checked_surface_spacing(h_lo);
  checked_surface_spacing(h_hi);
  cell = std::min(cell, kMaxCellPerH * h_lo);
  // Blocks at least as wide as the largest radius, so a test reaches no further than the next block;
  // within the cap (computed in double: the ratio may be 1e11).
  const double wanted = std::ceil(radius_factor * h_hi / cell);
  const auto block_cells = static_cast<std::int64_t>(
      std::clamp(wanted, static_cast<double>(kMinBlockCells), static_cast<double>(kMaxBlockCells)));
  source.set_piece_size(kPieceFraction * cell * static_cast<double>(block_cells));
  if (source.items() == 0) return {};
  BlockedThinning thinning(source, spacing, radius_factor, cell, block_cells, threads, fixed);
  thinning.index();
  thinning.thin(seed);
  return thinning.kept();
}

}  // namespace nodegen::geometry_detail
