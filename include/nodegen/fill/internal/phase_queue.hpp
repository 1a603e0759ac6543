#pragma once
// PhaseQueue: the tiles with nodes waiting, by the phase that will expand them.
//
// A phase is (generation, level, colour): the nodes of one generation in the tiles of one level and
// one colour (tile_grid.hpp), which are far enough apart to be expanded in parallel. Phases run in
// ascending order of that triple until none is left. A phase of generation g only adds nodes of
// generation g + 1, so every phase comes after those that feed it, and the first phase of the queue
// can no longer change once it is of the running phase's generation (take_first).
//
// A tile is listed once per generation (Tile::listed): when its first node of that generation
// arrives. The order within a phase's list does not matter; the phase is sorted into the merge order
// when it is taken.
//
// Concurrency: schedule, enqueue and take run while one thread works (seeding, a completion step).
// During a round the runs' hand-overs list their tiles (list) and the round's planner takes the next
// phase (take_first), both under the queue's spin lock; they add only phases of the next generation,
// which the planner takes only once every run is handed over.
#include <atomic>
#include <compare>
#include <cstdint>
#include <limits>
#include <map>
#include <vector>

#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/spin_lock.hpp"

namespace nodegen::fill_detail {

struct Phase {
  std::uint64_t generation;
  std::int32_t level;
  int colour;
  friend auto operator<=>(const Phase&, const Phase&) = default;
};

// A phase as one number whose order is the phases' order (generation, level, colour), for the
// processes to agree on the next one by a minimum (rank_exchange.hpp).
inline std::int64_t pack(const Phase& p) {
  return static_cast<std::int64_t>((p.generation << 14) | (static_cast<std::uint64_t>(p.level + 1024) << 3) |
                                   static_cast<std::uint64_t>(p.colour));
}
inline Phase unpack(std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  return {u >> 14, static_cast<std::int32_t>((u >> 3) & 2047) - 1024, static_cast<int>(u & 7)};
}
inline constexpr std::int64_t kNoPhase = std::numeric_limits<std::int64_t>::max();

template <int D>
class PhaseQueue {
 public:
  // The phase of the tile's nodes of `generation`.
  static Phase phase_of(const Tile<D>& tile, std::uint64_t generation) {
    return {generation, tile.key.level, TileGrid<D>::colour(tile.key)};
  }

  // Appends a node of `generation` to the tile's waiting list and lists the tile in that generation's phase.
  void enqueue(Tile<D>& tile, const Waiting<D>& node, std::uint64_t generation) {
    tile.enqueue(node, generation);
    schedule(tile, generation);
  }
  // Lists the tile in the phase of `generation` (a node of that generation now waits in it).
  void schedule(Tile<D>& tile, std::uint64_t generation) {
    if (tile.list_in(generation)) ready_[phase_of(tile, generation)].push_back(tile.index);
  }
  // Lists `tiles` (already marked listed: Tile::list_in) in their phases of `generation`, under the lock.
  void list(const std::vector<std::uint32_t>& tiles, std::uint64_t generation, const TileMap<D>& map) {
    SpinGuard guard(lock_);
    std::vector<std::uint32_t>* list = nullptr;
    Phase last{};
    for (std::uint32_t i : tiles) {  // a run's tiles mostly list in a few phases
      const TileKey<D>& key = map.key(i);
      const Phase phase{generation, key.level, TileGrid<D>::colour(key)};
      if (!list || phase != last) list = &ready_[last = phase];
      list->push_back(i);
    }
  }

  // Takes the first phase into `generation` and `tiles` (unsorted), under the lock, if it can no longer
  // change: when it is of the running phase's generation `running`, or when `all_handed` (every tile of
  // the running phase is handed over). False when there is none or it may still change.
  bool take_first(std::uint64_t running, bool all_handed, std::uint64_t& generation,
                  std::vector<std::uint32_t>& tiles) {
    SpinGuard guard(lock_);
    if (ready_.empty()) return false;
    if (ready_.begin()->first.generation != running && !all_handed) return false;
    auto it = ready_.begin();
    generation = it->first.generation;
    tiles = std::move(it->second);
    ready_.erase(it);
    return true;
  }
  // The first phase, packed (kNoPhase when there is none).
  std::int64_t first() const { return ready_.empty() ? kNoPhase : pack(ready_.begin()->first); }
  // Takes `phase`'s tiles into `tiles` (unsorted) if this process has any.
  void take(const Phase& phase, std::vector<std::uint32_t>& tiles) {
    if (auto it = ready_.find(phase); it != ready_.end()) {
      tiles = std::move(it->second);
      ready_.erase(it);
    }
  }

 private:
  std::map<Phase, std::vector<std::uint32_t>> ready_;  // tiles with waiting nodes, by phase
  alignas(kFalseSharingBytes) std::atomic<std::uint32_t> lock_{0};  // ready_ during a round
};

}  // namespace nodegen::fill_detail
