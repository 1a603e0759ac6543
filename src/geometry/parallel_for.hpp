#pragma once
// Boundary placement work spread over the run's threads (inline on one thread, or when n < 2).
#include <algorithm>
#include <atomic>
#include <cstddef>

#include <nodegen/storage/thread_team.hpp>

namespace nodegen::geometry_detail {

// Threads for n items: at most one per item.
inline int team_for(std::size_t n, int threads) {
  return static_cast<int>(std::clamp<std::size_t>(n, 1, static_cast<std::size_t>(std::max(1, threads))));
}

// fn(thread, i) for every i in [0, n), the range cut into equal contiguous parts, one per thread: for
// many items of even cost.
template <class Fn>
void parallel_for(std::size_t n, int threads, Fn&& fn) {
  const int team = team_for(n, threads);
  auto part = [&](int t, int nt) {
    const std::size_t a = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(nt);
    const std::size_t b = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(nt);
    for (std::size_t i = a; i < b; ++i) fn(t, i);
  };
  if (team > 1) run_team(team, part);
  else part(0, 1);
}

// fn(i) for every i in [0, n), each thread taking the next item when it is done with one: for a few
// items of uneven cost (the faces of a cube chart, the blocks of one colour).
template <class Fn>
void parallel_for_each_item(std::size_t n, int threads, Fn&& fn) {
  std::atomic<std::size_t> next{0};
  auto take = [&](int, int) {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) fn(i);
  };
  const int team = team_for(n, threads);
  if (team > 1) run_team(team, take);
  else take(0, 1);
}

}  // namespace nodegen::geometry_detail
