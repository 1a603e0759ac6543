#pragma once
// PhaseCommit: the space-rule fill's store slots, given phase by phase in the phases' order, trailing
// the items as they finish (space_rule_fill.hpp).
//
// Order: the store holds each phase's nodes after the phases before it, tile by tile in the merge
// order, each tile's in the order it placed them: the order the phases fill writes (store_slots.hpp).
// A phase of generation g is committed once it is the first phase left, none of its items is
// unfinished, and no item of a generation below g is (so no item of it can still be made). Each tile's
// placed nodes then become a copy job at its slots; the caller writes the jobs outside its lock.
//
// Concurrency: called under the space-rule fill's lock; the jobs are written by the thread that
// committed them, to slots no other job has.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "nodegen/fill/internal/phase_queue.hpp"
#include "nodegen/fill/internal/store_slots.hpp"
#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D>
class PhaseCommit {
 public:
  explicit PhaseCommit(const TileMap<D>& tiles) : tiles_(tiles) {}

  // An item of `phase` (packed) was made.
  void add(std::int64_t phase) { ++phases_[phase].unfinished; }
  // An item of `phase` was re-tagged to an earlier phase before it ran (SpaceRule::arrive).
  void drop(std::int64_t phase) {
    auto it = phases_.find(phase);
    if (--it->second.unfinished == 0 && it->second.tiles.empty()) phases_.erase(it);
  }
  // An item of `phase` finished: its tile `tile` placed `placed` (taken).
  void finish(std::int64_t phase, std::uint32_t tile, std::vector<Vec<D>>& placed) {
    Nodes& nodes = phases_[phase];
    --nodes.unfinished;
    largest_ = std::max(largest_, placed.size());
    if (!placed.empty()) nodes.tiles.emplace_back(tile, std::move(placed));
    placed = {};
  }

  // Commits the complete phases in order (`least`: the least generation with an unfinished item):
  // claim(n) gives n store slots and returns the first; the copy jobs go to `jobs`; committed(g, n)
  // hears of each phase, its generation and its nodes.
  template <class Claim, class Committed>
  void commit(std::uint64_t least, Claim&& claim, std::vector<CopyJob<D>>& jobs, Committed&& committed) {
    while (!phases_.empty()) {
      auto it = phases_.begin();
      if (it->second.unfinished != 0 || least < unpack(it->first).generation) return;
      auto& done = it->second.tiles;
      std::sort(done.begin(), done.end(), [&](const auto& a, const auto& b) {
        const Tile<D>& ta = tiles_[a.first];
        const Tile<D>& tb = tiles_[b.first];
        return merge_less<D>(ta.key, ta.block, tb.key, tb.block);
      });
      std::size_t n = 0;
      for (const auto& [tile, nodes] : done) n += nodes.size();
      std::size_t slot = claim(n);
      for (auto& [tile, nodes] : done) {
        const std::size_t size = nodes.size();
        jobs.push_back({slot, std::move(nodes)});
        slot += size;
      }
      committed(unpack(it->first).generation, n);
      phases_.erase(it);
      ++committed_;
    }
  }

  std::size_t committed() const { return committed_; }  // phases
  std::size_t largest() const { return largest_; }      // the most nodes one item placed

 private:
  struct Nodes {
    std::size_t unfinished = 0;
    std::vector<std::pair<std::uint32_t, std::vector<Vec<D>>>> tiles;  // (tile, its placed nodes)
  };

  const TileMap<D>& tiles_;
  std::map<std::int64_t, Nodes> phases_;  // by packed phase: the phases' order
  std::size_t committed_ = 0, largest_ = 0;
};

}  // namespace nodegen::fill_detail
