#pragma once
// VmStore<T>: the default node store. One virtual-memory reservation of capacity * sizeof(T) bytes
// (rounded up to 2 MiB, 2 MiB aligned) made once at construction; elements never move, so pointers and
// references stay valid while other threads append; the kernel commits a page when it is first written.
//
// Claiming is a single relaxed fetch_add on the frontier: no lock, no CAS loop. The capacity check comes
// after the fetch_add (a failed claim overshoots the counter, so size() clamps to capacity) and throws
// StoreFull: running out is an exception, never undefined behaviour.
//
// Why MAP_NORESERVE + PROT_READ|PROT_WRITE instead of the paper's PROT_NONE + mprotect in 1 GiB chunks:
// with vm.overcommit_memory = 0 a NORESERVE mapping is not charged to the commit limit, so it gives the
// same "reserve far more than RAM" property without any slow path: no thread ever waits for another to
// open the next chunk, and claim() stays one atomic add plus a compare. bench/storage/append measures the chunked
// design too (vm_mprotect_*): with 1 GiB chunks it is as fast as this one (an mprotect per GiB is noise),
// with 8 MiB chunks slightly slower; so the choice rests on simplicity (no watermark, no opener lock, no
// mmap_lock write-holds that stall concurrent faults). Chunks would only be needed under strict
// accounting (mode 2), which this project does not target.
//
// Options (see VmStoreOptions for the defaults and why):
//   prefault:   the thread whose claim crosses into prefault window k populates window k+1
//               (MADV_POPULATE_WRITE, Linux >= 5.14; falls back to touching each page on older kernels),
//               so appenders mostly write into already-faulted memory. Each window is populated by
//               exactly one thread (the one whose claim contains the window's first byte).
//   huge_pages: MADV_HUGEPAGE on the whole reservation, so a first touch faults in 2 MiB at once
//               (512x fewer faults than 4 KiB pages when THP is in "madvise" mode).
// Per-element claims: claim(1) is a locked RMW, a full barrier on x86 that drains the store buffer, so
// appending element by element into fresh memory serialises the cache misses of the writes, many
// times slower than claim(1024) (measured: bench/RESULTS.md, Storage). Bulk appenders should claim runs.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/storage/vm_populate.hpp"
#include "nodegen/storage/vm_region.hpp"

namespace nodegen {

// Defaults measured by bench/storage/append (bench/RESULTS.md, Storage) on a Firecracker VM whose guest
// hands free memory back to the host (free page reporting): there a first touch of FRESH memory costs
// several times more CPU on transparent huge pages than on 4 KiB pages (apparently the 2 MiB clear
// runs into host faults), while re-touching recently freed memory is several times faster on huge
// pages. A new process sees fresh memory, and the fill itself runs the same either way (within the
// noise), so huge pages are off by default; turn them on where THP first touch is cheap (bare metal).
// Prefault batches the 4 KiB faults into one MADV_POPULATE_WRITE per window: appends no faster or a
// little faster, at the price of up to one window of resident memory ahead of the frontier per store;
// off by default because small jobs would pay that in RSS.
struct VmStoreOptions {
  bool prefault = false;
  bool huge_pages = false;
  // Bytes populated at a time ahead of the append frontier when prefault is on (power of two, >= 2 MiB).
  std::size_t prefault_window_bytes = std::size_t{8} << 20;
};

template <class T>
class VmStore {
  static_assert(std::is_trivially_copyable_v<T>, "VmStore holds trivially copyable elements");
  static_assert(alignof(T) <= kSmallPageBytes, "VmStore aligns elements to at most a page");

 public:
  using value_type = T;
  using Options = VmStoreOptions;

  // Reserves address space for `capacity` elements; commits nothing (cheap even for 2^32 elements).
  explicit VmStore(std::size_t capacity, Options options = {})
      : capacity_(capacity), options_(options) {
    if (capacity_ > kMaxReservationBytes / sizeof(T))
      throw std::length_error("VmStore: capacity of " + std::to_string(capacity) +
                              " elements exceeds the address space");
    region_ = VmRegion(capacity_ * sizeof(T));
    data_ = reinterpret_cast<T*>(region_.data());
    // If the kernel refuses (THP compiled out), the store still works, on 4 KiB pages.
    if (options_.huge_pages) fault_bytes_ = region_.advise_huge_pages() ? kHugePageBytes : kSmallPageBytes;
    options_.prefault_window_bytes =
        std::bit_ceil(std::max(options_.prefault_window_bytes, kHugePageBytes));
    window_shift_ = std::countr_zero(options_.prefault_window_bytes);
  }

  VmStore(const VmStore&) = delete;
  VmStore& operator=(const VmStore&) = delete;
  VmStore(VmStore&& other) noexcept
      : capacity_(other.capacity_),
        options_(other.options_),
        window_shift_(other.window_shift_),
        fault_bytes_(other.fault_bytes_),
        region_(std::move(other.region_)),
        data_(std::exchange(other.data_, nullptr)),
        next_(other.next_.exchange(0, std::memory_order_relaxed)),
        populated_end_(other.populated_end_.exchange(0, std::memory_order_relaxed)) {
    other.capacity_ = 0;
  }
  VmStore& operator=(VmStore&&) = delete;

  // Reserves n consecutive fresh (zero-filled) slots and returns the index of the first. Thread-safe.
  std::size_t claim(std::size_t n) {
    if (n == 0) return size();
    // A cheap pre-check bounds how far failed claims can push the counter past capacity.
    if (n > capacity_ || next_.load(std::memory_order_relaxed) > capacity_ - n) throw_full(n);
    const std::size_t first = next_.fetch_add(n, std::memory_order_relaxed);
    if (first > capacity_ - n) throw_full(n);
    if (options_.prefault) prefault_after_claim(first, n);
    return first;
  }

  T get(std::size_t i) const { return data_[i]; }
  void set(std::size_t i, const T& v) { data_[i] = v; }
  template <class F>
  decltype(auto) access(std::size_t i, F&& f) {
    return std::forward<F>(f)(data_[i]);
  }

  // Stable-address extras (not part of NodeStore): the array itself.
  T* data() { return data_; }
  const T* data() const { return data_; }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }

  std::size_t size() const { return std::min(next_.load(std::memory_order_relaxed), capacity_); }
  std::size_t capacity() const { return capacity_; }
  const Options& options() const { return options_; }
  std::size_t bytes_reserved() const { return region_.bytes(); }

  // Committed bytes, estimated without a system call: the claimed extent rounded up to the page size
  // the kernel faults in (2 MiB with huge pages), or the populated extent if prefault went further.
  std::size_t bytes_resident() const {
    const std::size_t claimed = std::min(round_up(size() * sizeof(T), fault_bytes_), region_.bytes());
    return std::max(claimed, populated_end_.load(std::memory_order_relaxed));
  }

  // Committed bytes as the kernel reports them (mincore over the touched extent): exact, but costs a
  // system call and one byte per 4 KiB page; for tests and benchmarks.
  std::size_t bytes_resident_measured() const { return region_.resident_bytes(bytes_resident()); }

 private:
  [[noreturn]] void throw_full(std::size_t n) const {
    throw StoreFull("VmStore: capacity of " + std::to_string(capacity_) +
                    " elements exhausted (claim of " + std::to_string(n) + ")");
  }

  // The claim [first, first + n) covers bytes [begin, end). Window k is "entered" by the claim holding
  // its first byte; that claim populates window k + 1 (and window 0 too when k == 0), so every window
  // is populated exactly once and one window ahead of the frontier.
  void prefault_after_claim(std::size_t first, std::size_t n) {
    const std::size_t begin = first * sizeof(T);
    const std::size_t end = (first + n) * sizeof(T);
    const std::size_t first_entered = (begin + options_.prefault_window_bytes - 1) >> window_shift_;
    const std::size_t last_entered = (end - 1) >> window_shift_;
    if (first_entered > last_entered) return;  // stayed inside an already-entered window
    const std::size_t from = first_entered == 0 ? 0 : (first_entered + 1) << window_shift_;
    const std::size_t to = std::min((last_entered + 2) << window_shift_, region_.bytes());
    if (from >= to) return;
    populate_for_write(region_.data() + from, to - from);
    std::size_t seen = populated_end_.load(std::memory_order_relaxed);
    while (seen < to && !populated_end_.compare_exchange_weak(seen, to, std::memory_order_relaxed)) {
    }
  }

  std::size_t capacity_;
  Options options_;
  int window_shift_ = 0;
  std::size_t fault_bytes_ = kSmallPageBytes;  // what one first touch commits
  VmRegion region_;
  T* data_ = nullptr;
  alignas(kFalseSharingBytes) std::atomic<std::size_t> next_{0};  // lines of its own: the one contended word
  alignas(kFalseSharingBytes) std::atomic<std::size_t> populated_end_{0};
};

static_assert(NodeStore<VmStore<std::size_t>>);

}  // namespace nodegen
