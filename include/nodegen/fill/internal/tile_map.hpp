#pragma once
// TileMap: the fill's tiles (tile_grid.hpp), each with the nodes waiting in it, found by key.
//
// A Tile holds its waiting nodes in arrivals: the nodes one source handed to it at once (Arrival),
// kept in the order they came and expanded in the arrival order (arrives_before): by the phase that
// placed them, then their source tile in the merge order, then their place in the source's list. That
// is the order one thread handing the tiles over in phase order and merge order would give them, so a
// tile expands the same list whatever order its arrivals came in (which thread, which run). The
// generation 0 nodes arrive before every phase, in the order they were seeded (arrivals alike in all
// three keys keep the order they came in, then fixed); under several
// processes a phase's nodes arrive in the merge order already and carry only that order (kNoTile).
// Invariant: a waiting list holds at most two generations. A node of generation g + 2 is placed in a
// phase of generation g + 1, which comes after every phase of generation g, this tile's included, so
// the g nodes are gone by then; and a node of generation g arrives only from phases of generation
// g - 1, before any of g. front_count counts the nodes of front_generation, the older one (the
// boundary is generation 0; a node placed by a node of generation g is g + 1).
//
// During a phase a tile also keeps what it placed (placed: every accepted node, for the store) and the
// accepted nodes that belong to another tile or level (set_aside, with that tile's index when it
// already exists), until the hand-over (hand_over.hpp) takes them.
//
// Layout: tiles live behind unique_ptr in a SegmentedArray (parallel/segmented_array.hpp) by index,
// the order they were first met, so a reference to a tile stays valid while others are made; the
// index, which depends on the threads, is only a name: the order in which tiles merge their nodes is by
// key (merge_less), never by index. The map from key to index is cut into shards by the key's hash.
//
// Concurrency: any thread finds (find) or makes (at) a tile at any time: each shard is a map under a
// spin lock, and a tile is made and written in full (its index, key and cell) before its shard's lock
// is released, so whoever finds it sees it whole. During a round each thread works on tiles no other
// thread touches, but for the hand-over's deliveries (Tile::lock) and expanded_round (release /
// acquire).
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/segmented_array.hpp"
#include "nodegen/parallel/spin_lock.hpp"
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

// Where a run of waiting nodes came from, which fixes its place in the tile's order (arrives_before):
// the phase that placed it (packed, phase_queue.hpp; -1 before every phase), its source tile (kNoTile
// when only the sequence orders it) and its sequence (the place of its first node in the source's
// list of set-aside nodes plus 1, 0 for the tile's own children; or a count in arrival order). Its
// nodes are waiting[first, first + count).
struct Arrival {
  std::uint64_t generation;
  std::int64_t phase;
  std::uint32_t source;
  std::uint32_t sequence;
  std::uint32_t first = 0, count = 0;
};

// The arrival of the generation 0 nodes, before every phase, in the order they are seeded.
inline constexpr Arrival kSeeded{0, -1, kNoTile, 0};

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
  // Its waiting nodes, by arrival; front_count of them are of generation front_generation, the rest of
  // the next one.
  std::vector<Waiting<D>> waiting;
  std::vector<Arrival> arrivals;  // in the order they came (ascending first)
  std::uint64_t front_generation = 0;
  std::size_t front_count = 0;
  std::vector<Vec<D>> placed;     // the nodes this tile placed in the current phase, in order
  std::vector<SetAside<D>> set_aside;
  std::int64_t listed = -1;       // the latest generation whose phase lists this tile
  int worker = 0;                 // the thread that expanded it last (where its lines are cached)
  std::atomic<std::uint64_t> expanded_round{~std::uint64_t{0}};  // the last round that expanded it
  std::atomic<std::uint32_t> lock{0};  // deliveries from several threads during a round

  // Appends nodes [from, to) (SetAside or Waiting records) of the arrival's generation
  // as one arrival from `from_where` (its count and first are set here). An arrival that continues the
  // last one (same generation, phase and source, a sequence not below it, right after it in the list)
  // extends it: nothing can come between them in the order.
  template <class It>
  void arrive(It from, It to, Arrival from_where) {
    const auto n = static_cast<std::uint32_t>(to - from);
    if (n == 0) return;
    if (waiting.empty()) {
      front_generation = from_where.generation;
      front_count = 0;
    }
    if (from_where.generation == front_generation) front_count += n;
    const auto first = static_cast<std::uint32_t>(waiting.size());
    for (It p = from; p != to; ++p) waiting.push_back(node_of(*p));
    if (!arrivals.empty()) {
      Arrival& last = arrivals.back();
      if (last.generation == from_where.generation && last.phase == from_where.phase &&
          last.source == from_where.source && last.sequence <= from_where.sequence &&
          last.first + last.count == first) {
        last.count += n;
        return;
      }
    }
    from_where.first = first;
    from_where.count = n;
    arrivals.push_back(from_where);
  }
  // Appends one node of `generation` (generation 0, or one a process received).
  void enqueue(const Waiting<D>& node, const Arrival& from_where) { arrive(&node, &node + 1, from_where); }

  // Moves the nodes of `generation` into `front` in the arrival order (before(a, b): arrival a comes
  // first), keeping the others in theirs; `due` is scratch. False when none is of that generation.
  template <class Before>
  bool take(std::uint64_t generation, Before&& before, std::vector<Waiting<D>>& front, std::vector<Arrival>& due) {
    front.clear();
    if (waiting.empty() || front_generation != generation) return false;
    due.clear();
    for (const Arrival& a : arrivals)
      if (a.generation == generation) due.push_back(a);
    if (due.size() > 1) std::sort(due.begin(), due.end(), before);
    for (const Arrival& a : due) front.insert(front.end(), waiting.begin() + a.first, waiting.begin() + a.first + a.count);
    std::uint32_t at = 0;
    std::size_t kept = 0;
    for (Arrival a : arrivals) {  // the rest moves down, in its order (arrivals ascend in first)
      if (a.generation == generation) continue;
      if (a.first != at) std::copy(waiting.begin() + a.first, waiting.begin() + a.first + a.count, waiting.begin() + at);
      a.first = at;
      at += a.count;
      arrivals[kept++] = a;
    }
    arrivals.resize(kept);
    waiting.resize(at);
    front_generation = generation + 1;  // what is left (if anything) is the next generation
    front_count = waiting.size();
    return true;
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
    std::vector<Arrival>().swap(arrivals);
    std::vector<SetAside<D>>().swap(set_aside);
  }

 private:
  static const Waiting<D>& node_of(const Waiting<D>& w) { return w; }
  static const Waiting<D>& node_of(const SetAside<D>& s) { return s.node; }
};

template <int D>
class TileMap {
 public:
  explicit TileMap(const TileGrid<D>& grid) : grid_(grid) {}

  // The index of the tile with this key, kNoTile when there is none (any thread).
  std::uint32_t find(const TileKey<D>& key) const {
    Shard& shard = shard_of(key);
    SpinGuard guard(shard.lock);
    const auto it = shard.index.find(key);
    return it == shard.index.end() ? kNoTile : it->second;
  }
  // The tile with this key, made if there is none (any thread).
  Tile<D>& at(const TileKey<D>& key) {
    Shard& shard = shard_of(key);
    SpinGuard guard(shard.lock);
    auto [it, fresh] = shard.index.try_emplace(key, kNoTile);
    if (!fresh) return *tiles_[it->second];
    const std::size_t index = count_.fetch_add(1, std::memory_order_relaxed);
    if (index >= kNoTile) throw std::length_error("the fill's tile map holds at most 2^32 - 1 tiles");
    auto& slot = tiles_.grow_to(index);
    slot = std::make_unique<Tile<D>>();
    Tile<D>& t = *slot;
    t.key = key;
    t.block = TileGrid<D>::block_code(key);
    t.index = static_cast<std::uint32_t>(index);
    grid_.cell_of(key, t.lo, t.hi);
    keys_.grow_to(index) = {key, t.block};
    it->second = t.index;
    return t;
  }
  Tile<D>& operator[](std::uint32_t index) const { return *tiles_[index]; }
  // A tile's key and block, from an array of their own: the serial steps between phases read them
  // for every tile of a phase, and a tile's own memory lies anywhere on the heap.
  const TileKey<D>& key(std::uint32_t index) const { return keys_[index].key; }

  // Whether arrival a comes before arrival b in a tile's waiting list (Arrival): by phase, then
  // source in the merge order, then sequence.
  bool arrives_before(const Arrival& a, const Arrival& b) const {
    if (a.phase != b.phase) return a.phase < b.phase;
    if (a.source != b.source && a.source != kNoTile && b.source != kNoTile)
      return merge_less<D>(keys_[a.source].key, keys_[a.source].block, keys_[b.source].key, keys_[b.source].block);
    if (a.sequence != b.sequence) return a.sequence < b.sequence;
    return a.first < b.first;  // alike: in the order they came
  }

  // Sorts tile indices into the merge order (tile_grid.hpp: ownership block, then Z-order), which any
  // process can compute for its own tiles without knowing the others' history.
  void sort_merge_order(std::vector<std::uint32_t>& tiles) const {
    std::sort(tiles.begin(), tiles.end(), [&](std::uint32_t a, std::uint32_t b) {
      return merge_less<D>(keys_[a].key, keys_[a].block, keys_[b].key, keys_[b].block);
    });
  }

  // Frees every tile and the index (no other thread may use the map).
  void release() {
    tiles_.clear();
    keys_.clear();
    count_.store(0, std::memory_order_relaxed);
    for (Shard& shard : shards_) decltype(shard.index)().swap(shard.index);
  }

 private:
  static constexpr int kShardBits = 6;
  struct Keys {
    TileKey<D> key;
    std::uint64_t block;
  };
  struct alignas(kFalseSharingBytes) Shard {
    std::atomic<std::uint32_t> lock{0};
    std::unordered_map<TileKey<D>, std::uint32_t, TileKeyHash<D>> index;
  };
  // The map's own buckets take the hash's low bits, the shard its high ones.
  Shard& shard_of(const TileKey<D>& key) const {
    return shards_[static_cast<std::uint64_t>(TileKeyHash<D>{}(key)) >> (64 - kShardBits)];
  }

  TileGrid<D> grid_;
  SegmentedArray<std::unique_ptr<Tile<D>>> tiles_;  // by index: the order they were first met
  SegmentedArray<Keys> keys_;                       // by index, as tiles_
  std::atomic<std::size_t> count_{0};               // tiles made
  mutable std::array<Shard, std::size_t{1} << kShardBits> shards_;
};

}  // namespace nodegen::fill_detail
