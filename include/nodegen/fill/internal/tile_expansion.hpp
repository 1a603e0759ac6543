#pragma once
// TileExpansion: one tile's work in a round. Expands the tile's waiting nodes of the round's generation
// by the node rule (node_rule.hpp), inserts what they place into the tree, and routes each placed node:
// kept in the tile's list for the next generation when it is the tile's own (inside its cell, of its
// level), else set aside, with its tile's key and index, for the hand-over (hand_over.hpp).
//
// Invariants: only the front_count nodes of front_generation are expanded, first in, first out, and
// only those leave the list; what remains (the placed nodes of the tile's own) is the next generation
// (tile_map.hpp). A node's h is evaluated once, when it is placed, and checked (spacing_fault.hpp).
//
// Concurrency: a tile is expanded by one thread; tiles of one phase are far enough apart that no
// expansion reads what another writes but through the tree, whose inserts and queries are concurrent
// (spatial/kdtree.hpp). The tile map is only read here (TileMap::find).
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/geometry/spacing_fault.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D, class Rule, class TreeOf>
class TileExpansion {
 public:
  // `constant_spacing`: every node's h is its parent's, no evaluation needed; `min_spacing`: the least
  // h the fill resolves (spacing.hpp: least_spacing).
  TileExpansion(const Rule& rule, const TreeOf& tree, const TileGrid<D>& grid, const TileMap<D>& tiles,
                bool constant_spacing, double min_spacing)
      : rule_(rule), tree_(tree), grid_(grid), tiles_(tiles), constant_(constant_spacing), min_spacing_(min_spacing) {}

  // Whether a set-aside node's tile is looked up as it is placed (the phases fill, whose tile map does
  // not change during a round); the space-rule fill makes tiles while others expand, and finds them
  // after the expansion instead (its tiles' `met`, or the tile map under its lock).
  void look_up_tiles(bool on) { look_up_ = on; }

  // Expands the tile's waiting nodes of `generation` (the front of its list). A node's children need
  // their h only once they are routed, and no expansion of this generation reads where they went (the
  // expansions read the tree and the list's first `due` entries), so with a spacing to evaluate the
  // children are routed after the loop, in the order they were placed, their h taken in one batch
  // (Spacing::Evaluator::at_many): the same lists, and one call for a spacing that prefers batches.
  // `s`: the thread's scratch, a Rule::Scratch with the spacing's evaluator `h` and the vectors
  // `children` and `child_h`.
  template <class Scratch>
  void expand(Tile<D>& tile, std::uint64_t generation, Scratch& s) const {
    if (tile.waiting.empty() || tile.front_generation != generation) return;
    const std::size_t due = tile.front_count;
    Routing routing;
    s.children.clear();
    for (std::size_t q = 0; q < due; ++q) {
      const Waiting<D> node = tile.waiting[q];  // a copy: the pushes below may move the vector
      if (!rule_.propose(node.pos, node.h, *tree_, s)) continue;
      for (const Vec<D>& c : s.accepted) {
        tree_->insert(c, s.finger);  // the tree is what the other tiles see
        tile.placed.push_back(c);
        if (constant_) route(tile, {c, node.h}, routing);
        else s.children.push_back(c);
      }
    }
    if (!s.children.empty()) {
      s.child_h.resize(s.children.size());
      if constexpr (requires { s.h.at_many(std::span<const Vec<D>>(s.children), std::span<double>(s.child_h)); })
        s.h.at_many(std::span<const Vec<D>>(s.children), std::span<double>(s.child_h));
      else
        for (std::size_t i = 0; i < s.children.size(); ++i) s.child_h[i] = s.h(s.children[i]);
      for (std::size_t i = 0; i < s.children.size(); ++i)
        route(tile, {s.children[i], checked_spacing<D>(s.children[i], s.child_h[i], min_spacing_)}, routing);
    }
    tile.waiting.erase(tile.waiting.begin(), tile.waiting.begin() + static_cast<std::ptrdiff_t>(due));
    // A list that has shrunk to a quarter of its capacity gives the rest back: in 3D a tile holds a
    // whole sheet of the front for a few phases and a few dozen nodes after, and the capacity kept from
    // those sheets would stay with every tile the front has crossed.
    if (tile.waiting.capacity() > 4 * tile.waiting.size() + 16) tile.waiting.shrink_to_fit();
    tile.front_generation = generation + 1;  // what is left (if anything) is the next generation
    tile.front_count = tile.waiting.size();
  }

 private:
  // The tile a placed node goes to, remembered from the last one: the nodes a tile sets aside mostly
  // go to the same neighbour.
  struct Routing {
    TileKey<D> last_key{};
    std::uint32_t last_tile = kNoTile;
  };

  // Keeps the child in the tile's list when it is of the tile's level and inside it; else sets it aside
  // for the tile its place and spacing name.
  void route(Tile<D>& tile, const Waiting<D>& child, Routing& routing) const {
    const Vec<D>& c = child.pos;
    const bool same_level = constant_ || grid_.level_of(child.h) == tile.key.level;
    if (same_level && (c.array() >= tile.lo.array()).all() && (c.array() < tile.hi.array()).all()) {
      tile.waiting.push_back(child);
      return;
    }
    const TileKey<D> key = grid_.key_of(c, child.h);
    if (!look_up_) {
      tile.set_aside.push_back({child, key, kNoTile});
      return;
    }
    if (routing.last_tile == kNoTile || !(key == routing.last_key)) {
      routing.last_key = key;
      routing.last_tile = tiles_.find(key);
    }
    tile.set_aside.push_back({child, key, routing.last_tile});
  }

  const Rule& rule_;
  const TreeOf& tree_;
  const TileGrid<D>& grid_;
  const TileMap<D>& tiles_;
  bool constant_;
  double min_spacing_;
  bool look_up_ = true;
};

}  // namespace nodegen::fill_detail
