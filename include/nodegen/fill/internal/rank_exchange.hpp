#pragma once
// RankExchange: the fill shared by several processes (MPI ranks; FillOptions::exchange,
// docs/scale-out.md), the nodes the same as one process places.
//
// Ownership and halo: each process expands the tiles it owns (ownership.hpp: ranges of ownership
// blocks of about equal expected node count, block_weights) and keeps in its tree its own nodes and
// every node placed elsewhere that one of its tiles may read (the halo: Ownership::readers, for the
// levels open, those of every node any process has placed).
//
// Protocol: every process holds every boundary node (seed). Between phases, in the completion step
// (end_phase), the processes agree on failures, on the levels open (a node's readers depend on them),
// on the rows of the phase's nodes (a prefix sum in rank order: the merge order puts rank r's tiles
// after those of the lower ranks) and on the next phase (the smallest any process has waiting,
// agree_next_phase), and each sends its new nodes to their readers and its set-aside nodes to their
// tiles' owners. A process hands the nodes set aside for its tiles to them in rank order of the senders
// (its own in its place), which is the merge order, so every waiting list is the one-process list.
//
// Collectives: every process makes the same collective calls in the same order whatever happened on
// it; what may fail on one process alone runs between two agree() calls, so a failure anywhere ends
// every process with the same error.
//
// Works on the fill's parts (tile map, phase queue, hand-over, store slots, store, tree, round), by
// the completion step alone, while the team waits at the barrier.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/internal/first_failure.hpp"
#include "nodegen/fill/internal/hand_over.hpp"
#include "nodegen/fill/internal/interior_starts.hpp"
#include "nodegen/fill/internal/phase_queue.hpp"
#include "nodegen/fill/internal/point_list.hpp"
#include "nodegen/fill/internal/round_items.hpp"
#include "nodegen/fill/internal/store_slots.hpp"
#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/fill/ownership.hpp"
#include "nodegen/fill/phase_exchange.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/storage/store_concept.hpp"

namespace nodegen::fill_detail {

template <int D, class StoreT, class TreeT>
class RankExchange {
 public:
  // `exchange`: the processes filling together; null or a group of one: this process fills everything
  // and the exchange is inactive.
  RankExchange(PhaseExchange* exchange, const TileGrid<D>& grid, TileMap<D>& tiles, PhaseQueue<D>& phases,
               HandOver<D>& hand_over, StoreSlots<D>& slots, StoreT& store, TreeT& tree, const Round& round)
      : ex_(exchange && exchange->size() > 1 ? exchange : nullptr),
        rank_(ex_ ? ex_->rank() : 0),
        ranks_(ex_ ? ex_->size() : 1),
        grid_(grid),
        tiles_(tiles),
        phases_(phases),
        hand_over_(hand_over),
        slots_(slots),
        store_(store),
        tree_(tree),
        round_(round) {}

  bool active() const { return ex_ != nullptr; }
  // Whether this process owns the tile with this key.
  bool owns(const TileKey<D>& key) const { return own_.owner(key) == rank_; }

  // Seeds the tiles this process owns with the boundary nodes, puts those its tiles may read in its
  // tree (through `finger`), and writes an even share of their rows; returns the share (first row,
  // count). checked_h(t, p): the checked spacing at p on thread t; raw_h(t, p): the spacing's value.
  template <class BoundaryNodeT, class DomainT, class CheckedH, class RawH, class MakeStarts, class Finger>
  std::pair<std::size_t, std::size_t> seed(const std::vector<BoundaryNodeT>& boundary, std::size_t max_nodes,
                                           int threads, const DomainT& domain, CheckedH&& checked_h, RawH&& raw_h,
                                           MakeStarts&& make_starts, Finger& finger) {
    const std::size_t n = boundary.size();
    // Every process finds this alike; agreed all the same, so the error is known as agreed everywhere.
    if (n > max_nodes) ex_->agree(std::make_exception_ptr(StoreFull("the domain has " + std::to_string(n) + " boundary nodes")));
    std::vector<double> h(n);
    std::exception_ptr failure;
    try {
      parallel_for(n, threads, [&](int t, std::size_t i) { h[i] = checked_h(t, boundary[i].pos); });
    } catch (...) {
      failure = std::current_exception();
    }
    ex_->agree(failure);
    // The interior starts (interior_starts.hpp): every process finds all of them alike.
    std::vector<Start<D>> starts;
    try {
      std::int32_t finest = TileGrid<D>::kMaxLevel;
      for (double r : h) finest = std::min(finest, start_level<D>(r, grid_.edge(0)));
      starts = make_starts(finest);
    } catch (...) {
      failure = std::current_exception();
    }
    ex_->agree(failure);
    // The levels open so far: the boundary's and the starts' (every process computes the same).
    lmin_ = TileGrid<D>::kMaxLevel;
    lmax_ = TileGrid<D>::kMinLevel;
    for (double r : h) {
      lmin_ = std::min(lmin_, grid_.level_of(r));
      lmax_ = std::max(lmax_, grid_.level_of(r));
    }
    for (const Start<D>& start : starts) {
      lmin_ = std::min(lmin_, start.key.level);
      lmax_ = std::max(lmax_, start.key.level);
    }
    own_ = Ownership<D>(block_weights(boundary, threads, domain, raw_h), ranks_);
    boundary_first_ = n * static_cast<std::size_t>(rank_) / static_cast<std::size_t>(ranks_);
    boundary_local_ = n * static_cast<std::size_t>(rank_ + 1) / static_cast<std::size_t>(ranks_) - boundary_first_;
    // What may fail on this process alone (its store's or tree's room, memory) is agreed after.
    try {
      slots_.claim(store_, boundary_local_);
      boundary_pos_.reserve(n);
      in_tree_.assign(n, false);
      for (std::size_t i = 0; i < n; ++i) {
        const Vec<D>& p = boundary[i].pos;
        boundary_pos_.push_back(p);
        if (i >= boundary_first_ && i - boundary_first_ < boundary_local_)
          store_.set(i - boundary_first_, to_stored<D>(p));
        const TileKey<D> key = grid_.key_of(p, h[i]);
        const bool owned = owns(key);
        if (!owned) own_.readers(grid_, p, lmin_, lmax_, readers_);
        if (owned || std::find(readers_.begin(), readers_.end(), rank_) != readers_.end()) {
          tree_.insert_alone(p, finger);
          in_tree_[i] = true;
        }
        if (owned) phases_.enqueue(tiles_.at(key), {p, h[i]}, 0);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    ex_->agree(failure);
    row_base_ = n;
    seed_starts(starts, max_nodes, finger);
    return {boundary_first_, boundary_local_};
  }

  // The starts of the tiles this process owns are its first interior rows, after the lower ranks'
  // (the starts come in the merge order); every start one of its tiles may read joins its tree (later
  // readers get them from their owner, as the nodes of any phase: open_levels).
  template <class Finger>
  void seed_starts(const std::vector<Start<D>>& starts, std::size_t max_nodes, Finger& finger) {
    if (row_base_ + starts.size() > max_nodes)  // alike on every process
      ex_->agree(std::make_exception_ptr(StoreFull("the fill holds " + std::to_string(row_base_ + starts.size()) + " nodes")));
    std::size_t local = 0, before = starts.size();
    for (std::size_t i = 0; i < starts.size(); ++i)
      if (owns(starts[i].key)) {
        before = std::min(before, i);
        ++local;
      }
    std::exception_ptr failure;  // what may fail on this process alone is agreed after
    try {
      std::size_t slot = slots_.claim(store_, local);
      for (const Start<D>& start : starts) {
        const bool owned = owns(start.key);
        if (owned) {
          store_.set(slot++, to_stored<D>(start.pos));
          phases_.enqueue(tiles_.at(start.key), {start.pos, start.h}, 0);
        } else {
          own_.readers(grid_, start.pos, lmin_, lmax_, readers_);
        }
        if (owned || std::find(readers_.begin(), readers_.end(), rank_) != readers_.end())
          tree_.insert_alone(start.pos, finger);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    ex_->agree(failure);
    if (local) share_.runs.push_back({row_base_ + before, local});
    row_base_ += starts.size();
  }

  // The completion step's exchange after a phase (see the protocol above). claim(n): store slots for
  // this process's n new nodes; `largest` keeps the most nodes one tile placed.
  template <class Claim, class Finger>
  void end_phase(const FirstFailure& team, std::size_t max_nodes, std::size_t& largest, Claim&& claim, Finger& finger) {
    ex_->agree(team.failed() ? team.error() : nullptr);
    const std::int32_t old_min = lmin_, old_max = lmax_;
    widen_levels();
    // The phase's rows: after those of the lower ranks.
    const std::size_t local = placed_count();
    const auto [before, total] = ex_->scan(local);
    if (row_base_ + total > max_nodes)  // alike on every process, agreed as the boundary's count is
      ex_->agree(std::make_exception_ptr(StoreFull("the fill holds " + std::to_string(row_base_ + total) + " nodes")));
    if (local) share_.runs.push_back({row_base_ + before, local});
    row_base_ += total;

    // What might fail on this process alone runs before the exchange and is agreed after it.
    std::exception_ptr failure;
    std::vector<std::vector<double>> out(static_cast<std::size_t>(ranks_)), in;
    try {
      const std::size_t stored = slots_.count();  // the nodes of earlier phases, all copied by now
      std::size_t slot = claim(local);
      if (lmin_ < old_min || lmax_ > old_max) open_levels(old_min, old_max, stored, out, finger);
      for (std::uint32_t t : round_.tiles) send_placed(tiles_[t], out);
      for (std::uint32_t t : round_.tiles) {  // their store slots, tile by tile in the merge order
        Tile<D>& tile = tiles_[t];
        slots_.queue(tile.worker, tile.placed, slot, largest);
      }
    } catch (...) {
      failure = std::current_exception();
    }
    ex_->exchange(out, in);
    std::size_t bytes = 0;
    for (const auto& o : out) bytes += o.size() * sizeof(double);
    share_.bytes_sent += bytes;
    share_.nodes_sent += bytes / sizeof(double) / (D + 1);
    share_.largest_phase_bytes = std::max(share_.largest_phase_bytes, bytes);
    try {
      if (!failure) take_nodes(in, finger);
    } catch (...) {
      failure = std::current_exception();
    }
    ex_->agree(failure);
  }

  // The next phase, packed (phase_queue.hpp): the smallest any process has waiting (kNoPhase when none
  // has, or this one `failed`), and whether any process still has nodes to copy into its store.
  std::pair<std::int64_t, bool> agree_next_phase(bool failed) {
    std::int64_t next[2] = {failed ? kNoPhase : phases_.first(), slots_.any_due() ? 0 : 1};
    ex_->min(next);
    return {next[0], next[1] == 0};
  }

  // This process's rows in the whole: its boundary rows from `boundary_first` (nb of the
  // `boundary_total`), then its runs of interior rows; `nodes`: the nodes it holds.
  RowShare rows(std::size_t boundary_first, std::size_t nb, std::size_t boundary_total, std::size_t nodes) const {
    RowShare share;
    if (ex_) {
      share = share_;
      share.total_nodes = row_base_;
      share.runs.insert(share.runs.begin(), {boundary_first, nb});
    } else {
      share.total_nodes = nodes;
      share.runs = {{0, nodes}};
    }
    share.boundary_first = boundary_first;
    share.total_boundary = boundary_total;
    return share;
  }

 private:
  // The expected node count of every ownership block: (block edge / h)^D at the block's centre when it
  // lies in the domain, plus its boundary nodes. Each process samples every ranks_-th block and the sum
  // over the processes (one non-zero term per block, so exact) gives all of them the same weights.
  template <class BoundaryNodeT, class DomainT, class RawH>
  std::vector<double> block_weights(const std::vector<BoundaryNodeT>& boundary, int threads, const DomainT& domain,
                                    RawH& raw_h) {
    const std::uint64_t blocks = TileGrid<D>::block_count();
    std::vector<double> w(static_cast<std::size_t>(blocks), 0.0);
    const double e = grid_.edge(-kBlockBits<D>);
    const std::uint64_t mine = (blocks - static_cast<std::uint64_t>(rank_) + static_cast<std::uint64_t>(ranks_) - 1) /
                               static_cast<std::uint64_t>(ranks_);
    std::exception_ptr failure;
    try {
      parallel_for(static_cast<std::size_t>(mine), threads, [&](int t, std::size_t i) {
        const std::uint64_t b = static_cast<std::uint64_t>(rank_) + i * static_cast<std::uint64_t>(ranks_);
        const Vec<D> c = grid_.block_centre(b);
        if (!domain.contains(c)) return;
        const double r = raw_h(t, c);
        if (r > 0.0 && std::isfinite(r)) w[static_cast<std::size_t>(b)] = std::pow(e / r, D);
      });
    } catch (...) {
      failure = std::current_exception();
    }
    ex_->agree(failure);
    ex_->sum(w);
    for (const auto& b : boundary) w[static_cast<std::size_t>(grid_.block_of(b.pos))] += 1.0;
    return w;
  }

  // The levels open: the set-aside nodes of the phase may open new ones (agreed by a minimum).
  void widen_levels() {
    std::int64_t levels[2] = {lmin_, -static_cast<std::int64_t>(lmax_)};
    for (std::uint32_t t : round_.tiles)
      for (const SetAside<D>& n : tiles_[t].set_aside) {
        levels[0] = std::min<std::int64_t>(levels[0], n.key.level);
        levels[1] = std::min<std::int64_t>(levels[1], -static_cast<std::int64_t>(n.key.level));
      }
    ex_->min(levels);
    lmin_ = static_cast<std::int32_t>(levels[0]);
    lmax_ = static_cast<std::int32_t>(-levels[1]);
  }

  // The nodes this process's tiles placed in the phase.
  std::size_t placed_count() const {
    std::size_t n = 0;
    for (std::uint32_t t : round_.tiles) n += tiles_[t].placed.size();
    return n;
  }

  // A record of the exchange: a node's coordinates and its spacing when it is handed to its tile's
  // owner to wait there, 0 when it only joins the receiver's tree.
  static void push_record(std::vector<double>& to, const Vec<D>& p, double h) {
    for (int a = 0; a < D; ++a) to.push_back(p[a]);
    to.push_back(h);
  }

  // The tile's new nodes to the processes that may read them, and its set-aside nodes to the owners of
  // their tiles. The set-aside nodes are a subsequence of the placed ones, in the same order.
  void send_placed(const Tile<D>& tile, std::vector<std::vector<double>>& out) {
    std::size_t j = 0;
    for (const Vec<D>& c : tile.placed) {
      int owner = rank_;
      double h = 0.0;
      if (j < tile.set_aside.size() && tile.set_aside[j].node.pos == c) {
        owner = own_.owner(tile.set_aside[j].key);
        h = tile.set_aside[j].node.h;
        ++j;
      }
      own_.readers(grid_, c, lmin_, lmax_, readers_);
      for (int r : readers_)
        if (r != rank_ && r != owner) push_record(out[static_cast<std::size_t>(r)], c, 0.0);
      if (owner != rank_) push_record(out[static_cast<std::size_t>(owner)], c, h);
    }
  }

  // Levels [lmin_, lmax_] are now open where [old_min, old_max] were: this process's nodes of earlier
  // phases (store slots [boundary_local_, stored)) go to the processes that now may read them and did
  // not before, and the boundary nodes its own new readers may read join its tree.
  template <class Finger>
  void open_levels(std::int32_t old_min, std::int32_t old_max, std::size_t stored,
                   std::vector<std::vector<double>>& out, Finger& finger) {
    std::vector<int> before;
    auto newly = [&](const Vec<D>& p) {
      own_.readers(grid_, p, old_min, old_max, before);
      own_.readers(grid_, p, lmin_, lmax_, readers_);
      std::erase_if(readers_, [&](int r) { return std::find(before.begin(), before.end(), r) != before.end(); });
    };
    for (std::size_t i = boundary_local_; i < stored; ++i) {
      const Vec<D> p = to_vec<D>(store_.get(i));
      newly(p);
      for (int r : readers_)
        if (r != rank_) push_record(out[static_cast<std::size_t>(r)], p, 0.0);
    }
    for (std::size_t i = 0; i < boundary_pos_.size(); ++i) {
      if (in_tree_[i]) continue;
      newly(boundary_pos_[i]);
      if (std::find(readers_.begin(), readers_.end(), rank_) == readers_.end()) continue;
      tree_.insert_alone(boundary_pos_[i], finger);
      in_tree_[i] = true;
    }
  }

  // The nodes the processes sent, taken in rank order, this process's own set-aside nodes in its place.
  template <class Finger>
  void take_nodes(const std::vector<std::vector<double>>& in, Finger& finger) {
    for (int src = 0; src < ranks_; ++src) {
      if (src == rank_) {
        hand_over_.hand_over_all([this](const TileKey<D>& key) { return owns(key); });
        continue;
      }
      const std::vector<double>& from = in[static_cast<std::size_t>(src)];
      for (std::size_t k = 0; k + D < from.size(); k += D + 1) {
        Vec<D> p;
        for (int a = 0; a < D; ++a) p[a] = from[k + static_cast<std::size_t>(a)];
        const double h = from[k + D];
        tree_.insert_alone(p, finger);
        ++share_.nodes_received;
        if (h > 0.0) phases_.enqueue(tiles_.at(grid_.key_of(p, h)), {p, h}, round_.generation + 1);
      }
    }
  }

  PhaseExchange* ex_;  // null when this process fills everything
  int rank_, ranks_;
  Ownership<D> own_;   // which process owns which tiles (one process: all of them)
  std::int32_t lmin_ = 0, lmax_ = 0;  // the levels open: of every node any process has placed
  std::vector<Vec<D>> boundary_pos_;  // every boundary node...
  std::vector<bool> in_tree_;         // ... and whether it is in this process's tree
  std::size_t boundary_first_ = 0, boundary_local_ = 0;  // this process's boundary rows
  std::vector<int> readers_;          // scratch
  std::size_t row_base_ = 0;          // rows of the whole so far
  RowShare share_;                    // this process's runs of interior rows and exchange figures
  const TileGrid<D>& grid_;
  TileMap<D>& tiles_;
  PhaseQueue<D>& phases_;
  HandOver<D>& hand_over_;
  StoreSlots<D>& slots_;
  StoreT& store_;
  TreeT& tree_;
  const Round& round_;
};

}  // namespace nodegen::fill_detail
