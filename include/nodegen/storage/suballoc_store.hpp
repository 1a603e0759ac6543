#pragma once
// SuballocStore<T>: a NodeStore whose elements live in fixed-size blocks taken from Tapia's
// suballocator, indexed through a small two-level directory. Addresses are stable (blocks never move)
// and nothing depends on virtual-memory tricks, so it is the portable stable-address backend.
//
// Design:
//  * Index i lives in block i >> 12 (blocks of kBlockElements = 4096 elements), at offset i & 4095.
//  * Blocks are elements of a private SynchronizedSuballocator whose element is one block: its pool
//    grows in chunks of 1, 2, 4, ... blocks (stable, each one upstream allocation), so a store of N
//    elements makes O(log N) upstream allocations, not N / 4096. Chunks of 2 MiB and more come from
//    the suballocator's default upstream, HugePageChunks (transparent huge pages): good for random
//    reads, but on the project VM fresh huge pages are dear to first touch, so appends run at about a
//    third of VmStore's default (bench/results/storage.md).
//  * Directory: a top array of ceil(capacity / 2^24) page pointers, made at construction (2 KiB for
//    2^32 elements), and pages of up to 4096 block pointers (32 KiB) made on demand. So construction
//    stays cheap for huge capacities and the directory grows with use, not with the cap.
//  * claim(n) is one relaxed fetch_add on the frontier (like VmStore) and a capacity check after it
//    (size() clamps to capacity; a failed claim throws StoreFull). Then, for every block the claimed
//    run touches, the claimer loads the block pointer (acquire); only if it is still null does it take
//    the suballocator's lock, check again, and create the page and/or block (zero-filled, published
//    with a release store). Threads claiming inside an existing block never lock.
//  * get/set/access: two dependent acquire loads (page, block) and the element: no lock.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/storage/suballocator.hpp"

namespace nodegen {

template <class T>
class SuballocStore {
  static_assert(std::is_trivially_copyable_v<T>, "SuballocStore holds trivially copyable elements");

 public:
  using value_type = T;
  struct Options {};

  static constexpr unsigned kBlockShift = 12;
  static constexpr std::size_t kBlockElements = std::size_t{1} << kBlockShift;
  static constexpr unsigned kPageShift = 12;  // block pointers per directory page: 4096
  static constexpr std::size_t kMaxCapacity = std::size_t{1} << 48;

  explicit SuballocStore(std::size_t capacity, Options = {})
      : capacity_(checked_capacity(capacity)),
        top_size_((capacity + kElementsPerPage - 1) / kElementsPerPage),
        top_(std::make_unique<std::atomic<BlockPtr*>[]>(top_size_)),
        blocks_(std::make_unique<BlockPool>(0)) {}

  SuballocStore(const SuballocStore&) = delete;
  SuballocStore& operator=(const SuballocStore&) = delete;
  SuballocStore(SuballocStore&& other) noexcept
      : capacity_(std::exchange(other.capacity_, 0)),
        top_size_(std::exchange(other.top_size_, 0)),
        top_(std::move(other.top_)),
        blocks_(std::move(other.blocks_)),
        next_(other.next_.exchange(0, std::memory_order_relaxed)),
        blocks_made_(other.blocks_made_.exchange(0, std::memory_order_relaxed)),
        pages_made_(other.pages_made_.exchange(0, std::memory_order_relaxed)) {}
  SuballocStore& operator=(SuballocStore&&) = delete;

  ~SuballocStore() {
    for (std::size_t p = 0; p < top_size_; ++p) delete[] top_[p].load(std::memory_order_relaxed);
    // Blocks go back with the pool's chunks when blocks_ is destroyed.
  }

  std::size_t claim(std::size_t n) {
    if (n == 0) return size();
    if (n > capacity_ || next_.load(std::memory_order_relaxed) > capacity_ - n) throw_full(n);
    const std::size_t first = next_.fetch_add(n, std::memory_order_relaxed);
    if (first > capacity_ - n) throw_full(n);
    const std::size_t last_block = (first + n - 1) >> kBlockShift;
    for (std::size_t b = first >> kBlockShift; b <= last_block; ++b) {
      if (!block_if_made(b)) make_block(b);
    }
    return first;
  }

  T get(std::size_t i) const { return element(i); }
  void set(std::size_t i, const T& v) { element(i) = v; }
  template <class F>
  decltype(auto) access(std::size_t i, F&& f) {
    return std::forward<F>(f)(element(i));
  }
  // Stable-address extra (not part of NodeStore).
  T& operator[](std::size_t i) { return element(i); }
  const T& operator[](std::size_t i) const { return element(i); }

  std::size_t size() const { return std::min(next_.load(std::memory_order_relaxed), capacity_); }
  std::size_t capacity() const { return capacity_; }
  // Blocks handed out (zero-filled, hence committed) plus directory pages. The suballocator's chunks
  // may extend past the last block handed out; that tail is never touched, so it is not resident.
  std::size_t bytes_resident() const {
    return blocks_made_.load(std::memory_order_relaxed) * sizeof(Block) +
           pages_made_.load(std::memory_order_relaxed) * kPageBytes + top_size_ * sizeof(void*);
  }
  std::size_t blocks() const { return blocks_made_.load(std::memory_order_relaxed); }

 private:
  using Block = SuballocSlot<sizeof(T) * kBlockElements, alignof(T)>;
  using BlockPool = SynchronizedSuballocator<sizeof(Block), alignof(T)>;
  using BlockPtr = std::atomic<Block*>;
  static constexpr std::size_t kElementsPerPage = kBlockElements << kPageShift;
  static constexpr std::size_t kPageBytes = sizeof(BlockPtr) << kPageShift;

  T& element(std::size_t i) const {
    const BlockPtr* page = top_[i >> (kBlockShift + kPageShift)].load(std::memory_order_acquire);
    Block* block = page[(i >> kBlockShift) & ((std::size_t{1} << kPageShift) - 1)].load(
        std::memory_order_acquire);
    return reinterpret_cast<T*>(block->bytes)[i & (kBlockElements - 1)];
  }

  BlockPtr* page_if_made(std::size_t block) const {
    return top_[block >> kPageShift].load(std::memory_order_acquire);
  }
  Block* block_if_made(std::size_t block) const {
    const BlockPtr* page = page_if_made(block);
    if (!page) return nullptr;
    return page[block & ((std::size_t{1} << kPageShift) - 1)].load(std::memory_order_acquire);
  }

  // Double-checked under the suballocator's lock: whoever gets the lock first makes the block.
  void make_block(std::size_t block) {
    blocks_->locked([&](typename BlockPool::Pool& pool) {
      BlockPtr* page = page_if_made(block);
      if (!page) {
        page = new BlockPtr[std::size_t{1} << kPageShift]();
        top_[block >> kPageShift].store(page, std::memory_order_release);
        pages_made_.fetch_add(1, std::memory_order_relaxed);
      }
      BlockPtr& slot = page[block & ((std::size_t{1} << kPageShift) - 1)];
      if (slot.load(std::memory_order_relaxed)) return;
      auto* fresh = static_cast<Block*>(pool.allocate());
      std::memset(fresh->bytes, 0, sizeof(Block));
      slot.store(fresh, std::memory_order_release);
      blocks_made_.fetch_add(1, std::memory_order_relaxed);
    });
  }

  static std::size_t checked_capacity(std::size_t capacity) {
    if (capacity > kMaxCapacity)
      throw std::length_error("SuballocStore: capacity of " + std::to_string(capacity) +
                              " elements exceeds 2^48");
    return capacity;
  }

  [[noreturn]] void throw_full(std::size_t n) const {
    throw StoreFull("SuballocStore: capacity of " + std::to_string(capacity_) +
                    " elements exhausted (claim of " + std::to_string(n) + ")");
  }

  std::size_t capacity_;
  std::size_t top_size_;
  std::unique_ptr<std::atomic<BlockPtr*>[]> top_;
  std::unique_ptr<BlockPool> blocks_;
  alignas(kFalseSharingBytes) std::atomic<std::size_t> next_{0};
  alignas(kFalseSharingBytes) std::atomic<std::size_t> blocks_made_{0};
  std::atomic<std::size_t> pages_made_{0};
};

static_assert(NodeStore<SuballocStore<std::size_t>>);

}  // namespace nodegen
