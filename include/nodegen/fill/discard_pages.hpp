#pragma once
// Hands pages of private anonymous memory back to the kernel while the mapping stays (MADV_DONTNEED):
// a later read of them sees zeros. For memory that is never read again but not yet unmapped, e.g. the
// part of the fill's node store already copied into the output (pnp_fill.hpp, collect).
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace nodegen {

namespace discard_detail {
inline std::uintptr_t page_bytes() {
  static const std::uintptr_t page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  return page;
}
// madvise(DONTNEED) from the page-aligned `from` to `end` rounded down to a page.
inline bool discard(std::uintptr_t from, const void* end) {
  const std::uintptr_t to = reinterpret_cast<std::uintptr_t>(end) & ~(page_bytes() - 1);
  if (to <= from) return true;
  return ::madvise(reinterpret_cast<void*>(from), to - from, MADV_DONTNEED) == 0;
}
}  // namespace discard_detail

// Discards the whole pages inside [begin, end) with both ends rounded DOWN to a page boundary: the page
// holding `end` is kept (it may hold bytes at and after `end`), the one holding `begin` is included
// (callers discard consecutive ranges, so it belongs to the previous range, which kept it). Returns
// false if madvise refused (the memory is then unchanged).
inline bool discard_pages(const void* begin, const void* end) {
  const std::uintptr_t page = discard_detail::page_bytes();
  return discard_detail::discard(reinterpret_cast<std::uintptr_t>(begin) & ~(page - 1), end);
}

// Discards only the pages lying wholly inside [begin, end): `begin` is rounded UP. For ranges whose
// neighbours may still be in use by another thread (the fill's parallel output copy), so a page
// shared with a neighbouring range is kept.
inline bool discard_pages_within(const void* begin, const void* end) {
  const std::uintptr_t page = discard_detail::page_bytes();
  return discard_detail::discard((reinterpret_cast<std::uintptr_t>(begin) + page - 1) & ~(page - 1), end);
}

}  // namespace nodegen
