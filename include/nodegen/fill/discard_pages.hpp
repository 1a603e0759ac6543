#pragma once
// Hands pages of private anonymous memory back to the kernel while the mapping stays (MADV_DONTNEED):
// a later read of them sees zeros. For memory that is never read again but not yet unmapped, e.g. the
// part of the fill's node store already copied into the output (pnp_fill.hpp, collect).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace nodegen {

// Discards the whole pages inside [begin, end) with both ends rounded DOWN to a page boundary: the page
// holding `end` is kept (it may hold bytes at and after `end`), the one holding `begin` is included
// (callers discard consecutive ranges, so it belongs to the previous range, which kept it). Returns
// false if madvise refused (the memory is then unchanged).
inline bool discard_pages(const void* begin, const void* end) {
  static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  const std::uintptr_t from = reinterpret_cast<std::uintptr_t>(begin) & ~(page - 1);
  const std::uintptr_t to = reinterpret_cast<std::uintptr_t>(end) & ~(page - 1);
  if (to <= from) return true;
  return ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED) == 0;
}

}  // namespace nodegen
