#pragma once
// Hands pages of private anonymous memory back to the kernel while the mapping stays (MADV_DONTNEED):
// a later read of them sees zeros. For memory that is never read again but not yet unmapped, e.g. the
// part of the fill's node store already copied into the output (fill/internal/fill_output.hpp).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace nodegen {

// Discards the pages lying wholly inside [begin, end): `begin` is rounded up and `end` down to a page
// boundary, so a page shared with a neighbouring range (which another thread may still read: the fill's
// parallel output copy) is kept. Returns false if madvise refused (the memory is then unchanged).
inline bool discard_pages_within(const void* begin, const void* end) {
  static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t from = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) & ~(page - 1);
  const std::uintptr_t to = reinterpret_cast<std::uintptr_t>(end) & ~(page - 1);
  if (to <= from) return true;
  return ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED) == 0;
}

}  // namespace nodegen
