#pragma once
// Striped spatial locks over a uniform grid of cells: the conflict handling of the parallel fill
// (docs/parallel-fill.md has the full argument).
//
// Every cell of the grid hashes to one stripe, a spin lock. A thread expands a group of nodes (a run,
// or part of one) while it holds the stripes of every cell that the group's query balls touch; two
// expansions that could place conflicting nodes have query balls that share a cell, so they never run
// at the same time, and the later one's query sees the earlier one's nodes.
//
// A box's stripe set is the stripes of the cells it touches, sorted and deduplicated: stripes are
// always taken in ascending order and no thread waits for another stripe set while it holds one, so
// there is no deadlock. A box over more cells than the caller's limit is refused (stripes_of_box
// returns false), so the fill can try smaller groups first; a single node takes the stripes of all the
// cells its ball touches, however many (the set "every stripe" only when they are at least as many as
// the stripes). Any cell size is correct; the cell size only decides how much locking costs.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/spin_lock.hpp"

namespace nodegen::fill_detail {

template <int D>
class SpatialLocks {
 public:
  static constexpr std::size_t kMaxStripes = 64;  // per group box (the fill splits larger groups)
  static constexpr std::size_t kUnlimited = ~std::size_t{0};

  struct StripeSet {
    std::vector<std::uint32_t> stripe;  // sorted, unique: the lock order
    bool all = false;                   // every stripe instead
    StripeSet() { stripe.reserve(kMaxStripes); }
  };

  // `origin`: any point (the domain's lower corner); `cell`: the cell edge, > 0; `stripes_log2`: table size.
  SpatialLocks(const Vec<D>& origin, double cell, int stripes_log2 = 15)
      : origin_(origin),
        inv_cell_(1.0 / cell),
        mask_((std::uint32_t{1} << stripes_log2) - 1),
        words_(std::make_unique<std::atomic<std::uint32_t>[]>(std::size_t{mask_} + 1)) {
    for (std::size_t i = 0; i <= mask_; ++i) words_[i].store(0, std::memory_order_relaxed);
  }

  // The stripes of every cell that the box [lo, hi] touches. Returns false (and the set "all") when
  // that is more than `limit` cells (never with kUnlimited). A box over at least as many cells as there
  // are stripes gets the set "all" (returning true if the limit allows it).
  bool stripes_of_box(const Vec<D>& lo, const Vec<D>& hi, StripeSet& set, std::size_t limit = kMaxStripes) const {
    std::array<std::int64_t, D> first, last;
    double cells = 1;  // as a double: a huge box must not overflow the count
    for (int a = 0; a < D; ++a) {
      first[a] = cell_coord(lo[a] - origin_[a]);
      last[a] = cell_coord(hi[a] - origin_[a]);
      cells *= static_cast<double>(last[a] - first[a] + 1);
    }
    set.stripe.clear();
    // kUnlimited never refuses, however large the count (a single node must always get a set: the fill
    // cannot split it further).
    const bool refused = limit != kUnlimited && cells > static_cast<double>(limit);
    set.all = refused || cells >= static_cast<double>(mask_) + 1.0;
    if (refused) return false;
    if (set.all) return true;
    std::array<std::int64_t, D> c = first;
    for (;;) {
      set.stripe.push_back(stripe_of(c));
      int a = 0;
      while (a < D && c[a] == last[a]) c[a] = first[a], ++a;
      if (a == D) break;
      ++c[a];
    }
    std::sort(set.stripe.begin(), set.stripe.end());
    set.stripe.erase(std::unique(set.stripe.begin(), set.stripe.end()), set.stripe.end());
    return true;
  }

  bool stripes_of_ball(const Vec<D>& centre, double radius, StripeSet& set, std::size_t limit = kMaxStripes) const {
    return stripes_of_box(centre.array() - radius, centre.array() + radius, set, limit);
  }

  // Takes the stripes in ascending order (acquire: every insertion made under them before their last
  // release is visible to what follows).
  void lock(const StripeSet& set) {
    if (set.all) {
      for (std::uint32_t s = 0; s <= mask_; ++s) spin_lock(words_[s]);
    } else {
      for (std::uint32_t w : set.stripe) spin_lock(words_[w]);
    }
  }

  void unlock(const StripeSet& set) {
    if (set.all) {
      for (std::uint32_t s = 0; s <= mask_; ++s) spin_unlock(words_[s]);
    } else {
      for (std::uint32_t w : set.stripe) spin_unlock(words_[w]);
    }
  }

 private:
  std::int64_t cell_coord(double offset) const {
    // Clamped so points far outside the box (rejected candidates never get here, but be safe) stay finite.
    const double c = std::clamp(std::floor(offset * inv_cell_), -1e15, 1e15);
    return static_cast<std::int64_t>(c);
  }

  std::uint32_t stripe_of(const std::array<std::int64_t, D>& c) const {
    std::uint64_t h = 0x243F6A8885A308D3ull;
    for (int a = 0; a < D; ++a) {
      h ^= static_cast<std::uint64_t>(c[a]) + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      h *= 0xBF58476D1CE4E5B9ull;
    }
    return static_cast<std::uint32_t>(h >> 32) & mask_;
  }

  Vec<D> origin_;
  double inv_cell_;
  std::uint32_t mask_;
  std::unique_ptr<std::atomic<std::uint32_t>[]> words_;
};

}  // namespace nodegen::fill_detail
