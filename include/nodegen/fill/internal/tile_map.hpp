#pragma once
// TileMap: the fill's tiles (tile_grid.hpp), each with the nodes waiting in it, found by key.
//
// A Tile holds its waiting nodes first in, first out. Invariant: a waiting list holds at most two
// generations, its first front_count nodes of generation front_generation and the rest of the next
// one. A node of generation g + 2 is placed in a phase of generation g + 1, which comes after every
// phase of generation g, this tile's included, so the g nodes are gone by then; and a node of
// generation g arrives only from phases of generation g - 1, before any of g. So the generation is
// kept by the tile, not by each node (the boundary is generation 0; a node placed by a node of
// generation g is g + 1).
//
// During a phase a tile also keeps what it placed (placed: every accepted node, for the store) and the
// accepted nodes that belong to another tile or level (set_aside, with that tile's index when it
// already exists), until the hand-over (hand_over.hpp) takes them.
//
// Layout: tiles live behind unique_ptr in the order they were first met (their index), so a reference
// to a tile stays valid while others are made; the index, not the order, is what the rest of the fill
// keeps. The order in which tiles merge their nodes is by key (merge_less), never by index.
//
// Concurrency: tiles are made (at) only while one thread works (seeding, a completion step); during a
// round the team's threads find tiles (find) and each works on tiles no other thread touches, but for
// the hand-over's deliveries (Tile::lock) and expanded_round (release / acquire). The space-rule fill
// makes tiles under its lock while other threads deliver to tiles made before (tile_schedule.hpp).
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nodegen/fill/internal/tile_schedule.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

// A node waiting to be expanded, with its spacing (evaluated once, when it was accepted).
template <int D>
struct Waiting {
  Vec<D> pos;
  double h;
};

// The index of no tile: a set-aside node's tile that did not exist when the node was placed.
inline constexpr std::uint32_t kNoTile = 0xFFFF'FFFFu;

// An accepted node that belongs to another tile, set aside until the tile is handed over, with the
// tile's index (kNoTile when the tile does not exist yet). The expanding thread looks the tile up
// (TileMap::find), so the hand-over only appends the node.
template <int D>
struct SetAside {
  Waiting<D> node;
  TileKey<D> key;
  std::uint32_t tile;
};

template <int D>
struct Tile {
  TileKey<D> key;
  std::uint64_t block = 0;        // its ownership block (tile_grid.hpp), the merge order's first key
  std::uint32_t index = 0;        // in the TileMap (the order tiles were first met: storage only, no order)
  Vec<D> lo, hi;                  // its cell (a node on a face may go either way; both are safe)
  // First in, first out: front_count nodes of generation front_generation, then the next one's.
  std::vector<Waiting<D>> waiting;
  std::uint64_t front_generation = 0;
  std::size_t front_count = 0;
  std::vector<Vec<D>> placed;     // the nodes this tile placed in the current phase, in order
  std::vector<SetAside<D>> set_aside;
  std::int64_t listed = -1;       // the latest generation whose phase lists this tile
  int worker = 0;                 // the thread that expanded it last (where its lines are cached)
  std::atomic<std::uint64_t> expanded_round{~std::uint64_t{0}};  // the last round that expanded it
  // The nodes runs handed over to it in round seg_round (hand_over.hpp, deliver): waiting[seg_base,
  // ...) holds one segment per run that delivered, in run order, each (run, end) ending where the next
  // begins.
  std::uint64_t seg_round = ~std::uint64_t{0};
  std::size_t seg_base = 0;
  std::vector<std::pair<int, std::size_t>> segs;
  std::atomic<std::uint32_t> lock{0};  // deliveries from several runs during a round
  // The space-rule fill's (tile_schedule.hpp; its place in the schedule is the rule's, by index): the
  // runs of its waiting list; the runs delivered while its item ran, and their nodes, kept aside until
  // its hand-over.
  std::vector<Arrival<D>> arrivals;
  std::vector<Arrival<D>> deferred_runs;
  std::vector<Waiting<D>> deferred;
  bool running = false;  // whether its item runs (under `lock`: deliveries read it to defer)
  // The tiles its items delivered to so far, by key: read and written only by the thread running its
  // item, so the deliveries find their targets without the tile map (whose lock they would need).
  std::vector<std::pair<TileKey<D>, Tile*>> met;

  // Appends a node of `generation` to the waiting list.
  void enqueue(const Waiting<D>& node, std::uint64_t generation) {
    if (waiting.empty()) {
      front_generation = generation;
      front_count = 0;
    }
    if (generation == front_generation) ++front_count;
    waiting.push_back(node);
  }
  // Marks the tile listed in the phase of `generation`; false when it already was.
  bool list_in(std::uint64_t generation) {
    if (listed >= static_cast<std::int64_t>(generation)) return false;
    listed = static_cast<std::int64_t>(generation);
    return true;
  }
  // Frees the lists of a tile the front has passed (nothing waiting, nothing set aside).
  void free_lists() {
    std::vector<Waiting<D>>().swap(waiting);
    std::vector<SetAside<D>>().swap(set_aside);
    std::vector<std::pair<int, std::size_t>>().swap(segs);
    std::vector<Arrival<D>>().swap(arrivals);
    std::vector<Arrival<D>>().swap(deferred_runs);
    std::vector<Waiting<D>>().swap(deferred);
    decltype(met)().swap(met);
  }
};

template <int D>
class TileMap {
 public:
  explicit TileMap(const TileGrid<D>& grid) : grid_(grid) {}

  // The index of the tile with this key, kNoTile when there is none. Read-only, so the team's threads
  // call it during a round.
  std::uint32_t find(const TileKey<D>& key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? kNoTile : it->second;
  }
  // The tile with this key, made if there is none (only while one thread works).
  Tile<D>& at(const TileKey<D>& key) {
    auto [it, fresh] = index_.try_emplace(key, tiles_.size());
    if (fresh) {
      tiles_.push_back(std::make_unique<Tile<D>>());
      Tile<D>& t = *tiles_.back();
      t.key = key;
      t.block = TileGrid<D>::block_code(key);
      t.index = static_cast<std::uint32_t>(it->second);
      grid_.cell_of(key, t.lo, t.hi);
      keys_.push_back({key, t.block});
    }
    return *tiles_[it->second];
  }
  Tile<D>& operator[](std::uint32_t index) const { return *tiles_[index]; }
  std::size_t size() const { return tiles_.size(); }
  // A tile's key and block, from an array of their own: the serial steps between phases read them
  // for every tile of a phase, and a tile's own memory lies anywhere on the heap.
  const TileKey<D>& key(std::uint32_t index) const { return keys_[index].key; }

  // Sorts tile indices into the merge order (tile_grid.hpp: ownership block, then Z-order), which any
  // process can compute for its own tiles without knowing the others' history.
  void sort_merge_order(std::vector<std::uint32_t>& tiles) const {
    std::sort(tiles.begin(), tiles.end(), [&](std::uint32_t a, std::uint32_t b) {
      return merge_less<D>(keys_[a].key, keys_[a].block, keys_[b].key, keys_[b].block);
    });
  }

  // Frees every tile and the index.
  void release() {
    std::vector<std::unique_ptr<Tile<D>>>().swap(tiles_);
    decltype(keys_)().swap(keys_);
    decltype(index_)().swap(index_);
  }

 private:
  TileGrid<D> grid_;
  std::vector<std::unique_ptr<Tile<D>>> tiles_;  // in the order they were first met
  struct Keys {
    TileKey<D> key;
    std::uint64_t block;
  };
  std::vector<Keys> keys_;  // by index, as tiles_
  std::unordered_map<TileKey<D>, std::uint32_t, TileKeyHash<D>> index_;
};

}  // namespace nodegen::fill_detail
