#pragma once
// ClaimBatches<A>: hands out the slots of one arena to the threads inserting into a k-d tree in
// per-thread runs instead of one fetch_add on the arena's shared frontier per claim.
//
// Why (bench/results/kdtree.md): every leaf split claims a bucket and one or more
// nodes. Claimed straight from the arena, (1) every split is an atomic add on one frontier word whose
// cache line then moves to the other core, and (2) consecutive slots go to different threads, so two
// threads first-touch the same fresh 4 KiB page at the same moment: the kernel zeroes a page for each
// and throws one away, and both contend on the page-table lock. Here a thread takes `batch` slots at a
// time into its stripe and hands them out one claim at a time: the frontier is touched once per batch,
// and a thread's buckets and nodes sit on pages of their own.
//
// Each stripe is a lock word and a range on a cache line of its own. Threads pick a stripe once
// (stripe_of_this_thread); two threads that share one still get distinct slots (the stripe's lock
// orders them), they only lose the locality. A claim larger than a quarter batch, or larger than what
// the stripe has left, goes straight to the arena, so no slot is ever abandoned: at most
// kStripes * batch claimed slots sit unused in the stripes (the arenas get that much extra capacity).
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/spin_lock.hpp"

namespace nodegen::spatial_detail {

inline constexpr std::size_t kClaimStripes = 16;

// A stripe index for the calling thread, fixed for its lifetime; consecutive threads get consecutive
// stripes, so up to kClaimStripes threads started together never share one.
inline std::size_t stripe_of_this_thread() {
  static std::atomic<std::size_t> next{0};
  thread_local const std::size_t stripe = next.fetch_add(1, std::memory_order_relaxed) % kClaimStripes;
  return stripe;
}

template <class A>
class ClaimBatches {
 public:
  ClaimBatches(A& arena, std::size_t batch) : arena_(arena), batch_(batch) {}
  ClaimBatches(const ClaimBatches&) = delete;
  ClaimBatches& operator=(const ClaimBatches&) = delete;

  static constexpr std::size_t spare_capacity(std::size_t batch) { return kClaimStripes * batch; }

  // n consecutive fresh slots of the arena; throws what the arena's claim throws (StoreFull).
  std::size_t claim(std::size_t n) {
    if (n > batch_ / 4) return arena_.claim(n);
    Stripe& s = stripes_[stripe_of_this_thread()];
    SpinGuard guard(s.lock);
    if (s.end - s.next < n) {
      if (s.end != s.next) return arena_.claim(n);  // keep the remainder for the next small claims
      s.next = arena_.claim(batch_);
      s.end = s.next + batch_;
    }
    const std::size_t first = s.next;
    s.next += n;
    return first;
  }

 private:
  struct alignas(kFalseSharingBytes) Stripe {
    std::atomic<std::uint32_t> lock{0};
    std::size_t next = 0;  // guarded by lock
    std::size_t end = 0;   // guarded by lock
  };

  A& arena_;
  const std::size_t batch_;
  Stripe stripes_[kClaimStripes];
};

}  // namespace nodegen::spatial_detail
