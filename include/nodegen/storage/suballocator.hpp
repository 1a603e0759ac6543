#pragma once
// Suballocator<Size, Align>: F. J. Tapia's pool for many elements of one size (seed "THE SUBALLOCATOR
// ALGORITHMS", 3.1), with the bit-heap of bit_heap.hpp in every chunk.
//
//  * The pool is a stack of chunks (the seed's upside-down Hanoi tower): chunk k holds
//    2^(first_level + k) elements, each chunk is one allocation from the upstream allocator, and the
//    pool grows by pushing a chunk twice the size of the last one. Elements never move.
//  * allocate() returns the FIRST free slot of the pool: the lowest chunk that is not full (one bit scan
//    over a 64-bit mask of non-full chunks), then that chunk's bit-heap (O(levels)). Keeping live
//    elements packed at the bottom is what improves cache behaviour and lets the top chunks empty.
//  * deallocate() finds the chunk by binary search over the chunks' sorted start addresses, clears the
//    bit, and hands the top chunk back to the upstream allocator while that chunk is empty and the
//    pool's usage has fallen to a quarter of its capacity (NElem <= NElemMax / 4).
//
// Deviations from the seed: the first chunk holds 2^6 = 64 elements (one bit-heap word) by default
// rather than 2^0 (six chunks of 1..32 elements would only lengthen the chunk search); and the default
// upstream, HugePageChunks, puts chunks of 2 MiB and more on transparent huge pages (see
// huge_page_chunks.hpp; bench/storage/suballoc measures it against a std::allocator upstream).
//
// Not thread-safe: SynchronizedSuballocator (below) pairs a pool with a lock.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "nodegen/storage/bit_heap.hpp"
#include "nodegen/storage/huge_page_chunks.hpp"

namespace nodegen {

// Raw storage for one element of the pool.
template <std::size_t Size, std::size_t Align>
struct alignas(Align) SuballocSlot {
  std::byte bytes[Size];
};

template <std::size_t Size, std::size_t Align = alignof(std::max_align_t),
          class Upstream = HugePageChunks<SuballocSlot<Size, Align>>>
class Suballocator {
 public:
  using Slot = SuballocSlot<Size, Align>;
  static_assert(sizeof(Slot) == Size, "Size must be a multiple of Align");
  static constexpr unsigned kMaxChunks = 40;

  explicit Suballocator(unsigned first_level = 6, Upstream upstream = Upstream())
      : first_level_(first_level), upstream_(std::move(upstream)) {
    chunks_.reserve(kMaxChunks);
    by_address_.reserve(kMaxChunks);
  }
  Suballocator(const Suballocator&) = delete;
  Suballocator& operator=(const Suballocator&) = delete;
  ~Suballocator() {
    while (!chunks_.empty()) pop_chunk();
  }

  // Returns the lowest free slot, growing the pool by a chunk if every chunk is full.
  // Throws std::bad_alloc if the upstream allocator does.
  void* allocate() {
    if (not_full_ == 0) push_chunk();
    const unsigned k = static_cast<unsigned>(std::countr_zero(not_full_));
    Chunk& chunk = chunks_[k];
    const std::size_t slot = chunk.heap.allocate();
    if (chunk.heap.full()) not_full_ &= ~(std::uint64_t{1} << k);
    ++count_;
    return chunk.elements + slot;
  }

  // Releases an element obtained from allocate(). Returns false if p is not in this pool (or was
  // already free), so a caller can detect double frees in tests.
  bool deallocate(void* p) {
    const unsigned k = chunk_of(p);
    if (k == kNoChunk) return false;
    Chunk& chunk = chunks_[k];
    if (!chunk.heap.deallocate(static_cast<std::size_t>(static_cast<Slot*>(p) - chunk.elements)))
      return false;
    not_full_ |= std::uint64_t{1} << k;
    --count_;
    while (!chunks_.empty() && chunks_.back().heap.empty() && count_ <= capacity_ / 4) pop_chunk();
    return true;
  }

  // Adds a chunk even if the pool has room (pre-sizing). Returns its first element.
  void* grow() {
    push_chunk();
    return chunks_.back().elements;
  }

  std::size_t size() const { return count_; }          // elements allocated
  std::size_t capacity() const { return capacity_; }   // elements the current chunks can hold
  std::size_t chunk_count() const { return chunks_.size(); }
  // Bytes obtained from upstream for elements plus the bit-heaps' words.
  std::size_t bytes_held() const { return capacity_ * Size + heap_bytes_; }

  // The chunk holding p, or kNoChunk.
  static constexpr unsigned kNoChunk = ~0u;
  unsigned chunk_of(const void* p) const {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    // Last chunk starting at or before p.
    auto it = std::upper_bound(by_address_.begin(), by_address_.end(), a,
                               [](std::uintptr_t x, const Range& r) { return x < r.begin; });
    if (it == by_address_.begin()) return kNoChunk;
    --it;
    return a < it->end ? it->chunk : kNoChunk;
  }

  // Checks every chunk's bit-heap and the pool's counters (tests).
  bool invariants_hold() const {
    std::size_t count = 0, capacity = 0;
    for (std::size_t k = 0; k < chunks_.size(); ++k) {
      const Chunk& c = chunks_[k];
      if (!c.heap.invariants_hold()) return false;
      if (c.heap.capacity() != std::size_t{1} << (first_level_ + k)) return false;
      if (((not_full_ >> k) & 1u) == c.heap.full()) return false;
      count += c.heap.count();
      capacity += c.heap.capacity();
    }
    return count == count_ && capacity == capacity_ && (not_full_ >> chunks_.size()) == 0 &&
           by_address_.size() == chunks_.size();
  }

 private:
  struct Chunk {
    Slot* elements;
    BitHeap heap;
  };
  struct Range {
    std::uintptr_t begin, end;
    unsigned chunk;
  };

  void push_chunk() {
    const unsigned k = static_cast<unsigned>(chunks_.size());
    if (k >= kMaxChunks) throw std::bad_alloc();
    const std::size_t n = std::size_t{1} << (first_level_ + k);
    BitHeap heap(first_level_ + k);
    Slot* elements = std::allocator_traits<Upstream>::allocate(upstream_, n);
    chunks_.push_back(Chunk{elements, std::move(heap)});
    const auto begin = reinterpret_cast<std::uintptr_t>(elements);
    const Range range{begin, begin + n * Size, k};
    by_address_.insert(std::upper_bound(by_address_.begin(), by_address_.end(), range,
                                        [](const Range& x, const Range& r) { return x.begin < r.begin; }),
                       range);
    not_full_ |= std::uint64_t{1} << k;
    capacity_ += n;
    heap_bytes_ += chunks_.back().heap.memory_bytes();
  }

  void pop_chunk() {
    const unsigned k = static_cast<unsigned>(chunks_.size() - 1);
    Chunk& chunk = chunks_.back();
    const std::size_t n = chunk.heap.capacity();
    count_ -= chunk.heap.count();  // only non-zero when the whole pool is destroyed
    capacity_ -= n;
    heap_bytes_ -= chunk.heap.memory_bytes();
    std::allocator_traits<Upstream>::deallocate(upstream_, chunk.elements, n);
    by_address_.erase(std::find_if(by_address_.begin(), by_address_.end(),
                                   [k](const Range& r) { return r.chunk == k; }));
    not_full_ &= ~(std::uint64_t{1} << k);
    chunks_.pop_back();
  }

  unsigned first_level_;
  [[no_unique_address]] Upstream upstream_;
  std::vector<Chunk> chunks_;       // chunk k holds 2^(first_level_ + k) elements
  std::vector<Range> by_address_;   // the same chunks sorted by start address, for deallocate
  std::uint64_t not_full_ = 0;      // bit k set while chunk k has a free slot
  std::size_t count_ = 0;
  std::size_t capacity_ = 0;
  std::size_t heap_bytes_ = 0;
};

// A pool behind a lock: allocate/deallocate lock for one call; locked(f) runs f(pool) under the same
// lock for compound operations (e.g. double-checked creation of a block in SuballocStore).
template <std::size_t Size, std::size_t Align = alignof(std::max_align_t), class Lock = std::mutex,
          class Upstream = HugePageChunks<SuballocSlot<Size, Align>>>
class SynchronizedSuballocator {
 public:
  using Pool = Suballocator<Size, Align, Upstream>;
  explicit SynchronizedSuballocator(unsigned first_level = 6) : pool_(first_level) {}

  void* allocate() {
    std::lock_guard guard(lock_);
    return pool_.allocate();
  }
  bool deallocate(void* p) {
    std::lock_guard guard(lock_);
    return pool_.deallocate(p);
  }
  template <class F>
  decltype(auto) locked(F&& f) {
    std::lock_guard guard(lock_);
    return std::invoke(std::forward<F>(f), pool_);
  }

 private:
  Lock lock_;
  Pool pool_;
};

// A lock that does nothing, for pools used by one thread at a time.
struct NullLock {
  void lock() {}
  void unlock() {}
};

}  // namespace nodegen
