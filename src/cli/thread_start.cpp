#include "thread_start.hpp"

#include <atomic>
#include <cstdlib>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <sys/mman.h>

#include "nodegen/geometry/input_error.hpp"

#if defined(_OPENMP) && !defined(NODEGEN_STD_THREADS)
#include <omp.h>
#endif

namespace nodegen::cli {
namespace {
std::atomic<void*> kept{nullptr};

// Address space the check holds beside its threads: libgomp's team takes a little more than threads
// alone do (its per-thread and team records), so a check that passed with nothing to spare let the
// team's start fail, rarely, with libgomp's exit 1 (200 threads on the cube under ulimit -v 2.5 GB).
// With the margin such a process fails the check instead.
std::size_t margin_bytes(int threads) { return (std::size_t{64} << 20) + static_cast<std::size_t>(threads) * (256u << 10); }
}  // namespace

void require_threads_start(int threads) {
#if defined(_OPENMP) && !defined(NODEGEN_STD_THREADS)
  // The environment may shrink OpenMP's teams below what was asked: OMP_DYNAMIC lets it choose fewer,
  // OMP_MAX_ACTIVE_LEVELS=0 runs every region on one thread (the fill then waited forever for the rest
  // at its first barrier), OMP_THREAD_LIMIT caps them. The first two are turned off here; a limit
  // below the threads asked is the option's error.
  omp_set_dynamic(0);
  if (omp_get_max_active_levels() < 1) omp_set_max_active_levels(1);
  if (omp_get_thread_limit() < threads)
    throw InputError("--threads", "value",
                     "OpenMP may run at most " + std::to_string(omp_get_thread_limit()) +
                         " threads here (OMP_THREAD_LIMIT in the environment); ask for at most that many");
#endif
  const std::size_t margin = margin_bytes(threads);
  void* held = ::mmap(nullptr, margin, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (held == MAP_FAILED)
    throw InputError("--threads", "value",
                     "cannot start " + std::to_string(threads) +
                         " threads here: no address space is left for them (virtual memory, ulimit -v); ask for fewer threads");
  std::vector<std::thread> started;
  started.reserve(threads > 1 ? static_cast<std::size_t>(threads - 1) : 0);
  std::atomic<bool> release{false};
  std::string failure;
  for (int t = 1; t < threads; ++t) {
    try {
      // Each waits until every one exists, so they hold their stacks at the same time, as a team does,
      // and allocates as a team member does: glibc gives threads that allocate arenas of their own (up
      // to 8 per core, each reserving 64 MiB of address space), which libgomp's threads then reuse.
      started.emplace_back([&release] {
        void* block = std::malloc(64);
        kept.store(block, std::memory_order_relaxed);  // the allocation is seen, so not left out
        release.wait(false);
        std::free(block);
      });
    } catch (const std::system_error& e) {
      failure = e.code().message();
      break;
    }
  }
  release.store(true);
  release.notify_all();
  for (std::thread& t : started) t.join();
  ::munmap(held, margin);
  if (!failure.empty())
    throw InputError("--threads", "value",
                     "cannot start " + std::to_string(threads) + " threads here (" + failure + " after " +
                         std::to_string(started.size() + 1) +
                         "): the process's limits (virtual memory, ulimit -v; stack size per thread, ulimit -s; threads, ulimit -u) allow fewer; "
                         "ask for fewer threads");
}

void start_openmp_team(int threads) {
#if defined(_OPENMP) && !defined(NODEGEN_STD_THREADS)
  // The team's threads stay in libgomp's pool (a body that does something: an empty region may be
  // left out by the compiler).
  std::atomic<int> members{0};
#pragma omp parallel num_threads(threads)
  members.fetch_add(1, std::memory_order_relaxed);
  (void)members;
#else
  (void)threads;
#endif
}

}  // namespace nodegen::cli
