#pragma once
// How far apart two threads' words must lie for neither to slow the other down.
//
// A cache line is 64 bytes, but the x86-64 cores this runs on also fetch a line's neighbour in its
// aligned 128-byte pair (the spatial prefetcher), so a word one thread writes slows a thread using the
// next line as well: bench/storage/core_latency's word, on the stack beside the pinging thread's
// variables, made each trip between two cores slower than when alone in its pair.
// std::hardware_destructive_interference_size says 64 on x86-64 (GCC), which is why this is ours.
#include <cstddef>

namespace nodegen {

inline constexpr std::size_t kFalseSharingBytes = 128;

}  // namespace nodegen
