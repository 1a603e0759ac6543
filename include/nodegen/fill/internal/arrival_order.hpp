#pragma once
// order_arrivals: a waiting list put in the phases' order before its tile's item runs (the space-rule
// fill, space_rule_fill.hpp).
//
// The phases fill appends a tile's nodes of generation g + 1 in the order of their sources' phases
// (generation g; level, then colour) and, within a phase, the merge order of the sources
// (tile_grid.hpp). Without rounds the sources finish in any order, so each delivery is kept as a run
// (tile_schedule.hpp: Arrival) and the runs are sorted by that order here: the list the tile then
// expands is the phases fill's, so the nodes are too.
//
// Invariant: the runs, in the order they are kept, cover the waiting list from its start; after the
// call they are sorted, and the first front_count nodes are the runs of `generation`, which are then
// all there (no source of them is unfinished when the tile's item starts: the space rule).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/fill/tile_grid.hpp"

namespace nodegen::fill_detail {

// The phases fill's order of two runs: generation, then the source's phase, then the merge order.
template <int D>
bool arrival_less(const Arrival<D>& a, const Arrival<D>& b) {
  if (a.generation != b.generation) return a.generation < b.generation;
  if (a.level != b.level) return a.level < b.level;
  if (a.colour != b.colour) return a.colour < b.colour;
  return merge_less<D>(a.key, a.block, b.key, b.block);
}

// Sorts the tile's runs and its waiting list with them; the nodes of `generation` become the front.
// `scratch`: a buffer of the caller's, reused.
template <int D>
void order_arrivals(Tile<D>& tile, std::uint64_t generation, std::vector<Waiting<D>>& scratch) {
  std::vector<Arrival<D>>& runs = tile.arrivals;
  if (!std::is_sorted(runs.begin(), runs.end(), arrival_less<D>)) {
    std::vector<std::size_t> first(runs.size() + 1, 0);
    for (std::size_t i = 0; i < runs.size(); ++i) first[i + 1] = first[i] + runs[i].count;
    std::vector<std::uint32_t> order(runs.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return arrival_less<D>(runs[a], runs[b]); });
    scratch.clear();
    std::vector<Arrival<D>> sorted;
    sorted.reserve(runs.size());
    for (std::uint32_t i : order) {
      scratch.insert(scratch.end(), tile.waiting.begin() + static_cast<std::ptrdiff_t>(first[i]),
                     tile.waiting.begin() + static_cast<std::ptrdiff_t>(first[i + 1]));
      sorted.push_back(runs[i]);
    }
    std::copy(scratch.begin(), scratch.end(), tile.waiting.begin());
    runs.swap(sorted);
  }
  std::size_t front = 0;
  for (const Arrival<D>& run : runs)
    if (run.generation == generation) front += run.count;
  tile.front_generation = generation;
  tile.front_count = front;
}

}  // namespace nodegen::fill_detail
