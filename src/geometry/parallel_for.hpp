#pragma once
// Boundary placement work spread over the run's threads: fn(thread, i) for every i in [0, n), the range
// cut into equal contiguous parts, one per thread (inline on one thread, or when n < 2).
#include <algorithm>
#include <cstddef>

#include <nodegen/storage/thread_team.hpp>

namespace nodegen::geometry_detail {

template <class Fn>
void parallel_for(std::size_t n, int threads, Fn&& fn) {
  const int team = static_cast<int>(std::clamp<std::size_t>(n, 1, static_cast<std::size_t>(std::max(1, threads))));
  auto part = [&](int t, int nt) {
    const std::size_t a = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(nt);
    const std::size_t b = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(nt);
    for (std::size_t i = a; i < b; ++i) fn(t, i);
  };
  if (team > 1) run_team(team, part);
  else part(0, 1);
}

}  // namespace nodegen::geometry_detail
