#pragma once
// Hands the heap's free pages back to the kernel between the phases of a run.
//
// glibc keeps freed heap memory mapped for reuse, and after a large block has been freed it raises
// its trim threshold (up to 64 MiB on 64-bit), so the free pages in and on top of the heap stay
// resident. The boundary placement of a 3D domain allocates and frees megabytes of scratch (advancing
// fronts on the faces; bench/RESULTS.md, Fill); that memory would sit in RSS for the whole fill, which
// allocates its node store and k-d tree with mmap and never reuses it. malloc_trim(0) releases every
// free page of the heap (not only its top).
//
// Under a sanitizer (ASan, TSan) malloc is the sanitizer's allocator and glibc's heap is never set up.
// malloc_trim is not intercepted: it would initialise glibc's arenas on first call, and several fill
// threads (in-process ranks) calling it at once race in that uninstrumented initialisation (a SEGV in
// mtrim, or glibc's arena assertion at thread exit). There it does nothing.
#include <cstdlib>  // defines __GLIBC__ on glibc
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace nodegen {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizerMalloc = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitizerMalloc = true;
#else
inline constexpr bool kSanitizerMalloc = false;
#endif
#else
inline constexpr bool kSanitizerMalloc = false;
#endif

// Returns true when some memory was given back (always false where the C library has no malloc_trim,
// or a sanitizer's allocator replaces glibc's).
inline bool release_free_heap() {
#if defined(__GLIBC__)
  if constexpr (kSanitizerMalloc) return false;
  else return malloc_trim(0) != 0;
#else
  return false;
#endif
}

}  // namespace nodegen
