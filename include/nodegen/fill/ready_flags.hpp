#pragma once
// One "written" byte per node slot, so the parallel fill can hand out a claimed slot for expansion
// without every appender waiting for all earlier appenders to finish (ordered publication stalls the
// whole team whenever one thread is descheduled between its claim and its publish; on a shared
// 2-core machine that is constantly).
//
// The bytes live in an untouched MAP_NORESERVE reservation of `capacity` bytes: zero (not written)
// until set, committed page by page as the fill advances, about 1 byte per node in the end.
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "nodegen/fill/spatial_locks.hpp"
#include "nodegen/storage/vm_region.hpp"

namespace nodegen::fill_detail {

class ReadyFlags {
 public:
  explicit ReadyFlags(std::size_t capacity) : region_(capacity) {}

  // Release: the slot's contents, written before, are visible to whoever sees the flag.
  void set(std::size_t i) { flag(i).store(1, std::memory_order_release); }
  bool is_set(std::size_t i) const { return flag(i).load(std::memory_order_acquire) != 0; }

  // Waits until slot i is written; returns false if `give_up` became true first (another thread failed
  // and slot i may never be written).
  bool wait(std::size_t i, const std::atomic<bool>& give_up) const {
    Backoff backoff;
    while (!is_set(i)) {
      if (give_up.load(std::memory_order_relaxed)) return false;
      backoff.pause();
    }
    return true;
  }

 private:
  std::atomic_ref<std::uint8_t> flag(std::size_t i) const {
    return std::atomic_ref<std::uint8_t>(reinterpret_cast<std::uint8_t*>(region_.data())[i]);
  }

  VmRegion region_;
};

}  // namespace nodegen::fill_detail
