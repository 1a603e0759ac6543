#pragma once
// StripedCounter: a count many threads bump on their hot path. One shared atomic would bounce its
// cache line between cores on every increment; here each thread adds to one of kStripes padded
// counters (chosen once per thread) and reads sum them. Reads are exact once the writers are done
// and a lower bound of completed increments while they run.
#include <atomic>
#include <cstddef>

namespace nodegen::spatial_detail {

class StripedCounter {
 public:
  void add(std::size_t n) {
    stripes_[stripe_of_this_thread()].value.fetch_add(n, std::memory_order_relaxed);
  }
  std::size_t sum() const {
    std::size_t total = 0;
    for (const auto& s : stripes_) total += s.value.load(std::memory_order_relaxed);
    return total;
  }

 private:
  static constexpr std::size_t kStripes = 16;
  struct alignas(64) Stripe {
    std::atomic<std::size_t> value{0};
  };

  static std::size_t stripe_of_this_thread() {
    static std::atomic<std::size_t> next{0};
    thread_local const std::size_t stripe = next.fetch_add(1, std::memory_order_relaxed) % kStripes;
    return stripe;
  }

  Stripe stripes_[kStripes];
};

}  // namespace nodegen::spatial_detail
