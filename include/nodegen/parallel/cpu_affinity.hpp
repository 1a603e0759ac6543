#pragma once
// The CPUs this process may run on: its affinity mask, which an MPI launcher's binding (mpirun binds
// each of one or two ranks to one core), taskset or a batch system may have narrowed below the
// machine's CPU count. The default thread count is this number, so threads never queue on one core
// because of a binding nobody asked for.
#include <sched.h>

#include <algorithm>

#include <thread>

namespace nodegen {

// The most worker threads a run takes, from the command or the library: far more than any machine has
// cores only costs (and libgomp crashes or exits while starting tens of thousands), so thread counts
// are bounded where oversubscription stops being a test; the default (all cores) is clamped to it too.
inline constexpr int kMaxThreads = 1024;

inline int cpus_allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

inline int cpus_in_machine() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

}  // namespace nodegen
