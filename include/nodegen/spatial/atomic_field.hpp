#pragma once
// Atomic access to plain fields of arena elements. Arena elements must be trivially copyable (the store
// concept), so they cannot hold std::atomic members; every field that one thread writes while another
// may read it is accessed through std::atomic_ref instead, which compiles to plain moves on x86-64
// for relaxed and acquire/release orders but keeps the program free of data races (and ThreadSanitizer
// quiet, since it sees the accesses as atomic).
#include <atomic>

#include "nodegen/parallel/backoff.hpp"

namespace nodegen::spatial_detail {

template <class T>
inline T load_relaxed(T& field) {
  return std::atomic_ref<T>(field).load(std::memory_order_relaxed);
}
template <class T>
inline T load_acquire(T& field) {
  return std::atomic_ref<T>(field).load(std::memory_order_acquire);
}
template <class T>
inline void store_relaxed(T& field, T value) {
  std::atomic_ref<T>(field).store(value, std::memory_order_relaxed);
}
template <class T>
inline void store_release(T& field, T value) {
  std::atomic_ref<T>(field).store(value, std::memory_order_release);
}

}  // namespace nodegen::spatial_detail
