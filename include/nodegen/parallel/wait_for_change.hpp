#pragma once
// wait_for_change: how a thread of a team waits for another to move a shared counter on (a barrier's
// phase number, a schedule's count of wakes). When the waiter can have a core of its own, it spins
// first, for up to `spin`, because the waits are short (a round's tail, an item of a few
// microseconds) and waking a sleeper (a futex wake, an inter-processor interrupt on a VM) takes longer
// than they do; then, or at once when spinning would take a core from a thread still working, it
// sleeps (std::atomic::wait). The clock is read every 256 spins only.
// Ordering: returns after an acquire load that read a value other than `seen`.
#include <atomic>
#include <chrono>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace nodegen {

inline void wait_for_change(const std::atomic<std::uint32_t>& word, std::uint32_t seen, bool spin_first,
                            std::chrono::microseconds spin) noexcept {
  if (spin_first) {
    const auto start = std::chrono::steady_clock::now();
    for (unsigned spins = 1;; ++spins) {
      if (word.load(std::memory_order_acquire) != seen) return;
#if defined(__x86_64__) || defined(__i386__)
      _mm_pause();
#endif
      if (spins % 256 == 0 && std::chrono::steady_clock::now() - start > spin) break;
    }
  }
  while (word.load(std::memory_order_acquire) == seen) word.wait(seen, std::memory_order_acquire);
}

}  // namespace nodegen
