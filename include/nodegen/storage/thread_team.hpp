#pragma once
// Runs one function on a team of threads: OpenMP in normal builds, std::thread when built with
// NODEGEN_STD_THREADS (the tsan preset), because libgomp's barriers are invisible to ThreadSanitizer
// and would be reported as races. All synchronisation between team members is the caller's own
// (atomics), so the two launchers are interchangeable.
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if !defined(NODEGEN_STD_THREADS)
#include <omp.h>
#endif

namespace nodegen {

// Calls fn(thread_id, thread_count) once on each of `threads` threads and waits for all. The first
// exception thrown by any member is rethrown in the caller after every member has returned.
template <class Fn>
void run_team(int threads, Fn&& fn) {
  if (threads < 1) threads = 1;
  std::exception_ptr error;
  std::mutex error_mutex;
  auto guarded = [&](int tid) {
    try {
      fn(tid, threads);
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
#if defined(NODEGEN_STD_THREADS)
  std::vector<std::thread> team;
  team.reserve(static_cast<std::size_t>(threads - 1));
  for (int t = 1; t < threads; ++t) team.emplace_back(guarded, t);
  guarded(0);
  for (auto& th : team) th.join();
#else
#pragma omp parallel num_threads(threads)
  guarded(omp_get_thread_num());
#endif
  if (error) std::rethrow_exception(error);
}

}  // namespace nodegen
