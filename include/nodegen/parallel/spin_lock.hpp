#pragma once
// A one-word spin lock (0 free, 1 held) for sections of a few hundred nanoseconds that threads rarely
// contend for: the k-d tree's claim batches and free lists, the fill's stripe locks. Test and
// test-and-set (a waiter reads until the word looks free, so it does not keep stealing the line from
// the holder), with Backoff between attempts: a short spin, then yields, because with more threads than
// cores the holder may be descheduled.
#include <atomic>
#include <cstdint>

#include "nodegen/parallel/backoff.hpp"

namespace nodegen {

inline void spin_lock(std::atomic<std::uint32_t>& word) {
  Backoff backoff;
  for (;;) {
    std::uint32_t expected = 0;
    if (word.load(std::memory_order_relaxed) == 0 &&
        word.compare_exchange_weak(expected, 1u, std::memory_order_acquire, std::memory_order_relaxed))
      return;
    backoff.pause();
  }
}

inline void spin_unlock(std::atomic<std::uint32_t>& word) { word.store(0, std::memory_order_release); }

// Holds a spin lock for a scope.
class SpinGuard {
 public:
  explicit SpinGuard(std::atomic<std::uint32_t>& word) : word_(word) { spin_lock(word_); }
  ~SpinGuard() { spin_unlock(word_); }
  SpinGuard(const SpinGuard&) = delete;
  SpinGuard& operator=(const SpinGuard&) = delete;

 private:
  std::atomic<std::uint32_t>& word_;
};

// The same as a Lockable (std::unique_lock, std::lock_guard).
class SpinMutex {
 public:
  void lock() { spin_lock(word_); }
  void unlock() { spin_unlock(word_); }

 private:
  std::atomic<std::uint32_t> word_{0};
};

}  // namespace nodegen
