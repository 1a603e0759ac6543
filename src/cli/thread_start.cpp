#include "thread_start.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <pthread.h>
#include <sys/mman.h>

#include "nodegen/geometry/input_error.hpp"
#include "thread_stacks.hpp"

#if defined(_OPENMP) && !defined(NODEGEN_STD_THREADS)
#include <omp.h>
#endif

namespace nodegen::cli {
namespace {
std::atomic<void*> kept{nullptr};
std::atomic<bool> release{false};

void* hold_until_released(void*) {
  void* block = std::malloc(64);
  kept.store(block, std::memory_order_relaxed);  // the allocation is seen, so not left out
  release.wait(false);
  std::free(block);
  return nullptr;
}

// The stack size OpenMP's team threads get when the environment sets one.
std::optional<std::size_t> team_stack() {
#if defined(_OPENMP) && !defined(NODEGEN_STD_THREADS)
  return openmp_stack_size();
#else
  return std::nullopt;
#endif
}

std::string size_text(std::size_t bytes) {
  if (bytes % (std::size_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes % (std::size_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes >> 10) + " KiB";
}

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
  const std::optional<std::size_t> openmp_stack = team_stack();
  if (openmp_stack && *openmp_stack < kLeastOpenMPStack)
    throw InputError("OMP_STACKSIZE", "value",
                     "asks for " + size_text(*openmp_stack) + " stacks for OpenMP's threads; nodegen's need at least " +
                         size_text(kLeastOpenMPStack) + " (deep shape trees and meshes recurse): unset it or raise it");
  const std::size_t margin = margin_bytes(threads);
  release.store(false);
  void* held = ::mmap(nullptr, margin, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (held == MAP_FAILED)
    throw InputError("--threads", "value",
                     "cannot start " + std::to_string(threads) +
                         " threads here: no address space is left for them (virtual memory, ulimit -v); ask for fewer threads");
  // The team's threads get OMP_STACKSIZE's stacks where it is set, else the default (thread_stacks.hpp).
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  if (openmp_stack) pthread_attr_setstacksize(&attributes, *openmp_stack);
  std::vector<pthread_t> started;
  started.reserve(threads > 1 ? static_cast<std::size_t>(threads - 1) : 0);
  std::string failure;
  for (int t = 1; t < threads; ++t) {
    // Each waits until every one exists, so they hold their stacks at the same time, as a team does,
    // and allocates as a team member does: glibc gives threads that allocate arenas of their own (up
    // to 8 per core, each reserving 64 MiB of address space), which libgomp's threads then reuse.
    pthread_t thread;
    if (const int error = pthread_create(&thread, &attributes, hold_until_released, nullptr); error != 0) {
      failure = std::strerror(error);
      break;
    }
    started.push_back(thread);
  }
  pthread_attr_destroy(&attributes);
  release.store(true);
  release.notify_all();
  for (pthread_t thread : started) pthread_join(thread, nullptr);
  ::munmap(held, margin);
  if (failure.empty()) return;
  const std::string why = "cannot start " + std::to_string(threads) + " threads here (" + failure + " after " +
                          std::to_string(started.size() + 1) + ")";
  if (openmp_stack)
    throw InputError("OMP_STACKSIZE", "value",
                     why + " with the " + size_text(*openmp_stack) +
                         " stack it asks for each: lower it (or unset it), or ask for fewer threads");
  throw InputError("--threads", "value",
                   why + ": the process's limits (virtual memory, ulimit -v; stack size per thread, ulimit -s; "
                         "threads, ulimit -u) allow fewer; ask for fewer threads");
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
