#pragma once
// One anonymous, private virtual-memory reservation, aligned to 2 MiB so transparent huge pages can
// back it from its first byte. Owns the mapping (munmap on destruction), movable, not copyable.
//
// The range is mapped PROT_READ|PROT_WRITE with MAP_NORESERVE: the kernel commits nothing until a page
// is first written, and with vm.overcommit_memory = 0 (the default heuristic mode) a NORESERVE mapping
// is not charged against the commit limit, so reserving far more than RAM works. (Mode 2, strict
// accounting, ignores MAP_NORESERVE; that mode would need PROT_NONE + mprotect in chunks, see
// vm_store.hpp for why that path is not taken.)
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nodegen {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;  // x86-64 PMD-level page
inline constexpr std::size_t kSmallPageBytes = 4096;
// The largest reservation a store asks for: rounded up to 2 MiB it stays within 128 TiB (47 bits), the
// user address space of x86-64 with 4-level page tables.
inline constexpr std::size_t kMaxReservationBytes = (std::size_t{1} << 47) - kHugePageBytes;

constexpr std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

class VmRegion {
 public:
  VmRegion() = default;

  // How the kernel accounts the range: `reserve_only` (MAP_NORESERVE: address space far beyond RAM,
  // for stores) or `accounted` (charged to the commit limit, so exhaustion is a clean bad_alloc at
  // mapping time: for allocator chunks that will be used in full).
  enum class Commit { reserve_only, accounted };

  // Reserves at least `bytes` (rounded up to 2 MiB) at a 2 MiB-aligned address. Throws std::bad_alloc
  // if the address space (or commit charge) cannot be had.
  explicit VmRegion(std::size_t bytes, Commit commit = Commit::reserve_only) {
    if (bytes == 0) return;
    if (bytes > (std::size_t{1} << 47)) throw std::length_error("VmRegion: reservation beyond 128 TiB");
    bytes_ = round_up(bytes, kHugePageBytes);
    // Over-map by one huge page, then trim the unaligned head and the tail.
    const std::size_t mapped = bytes_ + kHugePageBytes;
    const int flags = MAP_PRIVATE | MAP_ANONYMOUS | (commit == Commit::reserve_only ? MAP_NORESERVE : 0);
    void* raw = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (raw == MAP_FAILED) throw_errno("mmap");
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    const std::uintptr_t aligned = round_up(start, kHugePageBytes);
    const std::size_t head = aligned - start;
    const std::size_t tail = mapped - head - bytes_;
    if (head) ::munmap(raw, head);
    if (tail) ::munmap(reinterpret_cast<void*>(aligned + bytes_), tail);
    base_ = reinterpret_cast<std::byte*>(aligned);
  }

  VmRegion(const VmRegion&) = delete;
  VmRegion& operator=(const VmRegion&) = delete;
  VmRegion(VmRegion&& other) noexcept
      : base_(std::exchange(other.base_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  VmRegion& operator=(VmRegion&& other) noexcept {
    if (this != &other) {
      release();
      base_ = std::exchange(other.base_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }
  ~VmRegion() { release(); }

  std::byte* data() const { return base_; }

  // Gives up ownership: the caller unmaps later with unmap(p, bytes()) (allocator chunks, whose size
  // the allocator knows again at deallocation).
  std::byte* detach() noexcept {
    bytes_ = 0;
    return std::exchange(base_, nullptr);
  }
  static void unmap(void* p, std::size_t bytes) noexcept {
    if (p) ::munmap(p, round_up(bytes, kHugePageBytes));
  }
  std::size_t bytes() const { return bytes_; }

  // Asks for transparent huge pages over the whole range (THP "madvise" mode needs this; harmless in
  // "always" mode). Returns false if the kernel refused (THP disabled or not built in).
  bool advise_huge_pages() const {
    return bytes_ == 0 || ::madvise(base_, bytes_, MADV_HUGEPAGE) == 0;
  }

  // Bytes of [data(), data() + extent) the kernel has mapped (mincore: one byte per 4 KiB page). Pages
  // mapped to the shared zero page by a read count too. Exact, but a system call: tests and benchmarks.
  std::size_t resident_bytes(std::size_t extent) const {
    extent = std::min(round_up(extent, kSmallPageBytes), bytes_);
    if (extent == 0) return 0;
    std::vector<unsigned char> pages(extent / kSmallPageBytes);
    if (::mincore(base_, extent, pages.data()) != 0) return extent;
    std::size_t resident = 0;
    for (unsigned char p : pages) resident += (p & 1u);
    return resident * kSmallPageBytes;
  }

 private:
  [[noreturn]] static void throw_errno(const char* what) {
    const int err = errno;
    if (err == ENOMEM) throw std::bad_alloc();
    throw std::runtime_error(std::string("VmRegion: ") + what + ": " + std::strerror(err));
  }
  void release() noexcept {
    if (base_) ::munmap(base_, bytes_);
    base_ = nullptr;
    bytes_ = 0;
  }

  std::byte* base_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace nodegen
