#pragma once
// Commits pages of an anonymous private mapping ahead of use, so later writes do not fault.
#include <cstddef>

namespace nodegen {

// Makes [p, p + bytes) resident and writable without changing its contents (other threads may be
// writing there concurrently). Uses MADV_POPULATE_WRITE (Linux >= 5.14); on older kernels, where it
// fails with EINVAL, it remembers that and write-faults each 4 KiB page with an RMW of zero instead.
// Out-of-memory and other failures are ignored: the pages are then faulted in on first touch.
// p must be page aligned. Returns true if MADV_POPULATE_WRITE did the work.
bool populate_for_write(std::byte* p, std::size_t bytes) noexcept;

}  // namespace nodegen
