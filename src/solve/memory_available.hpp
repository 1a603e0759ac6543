#pragma once
// The memory this process can still take: the least of the kernel's estimate of what it can hand out
// without swapping (MemAvailable), what its cgroup allows beyond its use (memory.max - memory.current,
// cgroup v2) and its address-space limit (ulimit -v) beyond its mapped size. Empty when none is known.
#include <optional>

namespace nodegen::solve {

std::optional<double> memory_available_bytes();

}  // namespace nodegen::solve
