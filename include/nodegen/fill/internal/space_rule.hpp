#pragma once
// SpaceRule: when a tile's item may run without barriers, so that every item sees what it would see
// if the phases ran one after the other (docs/parallel-fill.md, "Other schedules" has the argument).
//
// An item is a tile's nodes of one generation, (T, g), of phase p = (g, level, colour). With r_X the
// largest spacing of tile X's level (its edge / kTileSpacings), (T, g) may start when
//   1. no tile U closer than max(r_T + 2 r_U, 2 r_T + r_U) has an unfinished item of a phase before p
//      (what it writes, T reads, or the other way round);
//   2. no item of a generation below g - 1 is unfinished;
//   3. no tile S closer than r_S + 3 r_T has an unfinished item of generation g - 1 (a hand-over of
//      such an item could still make an item before p that touches T).
// Distances are between cells. An item is unfinished from when it is made (its tile's first node of g
// arrives) until its hand-over is done. Once an item passes, it stays ready: nothing before it that
// touches it can still be made.
//
// Events, not scans: an item that fails parks on one blocker, a tile (rechecked when that tile's item
// finishes; of its blockers, the latest in the phases' order) or the least unfinished generation
// (rechecked when that generation is done).
// Ready items are taken in phase order. The least unfinished item always passes, so the fill cannot
// stall; every parked item's blocker is unfinished and will finish, so none is forgotten.
//
// Neighbours: when a tile is made, the tiles of every level whose cells lie within 3 (r_T + r_U) of
// its own (all that either condition can name) are found through the tile map, once, both ways, and
// each keeps which conditions the other falls under; a check then reads only their phases.
//
// A tile may hold items of two generations (arrive): its earliest is the one it shows the rule, and
// entries for an item re-tagged to an earlier generation are told stale by the tile's version.
//
// Concurrency: every member is called under the caller's lock (space_rule_fill.hpp).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "nodegen/fill/internal/phase_queue.hpp"
#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D>
class SpaceRule {
 public:
  SpaceRule(TileMap<D>& tiles, const TileGrid<D>& grid, int threads)
      : tiles_(tiles), grid_(grid), ready_(static_cast<std::size_t>(threads)) {}

  // The thread whose calls follow: the items they make ready go to its list.
  void act_as(int thread) { actor_ = static_cast<std::size_t>(thread) % ready_.size(); }

  // The phase of tile t's item of generation g, packed (phase_queue.hpp): its order is the phases'.
  static std::int64_t phase(const Tile<D>& t, std::uint64_t g) { return pack(PhaseQueue<D>::phase_of(t, g)); }

  // The tile with this key, made if there is none; a made tile learns its neighbours.
  Tile<D>& tile_at(const TileKey<D>& key) {
    const std::size_t before = tiles_.size();
    Tile<D>& t = tiles_.at(key);
    if (tiles_.size() != before) meet_neighbours(t);
    return t;
  }
  // The same for a tile made before the fill began (the seeds').
  void meet_neighbours(Tile<D>& t) {
    const std::int32_t level = t.key.level;
    least_level_ = std::min(least_level_, level);
    most_level_ = std::max(most_level_, level);
    if (phase_of_.size() < tiles_.size()) {  // every tile made so far, for the neighbours' entries below
      phase_of_.resize(tiles_.size(), kIdle);
      schedule_.resize(tiles_.size());
    }
    const Vec<D> centre = 0.5 * (t.lo + t.hi);
    const double r = reach(level), half = 0.5 * grid_.edge(level);
    for (std::int32_t l = least_level_; l <= most_level_; ++l) {
      const double ru = reach(l), within = 3.0 * (r + ru);
      grid_.tiles_near(centre, l, (half + within) / grid_.edge(l), [&](const TileKey<D>& key) {
        const std::uint32_t u = tiles_.find(key);
        if (u == kNoTile || u == t.index) return;
        const double gap = cell_gap(t, tiles_[u]);
        const bool touch = gap < std::max(r + 2.0 * ru, 2.0 * r + ru);  // condition 1, either way
        const bool makes_here = gap < ru + 3.0 * r, makes_there = gap < r + 3.0 * ru;  // condition 3
        if (touch || makes_here) schedule_[t.index].near.push_back({u, touch, makes_here});
        if (touch || makes_there) schedule_[u].near.push_back({t.index, touch, makes_there});
      });
    }
  }

  // Nodes of generation g arrive in tile t (made): its item is made, or, when its unfinished item is of
  // a later generation, re-tagged to g and checked again. A tile may hold nodes of two generations
  // whose sources are far apart: an item of g + 1 beside a source of g + 1's nodes on one side may
  // run while a source of g's nodes on the other side has not (each item's work is near its own
  // sources), and in the phases' order the tile's item of g comes first. That item never runs early:
  // one of g + 1 waits until no item of g - 1 is unfinished (condition 2). Returns the generation it
  // had (kNone: none, or g).
  std::uint64_t arrive(Tile<D>& t, std::uint64_t g) {
    TileSchedule& s = schedule_[t.index];
    const std::uint64_t had = s.generation;
    // A running item takes only later generations' nodes (deferred); the rule excludes the rest
    // (conditions 2 and 3), and a list fed them would no longer match its runs.
    if (s.state == TileSchedule::State::running && had >= g)
      throw std::logic_error("space-rule fill: nodes of generation " + std::to_string(g) +
                             " arrived in a tile whose item of generation " + std::to_string(had) + " runs");
    if (had != TileSchedule::kNone && had <= g) return g;
    if (had != TileSchedule::kNone) {
      --unfinished_[had];
      --items_;
      ++s.version;  // its entries in ready lists and waiters are stale now
      s.state = TileSchedule::State::idle;
      s.generation = TileSchedule::kNone;
    }
    make_item(t, g);
    return had;
  }

  // Thread t's next item (its tile, then running), or null: the first in phase order of those its own
  // hand-overs made ready, which lie next to what it just expanded (its cache holds their lists and
  // the tree around them); when it has none, the first of the list whose first is earliest.
  Tile<D>* take(int t) {
    for (;;) {
      std::vector<Ready>* from = &ready_[static_cast<std::size_t>(t)];
      if (from->empty())
        for (std::vector<Ready>& other : ready_)
          if (!other.empty() && (from->empty() || other.front() < from->front())) from = &other;
      if (from->empty()) return nullptr;
      std::pop_heap(from->begin(), from->end(), std::greater<>());
      const Ready r = from->back();
      from->pop_back();
      TileSchedule& s = schedule_[r.tile];
      if (s.version != r.version) continue;  // re-tagged since (arrive)
      s.state = TileSchedule::State::running;
      return &tiles_[r.tile];
    }
  }

  // Tile t's item is done (its hand-over too); `next`: the generation of its next item, if its list
  // holds one (TileSchedule::kNone if not). The items it held back are checked again, after the next
  // item is made, so that it holds them back in turn where it must.
  void finish(Tile<D>& t, std::uint64_t next) {
    TileSchedule& s = schedule_[t.index];
    const std::uint64_t g = s.generation;
    --unfinished_[g];
    --items_;
    s.state = TileSchedule::State::idle;
    s.generation = TileSchedule::kNone;
    phase_of_[t.index] = kIdle;
    if (next != TileSchedule::kNone) make_item(t, next);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> waiters;
    waiters.swap(schedule_[t.index].waiters);
    for (const auto& [w, version] : waiters) recheck(w, version);
    while (least_ < unfinished_.size() && unfinished_[least_] == 0) {
      std::vector<std::pair<std::uint32_t, std::uint32_t>> parked;
      if (least_ < generation_waiters_.size()) parked.swap(generation_waiters_[least_]);
      ++least_;
      for (const auto& [w, version] : parked) recheck(w, version);
    }
  }

  // The generation of tile t's earliest unfinished item (TileSchedule::kNone: none).
  std::uint64_t generation(const Tile<D>& t) const { return schedule_[t.index].generation; }
  // The least generation with an unfinished item (past every generation when none is left).
  std::uint64_t least_unfinished() const { return least_; }
  // Whether no item is unfinished.
  bool idle() const { return items_ == 0; }
  // Items made ready since the last call (for waking that many threads).
  std::size_t take_readied() { return std::exchange(readied_, 0); }

 private:
  // Tile t has a new unfinished item of generation g: counted, then checked.
  void make_item(Tile<D>& t, std::uint64_t g) {
    schedule_[t.index].generation = g;
    phase_of_[t.index] = phase(t, g);
    if (unfinished_.size() <= g) unfinished_.resize(g + 1, 0);
    ++unfinished_[g];
    ++items_;
    check(t.index);
  }

  // The largest spacing of a level's nodes (tile_grid.hpp: w_L >= kTileSpacings r).
  double reach(std::int32_t level) const { return grid_.edge(level) / kTileSpacings<D>; }
  static double cell_gap(const Tile<D>& a, const Tile<D>& b) {
    double s = 0.0;
    for (int k = 0; k < D; ++k) {
      const double d = std::max({0.0, a.lo[k] - b.hi[k], b.lo[k] - a.hi[k]});
      s += d * d;
    }
    return std::sqrt(s);
  }

  // A parked item checked again, unless the entry is stale (the item was re-tagged since).
  void recheck(std::uint32_t tile, std::uint32_t version) {
    TileSchedule& s = schedule_[tile];
    if (s.version != version) return;
    s.state = TileSchedule::State::idle;
    check(tile);
  }
  // Parks the item of the tile of this index on its first blocker, or makes it ready.
  void check(std::uint32_t tile) {
    TileSchedule& s = schedule_[tile];
    const std::uint64_t g = s.generation;
    if (g >= 2 && least_ < g - 1) {  // 2: an earlier generation is unfinished
      if (generation_waiters_.size() <= least_) generation_waiters_.resize(least_ + 1);
      generation_waiters_[least_].push_back({tile, s.version});
      s.state = TileSchedule::State::parked;
      return;
    }
    // Parks on the blocker latest in the phases' order, which mostly finishes last: parking on the
    // first found would wake the item once for each of its blockers.
    const std::int64_t p = phase_of_[tile];
    std::int64_t latest = -1;
    std::uint32_t blocker = kNoTile;
    for (const TileSchedule::Near& n : s.near) {
      const std::int64_t q = phase_of_[n.tile];
      if (q == kIdle || q <= latest) continue;
      if ((n.touches && q < p) || (n.may_make && unpack(q).generation + 1 == g)) {  // 1, 3
        latest = q;
        blocker = n.tile;
      }
    }
    if (blocker != kNoTile) {
      schedule_[blocker].waiters.push_back({tile, s.version});
      s.state = TileSchedule::State::parked;
      return;
    }
    s.state = TileSchedule::State::ready;
    std::vector<Ready>& list = ready_[actor_];
    list.push_back({p, tile, s.version});
    std::push_heap(list.begin(), list.end(), std::greater<>());
    ++readied_;
  }

  static constexpr std::int64_t kIdle = kNoPhase;  // the phase of a tile with no unfinished item

  TileMap<D>& tiles_;
  const TileGrid<D>& grid_;
  // By tile: the phase of its unfinished item (packed), or kIdle, and its place in the schedule. Kept
  // apart from the tiles, in arrays by index: a check reads its neighbours' phases from one small
  // array, and a finish rechecks the items it held back through their schedules alone (a tile's own
  // memory lies anywhere on the heap, out of cache after an expansion).
  std::vector<std::int64_t> phase_of_;
  std::vector<TileSchedule> schedule_;
  std::int32_t least_level_ = TileGrid<D>::kMaxLevel, most_level_ = TileGrid<D>::kMinLevel;  // of made tiles
  std::vector<std::size_t> unfinished_;  // unfinished items by generation
  std::size_t items_ = 0;                // unfinished items in all
  std::uint64_t least_ = 0;              // the least generation with an unfinished item
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> generation_waiters_;  // (tile, version) parked until a generation is done
  struct Ready {  // a ready item: its phase, tile and the tile's version then
    std::int64_t phase;
    std::uint32_t tile, version;
    bool operator<(const Ready& o) const { return phase != o.phase ? phase < o.phase : tile < o.tile; }
    bool operator>(const Ready& o) const { return o < *this; }
  };
  std::vector<std::vector<Ready>> ready_;  // each thread's ready items: a heap, least first
  std::size_t actor_ = 0;                  // the thread whose calls these are (act_as)
  std::size_t readied_ = 0;
};

}  // namespace nodegen::fill_detail
