#pragma once
// SuballocAllocator<T, Lock>: the standard allocator interface over Tapia's suballocator, so node
// containers (std::list, std::forward_list, std::set, std::map, ...) take their nodes from it:
//   std::set<long, std::less<long>, nodegen::SuballocAllocator<long>> s;
//
// As in the seed, there is one pool per element size (and alignment and lock type), static and shared
// by every container whose nodes have that size, so splice/merge and node handles moved between
// containers stay valid and freed chunks are reused by any of them. The allocator is therefore
// stateless and all instances compare equal.
//
// Single-element requests (what node containers make) go to the pool; arrays (n != 1) go straight to
// std::allocator. Lock = std::mutex (default) makes the shared pool safe from any thread; Lock =
// NullLock selects a separate, unsynchronised pool for code that uses it from one thread at a time.
//
// The pools are never destroyed (leaked on purpose): a static container destroyed after the pool
// would otherwise hand nodes back to a dead pool. Chunks are still returned to the system while the
// program runs, whenever a pool's usage falls to a quarter.
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>

#include "nodegen/storage/suballocator.hpp"

namespace nodegen {

// The process-wide pool for elements of Size bytes aligned to Align, behind a Lock.
template <std::size_t Size, std::size_t Align, class Lock, class Upstream>
SynchronizedSuballocator<Size, Align, Lock, Upstream>& shared_suballocator() {
  static auto* pool = new SynchronizedSuballocator<Size, Align, Lock, Upstream>();
  return *pool;
}

// Upstream: where the pools' chunks come from (HugePageChunks: big chunks on transparent huge pages;
// std::allocator: plain heap, as in the seed).
template <class T, class Lock = std::mutex, template <class> class Upstream = HugePageChunks>
class SuballocAllocator {
 public:
  using value_type = T;
  using is_always_equal = std::true_type;
  template <class U>
  struct rebind {
    using other = SuballocAllocator<U, Lock, Upstream>;
  };

  SuballocAllocator() noexcept = default;
  template <class U>
  SuballocAllocator(const SuballocAllocator<U, Lock, Upstream>&) noexcept {}

  T* allocate(std::size_t n) {
    if (n != 1) return std::allocator<T>().allocate(n);
    return static_cast<T*>(pool().allocate());
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n != 1) return std::allocator<T>().deallocate(p, n);
    pool().deallocate(p);
  }

  template <class U>
  bool operator==(const SuballocAllocator<U, Lock, Upstream>&) const noexcept {
    return true;
  }

 private:
  static constexpr std::size_t kAlign = alignof(T);
  static constexpr std::size_t kSize = (sizeof(T) + kAlign - 1) / kAlign * kAlign;
  using Slot = SuballocSlot<kSize, kAlign>;
  static SynchronizedSuballocator<kSize, kAlign, Lock, Upstream<Slot>>& pool() {
    return shared_suballocator<kSize, kAlign, Lock, Upstream<Slot>>();
  }
};

}  // namespace nodegen
