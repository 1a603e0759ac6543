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
// there is no deadlock. A box that touches more cells than fit the small fixed set gets the set "every
// stripe" (stripes_of_box returns false, so the caller can first try smaller boxes); still correct.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/spin_lock.hpp"

namespace nodegen::fill_detail {

template <int D>
class SpatialLocks {
 public:
  static constexpr int kMaxStripes = 64;  // per box; beyond it the set is "all stripes"

  struct StripeSet {
    std::array<std::uint32_t, kMaxStripes> stripe;
    int count = 0;
    bool all = false;
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
  // that is more than kMaxStripes cells.
  bool stripes_of_box(const Vec<D>& lo, const Vec<D>& hi, StripeSet& set) const {
    std::array<std::int64_t, D> first, last;
    std::int64_t cells = 1;
    for (int a = 0; a < D; ++a) {
      first[a] = cell_coord(lo[a] - origin_[a]);
      last[a] = cell_coord(hi[a] - origin_[a]);
      cells *= last[a] - first[a] + 1;
    }
    set.count = 0;
    set.all = cells > kMaxStripes;
    if (set.all) return false;
    std::array<std::int64_t, D> c = first;
    for (;;) {
      set.stripe[static_cast<std::size_t>(set.count++)] = stripe_of(c);
      int a = 0;
      while (a < D && c[a] == last[a]) c[a] = first[a], ++a;
      if (a == D) break;
      ++c[a];
    }
    std::sort(set.stripe.begin(), set.stripe.begin() + set.count);
    set.count = static_cast<int>(std::unique(set.stripe.begin(), set.stripe.begin() + set.count) - set.stripe.begin());
    return true;
  }

  bool stripes_of_ball(const Vec<D>& centre, double radius, StripeSet& set) const {
    return stripes_of_box(centre.array() - radius, centre.array() + radius, set);
  }

  // Takes the stripes in ascending order (acquire: every insertion made under them before their last
  // release is visible to what follows).
  void lock(const StripeSet& set) {
    if (set.all) {
      for (std::uint32_t s = 0; s <= mask_; ++s) spin_lock(words_[s]);
    } else {
      for (int i = 0; i < set.count; ++i) spin_lock(words_[set.stripe[static_cast<std::size_t>(i)]]);
    }
  }

  void unlock(const StripeSet& set) {
    if (set.all) {
      for (std::uint32_t s = 0; s <= mask_; ++s) spin_unlock(words_[s]);
    } else {
      for (int i = 0; i < set.count; ++i) spin_unlock(words_[set.stripe[static_cast<std::size_t>(i)]]);
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
