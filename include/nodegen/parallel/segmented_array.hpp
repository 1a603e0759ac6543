#pragma once
// SegmentedArray: an array that grows while other threads read it, whose elements never move.
//
// Layout: segment s holds 2^(kFirstBits + s) elements, so index i lies in segment
// s = bit_width(i + 2^kFirstBits) - 1 - kFirstBits at offset i + 2^kFirstBits - 2^(kFirstBits + s): at most
// kSegments segments, and at most twice the elements in use are allocated. A segment is allocated (value-
// initialised) by the first thread that needs it, under a lock, and published with release; an element
// is never moved or freed before clear().
//
// Concurrency: grow(n) and the writes of an element are the caller's to order before the reads of the
// element by other threads (the fill publishes a tile's index under the lock of the map that finds it);
// given that, any number of threads grow the array and read published elements at once.
#include <array>
#include <atomic>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>

namespace nodegen {

template <class T>
class SegmentedArray {
 public:
  static constexpr int kFirstBits = 10;
  static constexpr int kSegments = 32;  // 2^42 elements at most

  SegmentedArray() = default;
  SegmentedArray(const SegmentedArray&) = delete;
  SegmentedArray& operator=(const SegmentedArray&) = delete;
  ~SegmentedArray() { clear(); }

  // Makes element i exist (allocating its segment if no thread has); any thread.
  T& grow_to(std::size_t i) {
    const auto [s, offset] = place(i);
    if (s >= static_cast<std::size_t>(kSegments)) throw std::length_error("SegmentedArray: too many elements");
    T* segment = segments_[s].load(std::memory_order_acquire);
    if (!segment) {
      std::lock_guard<std::mutex> guard(grow_lock_);
      segment = segments_[s].load(std::memory_order_relaxed);
      if (!segment) {
        segment = new T[std::size_t{1} << (kFirstBits + s)]();
        segments_[s].store(segment, std::memory_order_release);
      }
    }
    return segment[offset];
  }

  // Element i, which exists (grow_to) and whose writes the caller has ordered before this read.
  T& operator[](std::size_t i) const {
    const auto [s, offset] = place(i);
    T* segment = segments_[s].load(std::memory_order_acquire);
    assert(segment && "SegmentedArray: element read before it was grown");
    return segment[offset];
  }

  // Frees every segment (no other thread may use the array).
  void clear() {
    for (auto& segment : segments_) delete[] segment.exchange(nullptr, std::memory_order_relaxed);
  }

 private:
  struct Place {
    std::size_t segment, offset;
  };
  static Place place(std::size_t i) {
    const std::size_t j = i + (std::size_t{1} << kFirstBits);
    const auto s = static_cast<std::size_t>(std::bit_width(j)) - 1 - static_cast<std::size_t>(kFirstBits);
    return {s, j - (std::size_t{1} << (kFirstBits + s))};
  }

  std::array<std::atomic<T*>, kSegments> segments_{};
  std::mutex grow_lock_;
};

}  // namespace nodegen
