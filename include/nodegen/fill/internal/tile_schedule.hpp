#pragma once
// What the space-rule fill (space_rule_fill.hpp) keeps for each tile: the runs of nodes its waiting
// list received from each source (with the tile), and, in the rule's array by tile index
// (space_rule.hpp), where its unfinished item stands, the tiles near enough to matter to it and the
// items waiting for it.
//
// Arrivals: without rounds, the sources of a tile's nodes of one generation finish in any order, so a
// waiting list is kept as runs in the order they were appended, each naming its generation and its
// source's place in the phases' order; before the tile's item runs, the runs are put in that order
// (arrival_order.hpp), which is the order the phases fill appends them in.
//
// Concurrency: everything here is read and written under the space rule's lock, but the runs, which
// deliveries append under the tile's own lock and the thread running the tile's item reads and
// rewrites (docs/parallel-fill.md, "The space-rule fill").
#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "nodegen/fill/tile_grid.hpp"

namespace nodegen::fill_detail {

// A run of nodes appended to a waiting list together: their generation and their source's place in
// that generation's phases (level, colour, then the merge order: ownership block, Z-order key). The
// seeds (generation 0) have no source and come first.
template <int D>
struct Arrival {
  std::uint64_t generation = 0;
  std::int32_t level = std::numeric_limits<std::int32_t>::min();
  int colour = 0;
  std::uint64_t block = 0;
  TileKey<D> key{};
  std::size_t count = 0;
};

// A tile's place in the space rule's schedule: one cache line, which is all a recheck of its item
// reads but for its neighbours' phases.
struct alignas(64) TileSchedule {
  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  enum class State : std::uint8_t { idle, parked, ready, running };

  std::uint64_t generation = kNone;  // of its earliest unfinished item (made, not finished), kNone: none
  State state = State::idle;
  // Bumped when the item is re-tagged to an earlier generation (SpaceRule::arrive): entries of ready
  // lists and waiters with another version are stale and skipped.
  std::uint32_t version = 0;
  // The tiles either condition of the space rule (space_rule.hpp) can name, each with which: whether
  // they touch (1) and whether its unfinished items of the generation before can make an item that
  // touches this tile (3).
  struct Near {
    std::uint32_t tile;
    bool touches, may_make;
  };
  std::vector<Near> near;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> waiters;  // (tile, version) parked until its item finishes
};

}  // namespace nodegen::fill_detail
