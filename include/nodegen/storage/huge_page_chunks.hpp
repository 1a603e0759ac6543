#pragma once
// HugePageChunks<T>: the upstream allocator the suballocator's pools use for their chunks. Chunks of at
// least 2 MiB get their own 2 MiB-aligned mapping advised for transparent huge pages; smaller chunks
// come from std::allocator.
//
// Why: node containers walk their nodes in random order (a std::set insertion visits ~log2 N nodes
// spread over the whole pool), so with 4 KiB pages nearly every visit is a TLB miss, which costs far
// more in a virtual machine (two-dimensional page walk). The pool's big chunks on 2 MiB pages cut the
// number of pages 512-fold. A chunk handed back is unmapped, so its memory returns to the system.
#include <cstddef>
#include <memory>
#include <type_traits>

#include "nodegen/storage/vm_region.hpp"

namespace nodegen {

template <class T>
class HugePageChunks {
 public:
  using value_type = T;
  using is_always_equal = std::true_type;
  template <class U>
  struct rebind {
    using other = HugePageChunks<U>;
  };

  HugePageChunks() noexcept = default;
  template <class U>
  HugePageChunks(const HugePageChunks<U>&) noexcept {}

  static constexpr bool mapped(std::size_t n) { return n * sizeof(T) >= kHugePageBytes; }

  T* allocate(std::size_t n) {
    if (!mapped(n)) return std::allocator<T>().allocate(n);
    VmRegion region(n * sizeof(T), VmRegion::Commit::accounted);
    region.advise_huge_pages();
    return reinterpret_cast<T*>(region.detach());
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (!mapped(n)) return std::allocator<T>().deallocate(p, n);
    VmRegion::unmap(p, n * sizeof(T));
  }

  template <class U>
  bool operator==(const HugePageChunks<U>&) const noexcept {
    return true;
  }
};

}  // namespace nodegen
