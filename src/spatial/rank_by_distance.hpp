#pragma once
// rank_by_distance: the place of each of a few points in the order of (squared distance, id), the
// selection of the supports' k nearest (nearest_supports.cpp) among the points a query's cut keeps.
#include <cstddef>
#include <cstdint>

namespace nodegen::spatial_detail {

// The arrays are padded to a multiple of kRankStep entries: rank_padded(n).
inline constexpr std::size_t kRankStep = 8;
inline constexpr std::size_t rank_padded(std::size_t n) { return (n + kRankStep - 1) / kRankStep * kRankStep; }

// places[a] = the number of points b with (d2[b], id[b]) < (d2[a], id[a]), for n points whose ids are
// distinct (so the places are 0 .. n-1, each once). Ids are doubles so one vector compare serves both
// keys; they are integers below 2^31, exact. O(n^2), branch-free, for a few dozen points. All three
// arrays hold rank_padded(n) entries: those of d2 and id past n are read (any values) and only
// places of their own follow from them, which are scratch.
void rank_by_distance(const double* d2, const double* id, std::size_t n, std::uint32_t* places);

}  // namespace nodegen::spatial_detail
