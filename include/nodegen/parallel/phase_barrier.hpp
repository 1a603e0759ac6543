#pragma once
// PhaseBarrier: a reusable barrier for a thread team that meets very often (at every one of the fill's
// phases, each a short round of work), with a completion step run by the last thread to arrive while
// the others wait.
//
// Design: a count of threads still to arrive and a phase number. A thread arrives by decrementing the
// count; the last one runs the completion step, resets the count, publishes the next phase number
// (release) and wakes the sleepers. The others wait for the phase number to change. How they wait
// depends on the team's size: when every member can have a core (team <= hardware threads), they spin
// for up to kSpin before sleeping, because waking a sleeper (a futex wake, an inter-processor
// interrupt on a VM) takes longer than a phase's tail: with std::barrier, which sleeps after a few
// dozen spins, the second of two threads is still waking up when the first has taken the next
// round's work, and 2 threads run no faster than 1 (bench/fill, 2D, 1e6 nodes). kSpin must also
// exceed the time a sleeper's idle core takes to wake, which on a VM can be long: with a shorter spin,
// once one member sleeps (its partner held up by the host), the partner does the next round alone and
// then waits for the slow waker longer than the spin, sleeps in turn, and so on, the two taking turns
// for dozens of rounds and the run losing time (measured: bench/RESULTS.md, Fill). With more members
// than cores, spinning would hold a core that a member still working needs, so they sleep at once
// (std::atomic::wait, a futex).
//
// Ordering: every write a thread makes before arriving happens before the completion step (the
// count's decrements form a release sequence that the last arrival's acquire reads), and the
// completion step's writes happen before any thread returns from arrive_and_wait (the phase
// number's release store, acquired by every waiter).
#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/wait_for_change.hpp"

namespace nodegen {

class PhaseBarrier {
 public:
  explicit PhaseBarrier(int threads)
      : threads_(threads < 1 ? 1 : threads),
        spin_(static_cast<unsigned>(threads_) <= std::thread::hardware_concurrency()),
        remaining_(threads_) {}

  // Whether a waiting member spins before it sleeps (every member can have a core).
  bool spins() const { return spin_; }

  // `completion` must not throw (it runs while every other thread waits for it).
  template <class Completion>
  void arrive_and_wait(Completion&& completion) noexcept {
    arrive_and_wait_up_to(completion, kSpin);
  }

  // The team's first meeting, before its first round. The operating system starts (or wakes) the
  // members at different times: on a VM a member's idle vCPU can take longer than kSpin to come up,
  // so its partner fell asleep at this meeting, was woken as late in turn, and the two took turns
  // sleeping for the next rounds (measured: bench/RESULTS.md, Fill). Here a waiter spins up to
  // kStartSpin instead.
  void meet() noexcept {
    arrive_and_wait_up_to([]() noexcept {}, kStartSpin);
  }

 private:
  template <class Completion>
  void arrive_and_wait_up_to(Completion&& completion, std::chrono::microseconds spin) noexcept {
    const std::uint32_t phase = phase_.load(std::memory_order_acquire);
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      completion();
      remaining_.store(threads_, std::memory_order_relaxed);
      phase_.store(phase + 1, std::memory_order_release);
      phase_.notify_all();
      return;
    }
    wait_for_change(phase_, phase, spin_, spin);
  }

  static constexpr std::chrono::microseconds kSpin{2000};
  static constexpr std::chrono::microseconds kStartSpin{50000};
  const int threads_;
  const bool spin_;
  alignas(kFalseSharingBytes) std::atomic<int> remaining_;
  alignas(kFalseSharingBytes) std::atomic<std::uint32_t> phase_{0};
};

}  // namespace nodegen
