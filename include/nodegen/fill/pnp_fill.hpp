#pragma once
// The PNP advancing-front fill (Slak & Kosec 2019; Medusa's GeneralFill is the reference), parallel
// and deterministic: the nodes are a function of the domain, the spacing and the seed alone, the same
// bytes at every thread count and on every backend. Templated on the storage backend.
//
// The node rule is PNP's (internal/node_rule.hpp): node p with spacing r = h(p) proposes candidates on
// the circle/sphere of radius r around it, randomly rotated; a candidate is accepted when it lies
// inside the domain and no node, old or just accepted, lies within zeta r of it. Accepted candidates
// are expanded in turn.
//
// Order (docs/parallel-fill.md has the argument): the work is ordered by space, not by time. Every
// node belongs to a tile (tile_grid.hpp: tiles sized by the node's spacing, in levels and colours;
// internal/tile_map.hpp). The fill runs in phases (internal/phase_queue.hpp); a phase takes the tiles
// of one (generation, level, colour) that have nodes of that generation waiting and expands those
// nodes, tiles in parallel: a tile expands them first in, first out, keeps the accepted candidates that
// are its own (same tile, same level) as waiting nodes of the next generation, and sets aside the
// others. Tiles of one phase are far enough apart that none can see what another writes, so what a tile
// does depends only on what earlier phases left. The set-aside nodes go to their tiles and the placed
// nodes get their store slots tile by tile in the merge order of the tiles' keys (tile_grid.hpp:
// ownership block, then Z-order; internal/hand_over.hpp, internal/store_slots.hpp). Phases run in
// ascending (generation, level, colour) order until no tile has a waiting node. Several processes (MPI
// ranks) can share the fill: each expands the tiles it owns and they exchange nodes between phases
// (the section "Several processes" below).
//
// Rounds: one thread team runs every phase, one round a phase, and meets at a barrier between rounds
// (parallel/phase_barrier.hpp), whose completion step (one thread, the others waiting) does the serial
// part. A round's items are the phase's tiles and the store copies of the previous phase's nodes
// (internal/round_items.hpp). PnpFill below orchestrates these parts; each part's header says what it
// keeps and why.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "nodegen/fill/boundary_rows.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/internal/candidate_test.hpp"
#include "nodegen/fill/internal/fill_output.hpp"
#include "nodegen/fill/internal/fill_tree.hpp"
#include "nodegen/fill/internal/first_failure.hpp"
#include "nodegen/fill/internal/hand_over.hpp"
#include "nodegen/fill/internal/heap_trim.hpp"
#include "nodegen/fill/internal/node_rule.hpp"
#include "nodegen/fill/internal/phase_queue.hpp"
#include "nodegen/fill/internal/phase_times.hpp"
#include "nodegen/fill/internal/point_list.hpp"
#include "nodegen/fill/internal/round_items.hpp"
#include "nodegen/fill/internal/store_slots.hpp"
#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/fill/ownership.hpp"
#include "nodegen/fill/phase_exchange.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/geometry/domain_file.hpp"
#include "nodegen/geometry/spacing.hpp"
#include "nodegen/geometry/spacing_fault.hpp"
#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/phase_barrier.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {

// The fill needed more nodes than FillOptions::reserve_nodes, still below the cap: the same fill with
// more room gives the same nodes (they depend on the domain, spacing and seed alone).
class ReservationFull : public StoreFull {
 public:
  explicit ReservationFull(std::size_t reserved)
      : StoreFull("the fill needs room for more than " + std::to_string(reserved) + " nodes"), reserved_(reserved) {}
  std::size_t reserved() const { return reserved_; }

 private:
  std::size_t reserved_;
};

namespace fill_detail {

// The store options of a backend family, from the fill options (only the VM store has any).
template <class Options>
Options store_options(const FillOptions& options) {
  Options o{};
  if constexpr (std::is_same_v<Options, VmStoreOptions>) {
    o.prefault = options.prefault;
    o.huge_pages = options.huge_pages;
  }
  return o;
}

template <int D, template <class> class Store, class DomainT, class SpacingT>
class PnpFill {
 public:
  using Point = StoredPoint<D>;
  using TreeOf = FillTree<D, Store>;
  using Tree = typename TreeOf::Tree;
  using Rule = NodeRule<D, Tree, DomainT>;

  PnpFill(const DomainT& domain, const SpacingT& spacing, const FillParams& params, const FillOptions& options)
      : domain_(domain),
        spacing_(spacing),
        params_(params),
        options_(options),
        threads_(std::max(1, options.threads)),
        rule_(domain, params.candidates, params.seed, options.crowd),
        min_spacing_(least_spacing(domain.bounding_box())),
        grid_(domain.bounding_box().lo, domain.bounding_box().size().maxCoeff()),
        constant_spacing_(is_constant(spacing)),
        times_(options.phase_log),
        ex_(options.exchange && options.exchange->size() > 1 ? options.exchange : nullptr),
        rank_(ex_ ? ex_->rank() : 0),
        ranks_(ex_ ? ex_->size() : 1),
        reserved_(options.reserve_nodes ? std::min(options.reserve_nodes, params.max_nodes) : params.max_nodes),
        store_(reserved_, store_options<typename Store<Point>::Options>(options)),
        tree_(reserved_, domain.bounding_box(), store_options<typename Store<Point>::Options>(options)),
        tiles_(grid_),
        items_(threads_),
        slots_(threads_),
        hand_over_(threads_, tiles_, phases_, round_) {}

  template <class BoundaryNodeT>
  Discretization<D> run(const std::vector<BoundaryNodeT>& boundary) {
    return run_impl<BoundaryNodeT>(boundary, nullptr);
  }

  // The same for a boundary the fill may consume: once its nodes are seeded (their positions are then
  // in the store), it is cut down to the normals and ids the output needs (boundary_rows.hpp).
  template <class BoundaryNodeT>
  Discretization<D> run(std::vector<BoundaryNodeT>&& boundary) {
    return run_impl(boundary, &boundary);
  }

 private:
  // Per-thread scratch, reused by every expansion of that thread: the node rule's, and an evaluator of
  // the spacing. On cache lines of its own: the vectors' headers are written by every expansion. Made by
  // the thread that uses it (run_impl), so what it allocates comes from that thread's heap too: a
  // spacing expression's evaluator writes its variables and muparser's stack at every h(x), and
  // evaluators one thread made one after the other shared cache lines (bench/RESULTS.md, Fill).
  struct alignas(kFalseSharingBytes) Scratch : Rule::Scratch {
    explicit Scratch(typename SpacingT::Evaluator e) : h(std::move(e)) {}
    typename SpacingT::Evaluator h;
  };

  static bool is_constant(const SpacingT& spacing) {
    if constexpr (requires { spacing.is_constant(); }) return spacing.is_constant();
    else return false;
  }
  Scratch& scratch(int t) { return *scratch_[static_cast<std::size_t>(t)]; }

  // `owned`: &boundary when the fill may consume it, else null.
  template <class BoundaryNodeT>
  Discretization<D> run_impl(const std::vector<BoundaryNodeT>& boundary, std::vector<BoundaryNodeT>* owned) {
    const auto start = std::chrono::steady_clock::now();
    std::optional<BoundaryRows<D>> rows;
    // Each thread makes its own scratch, so the memory it writes comes from its own heap (Scratch).
    scratch_.clear();
    scratch_.resize(static_cast<std::size_t>(threads_));
    run_team(threads_, [&](int t, int) {
      scratch_[static_cast<std::size_t>(t)] = std::make_unique<Scratch>(spacing_.evaluator());
    });
    try {
      if (ex_) seed_boundary_ranks(boundary);
      else seed_boundary(boundary);
      if (owned) rows = take_boundary_rows<D>(std::move(*owned));  // `boundary` is empty from here on
      run_phases();
    } catch (const StoreFull& e) {
      // Every process has the same reservation, so under several all see this alike (a failure on one
      // reaches the others as a StoreFull, mpi/agreement.hpp).
      if (reserved_ < params_.max_nodes) throw ReservationFull(reserved_);
      throw StoreFull("node cap of " + std::to_string(params_.max_nodes) +
                      " nodes reached before the domain was full (raise max_nodes / --max-nodes, or check "
                      "that the spacing is not far smaller than intended) [" + e.what() + "]");
    }
    scratch_.clear();
    Discretization<D> out = rows ? collect(std::move(*rows), rows->size()) : collect(boundary, boundary.size());
    out.phases = stats_.phases;
    out.tile_runs = stats_.tile_runs;
    out.largest_tile_run = stats_.largest_run;
    out.early_hand_overs = stats_.early_hand_overs;
    out.fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

  // The boundary nodes are the store's first nodes, in the order the geometry produced them, and the
  // first waiting nodes of their tiles.
  template <class BoundaryNodeT>
  void seed_boundary(const std::vector<BoundaryNodeT>& boundary) {
    if (boundary.size() > params_.max_nodes)
      throw StoreFull("the domain has " + std::to_string(boundary.size()) + " boundary nodes");
    const std::size_t n = boundary.size();
    if (n == 0) return;
    const std::size_t first = slots_.claim(store_, n);
    boundary_local_ = n;
    Scratch& s = scratch(0);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec<D>& p = boundary[i].pos;
      store_.set(first + i, to_stored<D>(p));
      tree_.insert_alone(p, s.finger);
      const double r = spacing_at(p, s);
      phases_.enqueue(tiles_.at(grid_.key_of(p, r)), {p, r}, 0);
    }
    report_progress(n);
  }
  // The same with several processes: every process holds every boundary node: it seeds the tiles it
  // owns with them, puts those its tiles may read in its tree, and writes an even share of their rows.
  template <class BoundaryNodeT>
  void seed_boundary_ranks(const std::vector<BoundaryNodeT>& boundary) {
    const std::size_t n = boundary.size();
    if (n > params_.max_nodes) throw StoreFull("the domain has " + std::to_string(n) + " boundary nodes");
    std::vector<double> h(n);
    std::exception_ptr failure;
    try {
      parallel_for(n, threads_, [&](int t, std::size_t i) { h[i] = spacing_at(boundary[i].pos, scratch(t)); });
    } catch (...) {
      failure = std::current_exception();
    }
    ex_->agree(failure);
    // The levels open so far: the boundary's (every process computes the same).
    lmin_ = TileGrid<D>::kMaxLevel;
    lmax_ = TileGrid<D>::kMinLevel;
    for (double r : h) {
      lmin_ = std::min(lmin_, grid_.level_of(r));
      lmax_ = std::max(lmax_, grid_.level_of(r));
    }
    own_ = Ownership<D>(block_weights(boundary), ranks_);
    boundary_first_ = n * static_cast<std::size_t>(rank_) / static_cast<std::size_t>(ranks_);
    boundary_local_ = n * static_cast<std::size_t>(rank_ + 1) / static_cast<std::size_t>(ranks_) - boundary_first_;
    slots_.claim(store_, boundary_local_);
    boundary_pos_.reserve(n);
    in_tree_.assign(n, false);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec<D>& p = boundary[i].pos;
      boundary_pos_.push_back(p);
      if (i >= boundary_first_ && i - boundary_first_ < boundary_local_) store_.set(i - boundary_first_, to_stored<D>(p));
      const TileKey<D> key = grid_.key_of(p, h[i]);
      const bool owned = owns(key);
      if (!owned) own_.readers(grid_, p, lmin_, lmax_, readers_);
      if (owned || std::find(readers_.begin(), readers_.end(), rank_) != readers_.end()) {
        tree_.insert_alone(p, scratch(0).finger);
        in_tree_[i] = true;
      }
      if (owned) phases_.enqueue(tiles_.at(key), {p, h[i]}, 0);
    }
    row_base_ = n;
    report_progress(boundary_local_);
  }

  // Phases in ascending (generation, level, colour) until no tile has a waiting node.
  //
  // A round: each thread takes the tiles of its share (its run, those with the most nodes waiting
  // first), then the other shares' next tiles, then hands its run over (hand_over_run; the first thread
  // there also prepares the next round), then takes the copies of the tiles its run handed over in the
  // previous phase into their store slots, then the others' copies. Then the team meets at the barrier,
  // whose completion step (end_phase) does what that left: hand-over, slots, the next phase. The barrier
  // orders every write of a round before every read of the next (parallel/phase_barrier.hpp: the
  // completion happens after every arrival and before any thread returns from the wait). A thread that
  // fails still arrives, so nobody waits for it; the completion step then ends the fill.
  void run_phases() {
    start_next_phase();
    PhaseBarrier sync(threads_);
    run_team(threads_, [&](int t, int) {
      Scratch& s = scratch(t);
      sync.meet();  // the members start at different times
      while (!done_) {
        try {
          // Its own run of the tiles, then what is left of the others'; the hand-over of its run's
          // tiles that are done; then the copies the same way; then the rest of the hand-over.
          for (int v = 0; v < 2 * threads_ && !failure_.failed(); ++v) {
            if (v == threads_) hand_over_run(t, false);
            const int owner = (t + v) % threads_;
            const auto share = static_cast<std::size_t>(v / threads_ * threads_ + owner);
            items_.take(share, [this] { return failure_.failed(); }, [&](std::size_t i, std::uint32_t item) {
              const auto start = times_.item_start();
              if (item < round_.tiles.size()) {
                Tile<D>& tile = tiles_[round_.tiles[item]];
                tile.worker = t;
                expand_tile(tile, round_.generation, s);
                tile.expanded_round.store(round_.number, std::memory_order_release);  // its run's thread may hand it over
              } else {
                slots_.write(store_, static_cast<std::size_t>(owner), item - round_.tiles.size());
              }
              times_.item(i, start);
            });
          }
          hand_over_run(t, sync.spins());
          trim_.trim_if_due(times_);
        } catch (...) {
          failure_.fail(std::current_exception());
        }
        sync.arrive_and_wait([this]() noexcept { end_phase(); });
      }
    });
    failure_.rethrow();
  }

  // Expands the tile's waiting nodes of `generation` (the front of its list); the nodes of its own
  // that they place wait for the next generation's phase, the others are set aside.
  void expand_tile(Tile<D>& tile, std::uint64_t generation, Scratch& s) {
    if (tile.waiting.empty() || tile.front_generation != generation) return;
    const std::size_t due = tile.front_count;
    TileKey<D> last_key{};  // the nodes a tile sets aside mostly go to the same neighbour
    std::uint32_t last_tile = kNoTile;
    for (std::size_t q = 0; q < due; ++q) {
      const Waiting<D> node = tile.waiting[q];  // a copy: the pushes below may move the vector
      if (!rule_.propose(node.pos, node.h, *tree_, s)) continue;
      for (const Vec<D>& c : s.accepted) {
        tree_->insert(c, s.finger);  // the tree is what the other tiles see
        tile.placed.push_back(c);
        const Waiting<D> child{c, constant_spacing_ ? node.h : spacing_at(c, s)};
        const bool same_level = constant_spacing_ || grid_.level_of(child.h) == tile.key.level;
        if (same_level && (c.array() >= tile.lo.array()).all() && (c.array() < tile.hi.array()).all())
          tile.waiting.push_back(child);
        else {
          const TileKey<D> key = grid_.key_of(c, child.h);
          if (last_tile == kNoTile || !(key == last_key)) {
            last_key = key;
            last_tile = tiles_.find(key);
          }
          tile.set_aside.push_back({child, key, last_tile});
        }
      }
    }
    tile.waiting.erase(tile.waiting.begin(), tile.waiting.begin() + static_cast<std::ptrdiff_t>(due));
    // A list that has shrunk to a quarter of its capacity gives the rest back: in 3D a tile holds a
    // whole sheet of the front for a few phases and a few dozen nodes after, and the capacity kept from
    // those sheets would stay with every tile the front has crossed.
    if (tile.waiting.capacity() > 4 * tile.waiting.size() + 16) tile.waiting.shrink_to_fit();
    tile.front_generation = generation + 1;  // what is left (if anything) is the next generation
    tile.front_count = tile.waiting.size();
  }

  // Run t's hand-over during the round (internal/hand_over.hpp); the first thread there also plans
  // the next phase while the others finish their tiles.
  void hand_over_run(int t, bool spin) {
    if (ex_ || hand_over_.handed(t)) return;
    const auto start = std::chrono::steady_clock::now();
    if (!planning_.exchange(true, std::memory_order_acquire) && !plan_.ready && !failure_.failed()) {
      plan_next_phase(false);
      times_.add_planning(start);  // within the run's seconds below; the log keeps them apart
    }
    hand_over_.hand_over_expanded(t, spin, start, failure_);
    if (times_.on()) hand_over_.run(t).seconds += PhaseTimes::seconds_since(start);
  }

  // The next phase's tiles, sorted and cut into the next round's shares, once the phase queue's first
  // phase can no longer change (PhaseQueue::take_first): by the first thread out of tiles (planning_),
  // whose plan the completion step reads after the barrier, or by the completion step when that one
  // could not (`all_handed`). The completion step adds this phase's copies to the cut.
  void plan_next_phase(bool all_handed) {
    if (!phases_.take_first(round_.generation, all_handed, plan_.generation, plan_.active)) return;
    tiles_.sort_merge_order(plan_.active);
    cut_tiles(plan_.active, plan_.cut);
    plan_.ready = true;
  }
  void cut_tiles(const std::vector<std::uint32_t>& active, Cut& cut) {
    items_.cut_tiles(active, [this](std::uint32_t t) { return tiles_[t].front_count; }, cut);
  }

  // The barrier's completion step (one thread; the others wait).
  void end_phase() noexcept {
    const auto start = PhaseTimes::Clock::now();
    try {
      tree_.reuse_retired(slots_.count());
      slots_.clear_written();
      if (ex_) {
        end_phase_ranks();
        times_.end_phase_alone(start);
        return;
      }
      // What the runs' hand-overs during the round left, then the nodes' store slots.
      if (!failure_.failed()) {
        hand_over_.hand_over_rest();
        hand_over_.finish();
        give_slots();
      }
      start_next_phase();  // timed with the rest: picking and sorting the next phase's tiles is serial too
      if (times_.on()) times_.end_phase(start, hand_over_.take_seconds());
    } catch (...) {
      failure_.fail(std::current_exception());
      slots_.drop();
      hand_over_.drop_copies();
      round_.tiles.clear();
      items_.clear();
      done_ = true;
    }
  }
  // Each run's queued nodes get their store slots, after the runs before it (one process).
  void give_slots() {
    std::size_t slot = claim_slots(hand_over_.placed());
    for (int t = 0; t < threads_; ++t) {
      Run<D>& run = hand_over_.run(t);
      slots_.give(static_cast<std::size_t>(t), run.copies, slot);
      slot += run.placed;
      stats_.largest_run = std::max(stats_.largest_run, run.largest);
      stats_.early_hand_overs += run.early;
      run.placed = run.largest = run.early = 0;
    }
  }
  std::size_t claim_slots(std::size_t n) {
    const std::size_t slot = slots_.claim(store_, n);
    report_progress(n);
    return slot;
  }

  // Takes the next phase (planned during the round, or now) as the next round's tiles; the fill is
  // done when a round would have nothing to do (no copies left and no phase), or a thread failed.
  void start_next_phase() {
    if (ex_) return agree_next_phase();
    round_.tiles.clear();
    const bool failed = failure_.failed();
    // Every tile is handed over by now, so the next phase is known if the round did not prepare it.
    if (!failed && !plan_.ready) plan_next_phase(/*all_handed=*/true);
    if (std::exchange(plan_.ready, false) && !failed) {
      round_.generation = plan_.generation;
      round_.tiles.swap(plan_.active);
      count_phase();
      slots_.cut_copies(plan_.cut);
      begin_round(plan_.cut);
    } else {
      begin_round();  // no phase: the last copies, or none when a thread failed
    }
    done_ = items_.empty();
  }
  // The same with several processes: the smallest any process has waiting; the fill ends when no
  // process has a phase nor nodes still to copy into its store.
  void agree_next_phase() {
    std::int64_t agreed[2] = {failure_.failed() ? kNoPhase : phases_.first(), slots_.any_due() ? 0 : 1};
    ex_->min(agreed);
    const std::int64_t next = agreed[0];
    const bool copies_left = agreed[1] == 0;
    round_.tiles.clear();
    if (next != kNoPhase) {
      const Phase phase = unpack(next);
      round_.generation = phase.generation;
      phases_.take(phase, round_.tiles);
      count_phase();
    }
    begin_round();
    done_ = next == kNoPhase && !copies_left;
  }
  void count_phase() {
    ++stats_.phases;
    stats_.tile_runs += round_.tiles.size();
  }

  // Sorts the round's tiles into the merge order and hands out the round's items.
  void begin_round() {
    tiles_.sort_merge_order(round_.tiles);
    if (failure_.failed()) {
      slots_.drop();
      hand_over_.drop_copies();
    }
    cut_tiles(round_.tiles, cut_);
    slots_.cut_copies(cut_);
    begin_round(cut_);
  }
  // The same for tiles already sorted and cut (`cut`, which is left empty).
  void begin_round(Cut& cut) {
    ++round_.number;
    planning_.store(false, std::memory_order_relaxed);
    items_.begin(cut);
    hand_over_.begin(cut.runs);
    trim_.note_round(round_.generation, cut.waiting);
    times_.begin_round(items_.size());
  }

  void report_progress(std::size_t n) {
    if (options_.progress) options_.progress->fetch_add(n, std::memory_order_relaxed);
  }

  // h at p, checked as the loader checks its samples (spacing.hpp's limits): a fault between them (a
  // spot of h = 1e-300 ran into the k-d tree's depth limit) is the spacing's error, with the point.
  double spacing_at(const Vec<D>& p, Scratch& s) const { return checked_spacing<D>(p, s.h(p), min_spacing_); }

  // ---- Several processes: the domain filled together (FillOptions::exchange; docs/scale-out.md) ----
  //
  // Each process expands the tiles it owns (ownership.hpp) and keeps in its tree its own nodes and every
  // node placed elsewhere that one of its tiles may read (the halo). Between phases, in the completion
  // step, the processes agree on failures, on the levels open (a node's readers depend on them), on the
  // rows of the phase's nodes (a prefix sum in rank order: the merge order puts rank r's tiles after
  // those of the lower ranks) and on the next phase (the smallest any process has waiting), and each
  // sends its new nodes to their readers and its set-aside nodes to their tiles' owners. A process
  // hands the nodes set aside for its tiles to them in rank order of the senders (its own in its
  // place), which is the merge order, so every waiting list is the one-process list.

  // Whether this process owns the tile with this key.
  bool owns(const TileKey<D>& key) const { return own_.owner(key) == rank_; }

  // The completion step with several processes (end_phase's, when ex_ is set). Every process makes the
  // same collective calls in the same order whatever happened on it; a failure anywhere is agreed at
  // the next agree() and ends every process with the same error.
  void end_phase_ranks() {
    ex_->agree(failure_.failed() ? failure_.error() : nullptr);
    const std::int32_t old_min = lmin_, old_max = lmax_;
    widen_levels();
    // The phase's rows: after those of the lower ranks.
    const std::size_t local = placed_count();
    const auto [before, total] = ex_->scan(local);
    if (row_base_ + total > params_.max_nodes)
      throw StoreFull("the fill holds " + std::to_string(row_base_ + total) + " nodes");
    if (local) share_.runs.push_back({row_base_ + before, local});
    row_base_ += total;

    // What might fail on this process alone runs before the exchange and is agreed after it.
    std::exception_ptr failure;
    std::vector<std::vector<double>> out(static_cast<std::size_t>(ranks_)), in;
    try {
      const std::size_t stored = slots_.count();  // the nodes of earlier phases, all copied by now
      std::size_t slot = claim_slots(local);
      if (lmin_ < old_min || lmax_ > old_max) open_levels(old_min, old_max, stored, out);
      for (std::uint32_t t : round_.tiles) send_placed(tiles_[t], out);
      for (std::uint32_t t : round_.tiles) {  // their store slots, tile by tile in the merge order
        Tile<D>& tile = tiles_[t];
        slots_.queue(tile.worker, tile.placed, slot, stats_.largest_run);
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
      if (!failure) take_nodes(in);
    } catch (...) {
      failure = std::current_exception();
    }
    ex_->agree(failure);
    agree_next_phase();
  }

  // This process's rows in the whole: its boundary rows (of the `boundary_total`), then its runs of
  // interior rows; `nodes`: the nodes it holds.
  RowShare row_share(std::size_t boundary_total, std::size_t nodes) const {
    RowShare share;
    if (ex_) {
      share = share_;
      share.total_nodes = row_base_;
      share.runs.insert(share.runs.begin(), {boundary_first_, boundary_local_});
    } else {
      share.total_nodes = nodes;
      share.runs = {{0, nodes}};
    }
    share.boundary_first = boundary_first_;
    share.total_boundary = boundary_total;
    return share;
  }

  // The expected node count of every ownership block: (block edge / h)^D at the block's centre when it
  // lies in the domain, plus its boundary nodes. Each process samples every ranks_-th block and the sum
  // over the processes (one non-zero term per block, so exact) gives all of them the same weights.
  template <class BoundaryNodeT>
  std::vector<double> block_weights(const std::vector<BoundaryNodeT>& boundary) {
    const std::uint64_t blocks = TileGrid<D>::block_count();
    std::vector<double> w(static_cast<std::size_t>(blocks), 0.0);
    const double e = grid_.edge(-kBlockBits<D>);
    const std::uint64_t mine = (blocks - static_cast<std::uint64_t>(rank_) + static_cast<std::uint64_t>(ranks_) - 1) /
                               static_cast<std::uint64_t>(ranks_);
    std::exception_ptr failure;
    try {
      parallel_for(static_cast<std::size_t>(mine), threads_, [&](int t, std::size_t i) {
        const std::uint64_t b = static_cast<std::uint64_t>(rank_) + i * static_cast<std::uint64_t>(ranks_);
        const Vec<D> c = grid_.block_centre(b);
        if (!domain_.contains(c)) return;
        const double r = scratch(t).h(c);
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
  void open_levels(std::int32_t old_min, std::int32_t old_max, std::size_t stored, std::vector<std::vector<double>>& out) {
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
      tree_.insert_alone(boundary_pos_[i], scratch(0).finger);
      in_tree_[i] = true;
    }
  }

  // The nodes the processes sent, taken in rank order, this process's own set-aside nodes in its place.
  void take_nodes(const std::vector<std::vector<double>>& in) {
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
        tree_.insert_alone(p, scratch(0).finger);
        ++share_.nodes_received;
        if (h > 0.0) phases_.enqueue(tiles_.at(grid_.key_of(p, h)), {p, h}, round_.generation + 1);
      }
    }
  }

  // Frees the tree and the tiles, then copies the store into the output (internal/fill_output.hpp),
  // with the boundary's rows from `boundary` (the caller's nodes or the rows kept of them) and this
  // process's rows in the whole; `boundary_total`: the boundary nodes of the whole domain.
  template <class Boundary>
  Discretization<D> collect(Boundary&& boundary, std::size_t boundary_total) {
    tree_.release();
    tiles_.release();
    const std::size_t n = slots_.count();
    Discretization<D> out = copy_out<D, Store>(store_, n, boundary_local_, boundary_first_, threads_);
    out.share = row_share(boundary_total, n);
    write_boundary_rows<D>(out, std::forward<Boundary>(boundary), boundary_first_, boundary_local_);
    return out;
  }

  const DomainT& domain_;
  const SpacingT& spacing_;
  FillParams params_;
  FillOptions options_;
  int threads_;
  Rule rule_;           // the node rule: candidates, neighbours, selection
  double min_spacing_;  // the least h the fill resolves here (spacing.hpp: least_spacing)
  TileGrid<D> grid_;
  bool constant_spacing_;  // then every node's h is its parent's, no evaluation needed
  PhaseTimes times_;       // the phase log (options_.phase_log)
  PhaseExchange* ex_;      // the processes filling together; null when this one fills everything
  int rank_, ranks_;
  Ownership<D> own_;       // which process owns which tiles (one process: all of them)
  std::int32_t lmin_ = 0, lmax_ = 0;  // the levels open: of every node any process has placed
  std::vector<Vec<D>> boundary_pos_;  // with several processes: every boundary node...
  std::vector<bool> in_tree_;         // ... and whether it is in this process's tree
  std::vector<int> readers_;          // scratch of the completion step
  std::size_t row_base_ = 0;          // rows of the whole so far
  RowShare share_;                    // this process's runs of interior rows and exchange figures
  std::size_t boundary_first_ = 0, boundary_local_ = 0;  // this process's boundary rows
  std::size_t reserved_;  // nodes the store and tree have room for (FillOptions::reserve_nodes)
  Store<Point> store_;
  TreeOf tree_;
  std::vector<std::unique_ptr<Scratch>> scratch_;  // one per thread
  TileMap<D> tiles_;
  PhaseQueue<D> phases_;
  // The current round (written by the barrier's completion step, read by the team after the barrier).
  Round round_;
  RoundItems items_;
  StoreSlots<D> slots_;
  HandOver<D> hand_over_;
  HeapTrim trim_;
  struct {
    std::size_t phases = 0, tile_runs = 0, largest_run = 0;
    std::size_t early_hand_overs = 0;  // tiles the runs' threads handed over during the round
  } stats_;
  Cut cut_;  // scratch of begin_round
  // The next phase, prepared during the round (plan_next_phase) for the completion step to start.
  struct {
    bool ready = false;
    std::uint64_t generation = 0;
    std::vector<std::uint32_t> active;  // its tiles, in the merge order
    Cut cut;
  } plan_;
  alignas(kFalseSharingBytes) std::atomic<bool> planning_{false};  // taken by the first thread out of tiles
  bool done_ = false;
  FirstFailure failure_;
};

}  // namespace fill_detail

// Fills `domain` (anything with contains(Vec<D>) and bounding_box()) with nodes at spacing h, starting
// from `boundary` (elements with pos, normal, boundary_id). The nodes depend on the seed alone, not on
// the thread count or the backend.
// Throws StoreFull when params.max_nodes would be exceeded.
template <int D, template <class> class Store, class DomainT, class SpacingT, class BoundaryNodeT>
Discretization<D> pnp_fill(const DomainT& domain, const SpacingT& spacing, const std::vector<BoundaryNodeT>& boundary,
                           const FillParams& params, const FillOptions& options) {
  fill_detail::PnpFill<D, Store, DomainT, SpacingT> fill(domain, spacing, params, options);
  return fill.run(boundary);
}

// The same, consuming `boundary`: after seeding, only the normals and ids the output needs are kept
// for the rest of the fill (fill_domain passes the geometry's boundary this way).
template <int D, template <class> class Store, class DomainT, class SpacingT, class BoundaryNodeT>
Discretization<D> pnp_fill(const DomainT& domain, const SpacingT& spacing, std::vector<BoundaryNodeT>&& boundary,
                           const FillParams& params, const FillOptions& options) {
  fill_detail::PnpFill<D, Store, DomainT, SpacingT> fill(domain, spacing, params, options);
  return fill.run(std::move(boundary));
}

}  // namespace nodegen
