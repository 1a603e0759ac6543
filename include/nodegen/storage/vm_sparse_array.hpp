#pragma once
// VmSparseArray<T>: a fixed-size, zero-initialised array of n elements over one virtual-memory
// reservation (VmRegion), for random access into a range far larger than what gets used: memo tables
// (the Collatz benchmark), sparse grids. Like VmStore, nothing moves and the kernel commits a page on
// its first write. Unlike a plain mapping, reading an element of a page nobody has written yet returns
// T{} WITHOUT touching the page.
//
// Why: a read fault on a never-written page of a private anonymous mapping maps the shared zero page;
// the first write to that page then faults again and copies-on-write it, and replacing a present PTE
// needs a TLB flush on every other CPU running the process (an IPI per fault; IPIs are VM exits on a
// virtual machine). In bench/storage/collatz at 2 threads the kernel's flush IPIs (native_write_msr,
// smp_call_function_many_cond under ptep_clear_flush) took most of the cycles, which made the plain VM
// memo slower at 2 threads than at 1 (measured: bench/RESULTS.md, Storage). A bitmap with one bit per
// fault unit (4 KiB, or 2 MiB with huge pages: 32 KiB of bitmap per GiB of reservation) records which
// pages were written; reads of unmarked pages answer T{} from the bitmap alone, so pages are only ever
// write-faulted.
//
// Concurrency: elements are accessed with relaxed std::atomic_ref, so threads may read and write the
// same element (last writer wins, as with any relaxed atomic). A writer marks the page after its write
// (release); a reader checks the mark (acquire) before reading. Hence a reader that sees a mark sees the
// page mapped, and a reader ordered after a write (by any synchronisation) sees its value; a read racing
// with the first write to a page may return T{}, which a relaxed read may do anyway.
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "nodegen/storage/vm_region.hpp"

namespace nodegen {

struct VmSparseArrayOptions {
  // MADV_HUGEPAGE on the reservation: one write fault commits 2 MiB (the bitmap then has one bit per
  // 2 MiB). Off by default for the reason VmStoreOptions gives (fresh huge pages are slow on a VM that
  // hands free memory back to its host).
  bool huge_pages = false;
};

template <class T>
class VmSparseArray {
  static_assert(std::is_trivially_copyable_v<T>, "VmSparseArray holds trivially copyable elements");
  static_assert(std::atomic_ref<T>::is_always_lock_free, "elements are read and written atomically");
  static_assert(kSmallPageBytes % sizeof(T) == 0, "an element never straddles two pages");

 public:
  using value_type = T;
  using Options = VmSparseArrayOptions;

  explicit VmSparseArray(std::size_t size, Options options = {}) : size_(size) {
    if (size_ > kMaxReservationBytes / sizeof(T))
      throw std::length_error("VmSparseArray: " + std::to_string(size) + " elements exceed the address space");
    region_ = VmRegion(size_ * sizeof(T));
    data_ = reinterpret_cast<T*>(region_.data());
    if (options.huge_pages && region_.advise_huge_pages()) unit_shift_ = std::countr_zero(kHugePageBytes);
    const std::size_t units = region_.bytes() >> unit_shift_;  // the region is whole 2 MiB units
    words_ = (units + 63) / 64;
    written_ = std::make_unique<std::atomic<std::uint64_t>[]>(words_);  // value-initialised: all zero
  }

  T get(std::size_t i) const {
    const std::size_t unit = unit_of(i);
    if ((written_[unit >> 6].load(std::memory_order_acquire) & bit(unit)) == 0) return T{};
    return std::atomic_ref<T>(data_[i]).load(std::memory_order_relaxed);
  }

  void set(std::size_t i, const T& v) {
    std::atomic_ref<T>(data_[i]).store(v, std::memory_order_relaxed);
    const std::size_t unit = unit_of(i);
    std::atomic<std::uint64_t>& word = written_[unit >> 6];
    // Only the first write to a page pays a read-modify-write on the shared bitmap word.
    if ((word.load(std::memory_order_relaxed) & bit(unit)) == 0) word.fetch_or(bit(unit), std::memory_order_release);
  }

  std::size_t size() const { return size_; }
  std::size_t bytes_reserved() const { return region_.bytes(); }
  // Bytes of the reservation that have been written (committed), from the bitmap; no system call.
  std::size_t bytes_written() const {
    std::size_t units = 0;
    for (std::size_t w = 0; w < words_; ++w) units += std::popcount(written_[w].load(std::memory_order_relaxed));
    return units << unit_shift_;
  }
  // What the kernel actually maps, for tests and benchmarks (mincore over the reservation).
  std::size_t bytes_resident_measured() const { return region_.resident_bytes(region_.bytes()); }

 private:
  std::size_t unit_of(std::size_t i) const { return (i * sizeof(T)) >> unit_shift_; }
  static std::uint64_t bit(std::size_t unit) { return std::uint64_t{1} << (unit & 63); }

  std::size_t size_;
  VmRegion region_;
  T* data_ = nullptr;
  int unit_shift_ = std::countr_zero(kSmallPageBytes);
  std::size_t words_ = 0;
  std::unique_ptr<std::atomic<std::uint64_t>[]> written_;
};

}  // namespace nodegen
