#pragma once
// Hands the heap's free pages back to the kernel between the phases of a run.
//
// glibc keeps freed heap memory mapped for reuse, and after a large block has been freed it raises
// its trim threshold (up to 64 MiB on 64-bit), so the free pages in and on top of the heap stay
// resident. The boundary placement of a 3D domain allocates and frees ~7 MB of scratch per 1e6 nodes
// (advancing fronts on the faces); that memory would sit in RSS for the whole fill, which allocates
// its node store and k-d tree with mmap and never reuses it. malloc_trim(0) releases every free
// page of the heap (not only its top), in a few milliseconds.
#include <cstdlib>  // defines __GLIBC__ on glibc
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace nodegen {

// Returns true when some memory was given back (always false where the C library has no malloc_trim).
inline bool release_free_heap() {
#if defined(__GLIBC__)
  return malloc_trim(0) != 0;
#else
  return false;
#endif
}

}  // namespace nodegen
