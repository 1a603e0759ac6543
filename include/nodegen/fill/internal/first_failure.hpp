#pragma once
// FirstFailure: the first error any thread of the fill's team meets, kept for the caller, and a flag
// the other threads poll to stop taking work.
//
// A thread that fails records its exception (the first one wins) and still arrives at the phase
// barrier, so nobody waits for it; the completion step then ends the fill and the team's launcher
// rethrows the error on the calling thread. The flag is read relaxed: it only tells the others to stop
// early, and the barrier orders the error itself before the completion step and the rethrow.
#include <atomic>
#include <exception>
#include <mutex>
#include <utility>

namespace nodegen::fill_detail {

class FirstFailure {
 public:
  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  void fail(std::exception_ptr e) noexcept {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = std::move(e);
    failed_.store(true, std::memory_order_relaxed);  // the others stop taking items
  }
  // The first error (null when none), for a step where no thread is failing.
  const std::exception_ptr& error() const { return error_; }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::mutex mutex_;
  std::exception_ptr error_;
};

}  // namespace nodegen::fill_detail
