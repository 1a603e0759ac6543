#pragma once
// GenerationZero: where one process's fill begins. The boundary nodes are the store's first rows, in
// the order the geometry produced them; the interior starts (interior_starts.hpp) follow, in the merge
// order of their tiles. Each is inserted into the tree and waits in its tile for generation 0.
// (With several processes, rank_exchange.hpp stores each rank's share of both; the starts are the
// same, from starts() here.)
//
// Invariants: rows are claimed once for each group (StoreSlots::claim), so the boundary's rows are
// 0 .. n-1 and the starts' the next ones; every node's h is checked (the caller's h_at) before it is
// queued; a boundary larger than the node cap fails before anything is stored.
//
// Concurrency: one thread, before the team's first round (the tree's insert_alone, the tile map's at).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nodegen/fill/internal/interior_starts.hpp"
#include "nodegen/fill/internal/phase_queue.hpp"
#include "nodegen/fill/internal/point_list.hpp"
#include "nodegen/fill/internal/store_slots.hpp"
#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/store_concept.hpp"

namespace nodegen::fill_detail {

template <int D, class StoreT, class TreeOf>
class GenerationZero {
 public:
  using Finger = typename TreeOf::Tree::Finger;

  GenerationZero(StoreT& store, TreeOf& tree, StoreSlots<D>& slots, TileMap<D>& tiles, PhaseQueue<D>& phases,
                 const TileGrid<D>& grid, std::size_t max_nodes, std::uint64_t seed)
      : store_(store), tree_(tree), slots_(slots), tiles_(tiles), phases_(phases), grid_(grid), max_nodes_(max_nodes),
        seed_(seed) {}

  // Seeds the boundary, then the starts inside `domain`; h_at(p): the checked spacing at p;
  // progress(n) counts stored nodes. Returns the boundary's rows (the first ones).
  template <class DomainT, class BoundaryNodeT, class HAt, class Progress>
  std::size_t seed(const DomainT& domain, const std::vector<BoundaryNodeT>& boundary, HAt&& h_at, Finger& finger,
                   Progress&& progress) {
    if (boundary.size() > max_nodes_)
      throw StoreFull("the domain has " + std::to_string(boundary.size()) + " boundary nodes");
    if (boundary.empty()) return 0;
    std::int32_t finest = TileGrid<D>::kMaxLevel;
    put(boundary.size(), finger, [&](std::size_t i) {
      const Vec<D>& p = boundary[i].pos;
      const double r = h_at(p);
      finest = std::min(finest, start_level<D>(r, grid_.edge(0)));
      return Start<D>{p, r, grid_.key_of(p, r), 0};
    });
    progress(boundary.size());
    const std::vector<Start<D>> inside = starts(domain, boundary, finest, h_at);
    put(inside.size(), finger, [&](std::size_t i) { return inside[i]; });
    progress(inside.size());
    return boundary.size();
  }

  // The interior starts for `boundary`, whose finest start level is `finest` (interior_starts.hpp).
  template <class DomainT, class BoundaryNodeT, class HAt>
  std::vector<Start<D>> starts(const DomainT& domain, const std::vector<BoundaryNodeT>& boundary, std::int32_t finest,
                               HAt&& h_at) const {
    std::vector<Vec<D>> at;
    at.reserve(boundary.size());
    for (const auto& b : boundary) at.push_back(b.pos);
    return interior_starts<D>(domain, grid_, seed_, std::move(at), finest, max_nodes_, h_at);
  }

 private:
  // Stores n nodes (node(i): a Start, its block unused) as the next rows, inserts them into the tree and
  // queues each in its tile for generation 0, in that order.
  template <class NodeAt>
  void put(std::size_t n, Finger& finger, NodeAt&& node) {
    if (n == 0) return;
    const std::size_t first = slots_.claim(store_, n);
    for (std::size_t i = 0; i < n; ++i) {
      const Start<D> s = node(i);
      store_.set(first + i, to_stored<D>(s.pos));
      tree_.insert_alone(s.pos, finger);
      phases_.enqueue(tiles_.at(s.key), {s.pos, s.h}, 0);
    }
  }

  StoreT& store_;
  TreeOf& tree_;
  StoreSlots<D>& slots_;
  TileMap<D>& tiles_;
  PhaseQueue<D>& phases_;
  const TileGrid<D>& grid_;
  std::size_t max_nodes_;
  std::uint64_t seed_;
};

}  // namespace nodegen::fill_detail
