#pragma once
// Runs one function on a team of threads: OpenMP in normal builds, std::thread when built with
// NODEGEN_STD_THREADS (the tsan preset), because libgomp's barriers are invisible to ThreadSanitizer
// and would be reported as races. All synchronisation between team members is the caller's own
// (atomics), so the two launchers are interchangeable. Also the two loops every layer splits its
// work with (parallel_ranges / parallel_for, parallel_for_each_item), which run inline when one thread would do.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
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
  auto std_threads = [&] {
    std::vector<std::thread> team;
    team.reserve(static_cast<std::size_t>(threads - 1));
    for (int t = 1; t < threads; ++t) team.emplace_back(guarded, t);
    guarded(0);
    for (auto& th : team) th.join();
  };
#if defined(NODEGEN_STD_THREADS)
  std_threads();
#else
  // A team started by a member of another (a spacing function that runs a fill of its own, a caller's
  // own OpenMP loop) would get one thread from OpenMP, whose nested regions are off: std::thread then.
  if (threads > 1 && omp_in_parallel()) {
    std_threads();
    if (error) std::rethrow_exception(error);
    return;
  }
  // A team smaller than asked (OMP_DYNAMIC, OMP_THREAD_LIMIT, OMP_MAX_ACTIVE_LEVELS in the environment)
  // runs nothing: members that wait for one another would wait forever, and work cut into `threads`
  // parts would be left undone. The CLI turns those settings off or refuses them before (thread_start).
  std::atomic<int> short_team{0};
#pragma omp parallel num_threads(threads)
  {
    if (omp_get_num_threads() != threads) short_team.store(omp_get_num_threads(), std::memory_order_relaxed);
    else guarded(omp_get_thread_num());
  }
  if (const int got = short_team.load(std::memory_order_relaxed))
    throw std::runtime_error("OpenMP ran a team of " + std::to_string(got) + " threads where " +
                             std::to_string(threads) + " were asked (OMP_DYNAMIC, OMP_THREAD_LIMIT or OMP_MAX_ACTIVE_LEVELS)");
#endif
  if (error) std::rethrow_exception(error);
}

// Threads for n items: at most one per item, at least one.
inline int team_for(std::size_t n, int threads) {
  return static_cast<int>(std::clamp<std::size_t>(n, 1, static_cast<std::size_t>(std::max(1, threads))));
}

// fn(t, team) on members t < team of a launch of `threads`. Under OpenMP every region is launched with
// the run's full thread count and the surplus members return at once: libgomp lets the surplus of a
// larger earlier team die when a smaller one starts and creates them again for the next larger one,
// and a creation that fails then (memory taken since the start, ulimit -v) ends the process from inside
// libgomp with status 1. Kept at full size, its pool creates threads only once, at the start
// (src/cli/thread_start.hpp). Under std::thread only the team is started.
template <class Fn>
void run_part_of_team(int team, int threads, Fn&& fn) {
#if defined(NODEGEN_STD_THREADS)
  (void)threads;
  run_team(team, [&](int t, int) { fn(t, team); });
#else
  run_team(std::max(team, threads), [&](int t, int) {
    if (t < team) fn(t, team);
  });
#endif
}

// fn(thread, begin, end) once per thread, [0, n) cut into equal contiguous parts [begin, end), one per
// thread (thread < team_for(n, threads), so per-thread state can be indexed by it): for many items of
// even cost. On one thread, or for fewer than 2 items, runs inline without starting a team.
template <class Fn>
void parallel_ranges(std::size_t n, int threads, Fn&& fn) {
  auto part = [&](int t, int nt) {
    fn(t, n * static_cast<std::size_t>(t) / static_cast<std::size_t>(nt),
       n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(nt));
  };
  const int team = team_for(n, threads);
  if (team > 1) run_part_of_team(team, threads, part);
  else part(0, 1);
}

// fn(thread, i) for every i in [0, n), split as parallel_ranges splits it.
template <class Fn>
void parallel_for(std::size_t n, int threads, Fn&& fn) {
  parallel_ranges(n, threads, [&](int t, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) fn(t, i);
  });
}

// fn(i) for every i in [0, n), each thread taking the next item when it is done with one: for a few
// items of uneven cost (the faces of a cube chart, the thinning's blocks of one colour). fn may also
// take (thread, i), thread < team_for(n, threads), to index per-thread state.
template <class Fn>
void parallel_for_each_item(std::size_t n, int threads, Fn&& fn) {
  std::atomic<std::size_t> next{0};
  auto take = [&](int t, int) {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      if constexpr (std::is_invocable_v<Fn&, int, std::size_t>) fn(t, i);
      else fn(i);
    }
  };
  const int team = team_for(n, threads);
  if (team > 1) run_part_of_team(team, threads, take);
  else take(0, 1);
}

}  // namespace nodegen
