#pragma once
// Striped spatial locks with versions (a seqlock per stripe) over a uniform grid of cells: the conflict
// handling of the parallel fill (docs/parallel-fill.md has the full argument).
//
// Every cell of the grid hashes to one stripe, a 64-bit word: even = free, odd = held. Taking a stripe
// turns v into v + 1; releasing it after an insertion stores v + 2, releasing without one restores v.
// So "the word still reads the even value it read earlier" means "nobody inserted a node under this
// stripe in between", which lets a thread skip its second neighbourhood query in the common case.
//
// A ball's stripe set is the stripes of the cells its bounding box touches, sorted and deduplicated:
// stripes are always taken in ascending order and no thread waits for anything else while it holds
// some, so there is no deadlock. When the ball would touch more cells than fit the small fixed set
// (the cell size was sampled from h and h turned out larger somewhere), the set becomes "every stripe",
// which is still correct, only slower.
#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/backoff.hpp"

namespace nodegen::fill_detail {

template <int D>
class SpatialLocks {
 public:
  static constexpr int kMaxStripes = 64;  // per ball; beyond it the set is "all stripes"

  struct StripeSet {
    std::array<std::uint32_t, kMaxStripes> stripe;
    std::array<std::uint64_t, kMaxStripes> seen;  // version read by snapshot(), then by lock()
    int count = 0;
    bool all = false;
  };

  // `origin`: any point (the domain's lower corner); `cell`: the cell edge, > 0; `stripes_log2`: table size.
  SpatialLocks(const Vec<D>& origin, double cell, int stripes_log2 = 15)
      : origin_(origin),
        inv_cell_(1.0 / cell),
        mask_((std::uint32_t{1} << stripes_log2) - 1),
        words_(std::make_unique<std::atomic<std::uint64_t>[]>(std::size_t{mask_} + 1)) {
    for (std::size_t i = 0; i <= mask_; ++i) words_[i].store(0, std::memory_order_relaxed);
  }

  std::size_t stripe_count() const { return std::size_t{mask_} + 1; }

  // The stripes of every cell that the ball (centre, radius) touches.
  void stripes_of_ball(const Vec<D>& centre, double radius, StripeSet& set) const {
    std::array<std::int64_t, D> lo, hi;
    std::int64_t cells = 1;
    for (int a = 0; a < D; ++a) {
      lo[a] = cell_coord(centre[a] - radius - origin_[a]);
      hi[a] = cell_coord(centre[a] + radius - origin_[a]);
      cells *= hi[a] - lo[a] + 1;
    }
    set.count = 0;
    set.all = cells > kMaxStripes;
    if (set.all) return;
    std::array<std::int64_t, D> c = lo;
    for (;;) {
      set.stripe[static_cast<std::size_t>(set.count++)] = stripe_of(c);
      int a = 0;
      while (a < D && c[a] == hi[a]) c[a] = lo[a], ++a;
      if (a == D) break;
      ++c[a];
    }
    // Insertion sort: the set is tiny (4 in 2D, 8 in 3D in the normal case).
    for (int i = 1; i < set.count; ++i) {
      const std::uint32_t v = set.stripe[static_cast<std::size_t>(i)];
      int j = i - 1;
      for (; j >= 0 && set.stripe[static_cast<std::size_t>(j)] > v; --j)
        set.stripe[static_cast<std::size_t>(j + 1)] = set.stripe[static_cast<std::size_t>(j)];
      set.stripe[static_cast<std::size_t>(j + 1)] = v;
    }
    set.count = static_cast<int>(std::unique(set.stripe.begin(), set.stripe.begin() + set.count) - set.stripe.begin());
  }

  // Records the current versions (acquire: every insertion released under these stripes before now is
  // visible to the queries that follow). Must run before the optimistic neighbourhood query.
  void snapshot(StripeSet& set) const {
    if (set.all) return;  // the "all" path always re-queries under the locks
    for (int i = 0; i < set.count; ++i) set.seen[static_cast<std::size_t>(i)] = words_[set.stripe[static_cast<std::size_t>(i)]].load(std::memory_order_acquire);
  }

  // Takes the stripes in ascending order. Returns true when none of them was taken by anyone between
  // snapshot() and now, i.e. no node was inserted under them since: the optimistic query is still exact.
  bool lock(StripeSet& set) {
    if (set.all) {
      for (std::uint32_t s = 0; s <= mask_; ++s) acquire(s);
      return false;
    }
    bool unchanged = true;
    for (int i = 0; i < set.count; ++i) {
      const std::uint64_t before = set.seen[static_cast<std::size_t>(i)];
      const std::uint64_t now = acquire(set.stripe[static_cast<std::size_t>(i)]);
      unchanged = unchanged && (before & 1u) == 0 && before == now;
      set.seen[static_cast<std::size_t>(i)] = now;
    }
    return unchanged;
  }

  // Releases the stripes; `inserted` bumps their versions so concurrent snapshots notice.
  void unlock(StripeSet& set, bool inserted) {
    const std::uint64_t bump = inserted ? 2 : 0;
    if (set.all) {
      for (std::uint32_t s = 0; s <= mask_; ++s)
        words_[s].store(words_[s].load(std::memory_order_relaxed) - 1 + bump, std::memory_order_release);
      return;
    }
    for (int i = 0; i < set.count; ++i)
      words_[set.stripe[static_cast<std::size_t>(i)]].store(set.seen[static_cast<std::size_t>(i)] + bump, std::memory_order_release);
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

  // Spins until the stripe is free and takes it; returns the (even) version it had.
  std::uint64_t acquire(std::uint32_t s) {
    Backoff backoff;
    for (;;) {
      std::uint64_t v = words_[s].load(std::memory_order_relaxed);
      if ((v & 1u) == 0 && words_[s].compare_exchange_weak(v, v + 1, std::memory_order_acquire, std::memory_order_relaxed))
        return v;
      backoff.pause();
    }
  }

  Vec<D> origin_;
  double inv_cell_;
  std::uint32_t mask_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> words_;
};

}  // namespace nodegen::fill_detail
