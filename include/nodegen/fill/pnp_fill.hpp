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
// Fronts start at the boundary nodes and at interior starts (internal/interior_starts.hpp: one per
// cell of many spacings, by a rule of the seed and the cell), so every region fills at once; they are
// generation 0 (internal/generation_zero.hpp).
//
// Order (docs/parallel-fill.md has the argument): the work is ordered by space, not by time. Every node
// belongs to a tile (tile_grid.hpp: tiles sized by the node's spacing, in levels and colours;
// internal/tile_map.hpp). The fill runs in phases (internal/phase_queue.hpp); a phase takes the tiles
// of one (generation, level, colour) that have nodes of that generation waiting and expands those
// nodes, tiles in parallel: a tile expands them first in, first out, keeps the accepted candidates that
// are its own (same tile, same level) as waiting nodes of the next generation, and sets aside the
// others (internal/tile_expansion.hpp). Tiles of one phase are far enough apart that none can see what
// another writes, so what a tile does depends only on what earlier phases left. The set-aside nodes go
// to their tiles and the placed nodes get their store slots tile by tile in the merge order of the
// tiles' keys (tile_grid.hpp: ownership block, then Z-order; internal/hand_over.hpp,
// internal/store_slots.hpp). Phases run in ascending (generation, level, colour) order until no tile
// has a waiting node. Several processes (MPI ranks) can share the fill: each expands the tiles it owns
// and they exchange nodes between phases (internal/rank_exchange.hpp).
//
// Rounds: one thread team runs every phase, one round a phase, and meets at a barrier between rounds
// (parallel/phase_barrier.hpp), whose completion step (one thread, the others waiting) does the serial
// part. A round's items are the phase's tiles and the store copies of the previous phase's nodes
// (internal/round_items.hpp). PnpFill below orchestrates these parts; each part's header says what it
// keeps and why.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "nodegen/fill/boundary_rows.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/internal/candidate_test.hpp"
#include "nodegen/fill/internal/fill_output.hpp"
#include "nodegen/fill/internal/fill_tree.hpp"
#include "nodegen/fill/internal/first_failure.hpp"
#include "nodegen/fill/internal/hand_over.hpp"
#include "nodegen/fill/internal/generation_zero.hpp"
#include "nodegen/fill/internal/heap_trim.hpp"
#include "nodegen/fill/internal/node_rule.hpp"
#include "nodegen/fill/internal/phase_queue.hpp"
#include "nodegen/fill/internal/phase_times.hpp"
#include "nodegen/fill/internal/point_list.hpp"
#include "nodegen/fill/internal/rank_exchange.hpp"
#include "nodegen/fill/internal/round_items.hpp"
#include "nodegen/fill/internal/space_rule_fill.hpp"
#include "nodegen/fill/internal/store_options.hpp"
#include "nodegen/fill/internal/store_slots.hpp"
#include "nodegen/fill/internal/tile_expansion.hpp"
#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/fill/fill_params.hpp"
#include "nodegen/geometry/box.hpp"
#include "nodegen/geometry/spacing.hpp"
#include "nodegen/geometry/spacing_fault.hpp"
#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/phase_barrier.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/store_concept.hpp"

namespace nodegen {

namespace fill_detail {

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
        reserved_(options.reserve_nodes ? std::min(options.reserve_nodes, params.max_nodes) : params.max_nodes),
        store_(reserved_, store_options<typename Store<Point>::Options>(options)),
        tree_(reserved_, domain.bounding_box(), store_options<typename Store<Point>::Options>(options)),
        tiles_(grid_),
        items_(threads_),
        slots_(threads_),
        hand_over_(threads_, tiles_, phases_, round_),
        ranks_(options.exchange, grid_, tiles_, phases_, hand_over_, slots_, store_, tree_, round_),
        expansion_(rule_, tree_, grid_, tiles_, constant_spacing_, min_spacing_),
        seeds_(store_, tree_, slots_, tiles_, phases_, grid_, params.max_nodes, params.seed) {}

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
    std::vector<Vec<D>> children;  // one tile expansion's placed nodes, and their h (TileExpansion)
    std::vector<double> child_h;
    std::vector<Waiting<D>> arrivals;  // the space-rule fill's (arrival_order.hpp)
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
      if (ranks_.active()) seed_boundary_ranks(boundary);
      else seed_boundary(boundary);
      if (owned) rows = take_boundary_rows<D>(std::move(*owned));  // `boundary` is empty from here on
      if (options_.space_rule && !ranks_.active()) run_space_rule();
      else run_phases();
    } catch (const StoreFull&) {
      // Every process has the same reservation, so under several all see this alike (a failure on one
      // reaches the others as a StoreFull, mpi/agreement.hpp).
      if (reserved_ < params_.max_nodes) throw ReservationFull(reserved_);
      // The store's own words (which store, which claim) are not the user's: the cap is.
      throw StoreFull("node cap of " + std::to_string(params_.max_nodes) +
                      " nodes reached before the domain was full (raise max_nodes / --max-nodes, or check "
                      "that the spacing is not far smaller than intended)");
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

  // Generation 0: the boundary nodes, then the interior starts (internal/generation_zero.hpp).
  template <class BoundaryNodeT>
  void seed_boundary(const std::vector<BoundaryNodeT>& boundary) {
    boundary_local_ = seeds_.seed(domain_, boundary, [this](const Vec<D>& p) { return spacing_at(p, scratch(0)); },
                                  scratch(0).finger, [this](std::size_t n) { report_progress(n); });
  }
  // The same with several processes (internal/rank_exchange.hpp).
  template <class BoundaryNodeT>
  void seed_boundary_ranks(const std::vector<BoundaryNodeT>& boundary) {
    std::tie(boundary_first_, boundary_local_) = ranks_.seed(
        boundary, params_.max_nodes, threads_, domain_,
        [this](int t, const Vec<D>& p) { return spacing_at(p, scratch(t)); },
        [this](int t, const Vec<D>& p) { return scratch(t).h(p); },
        [&](std::int32_t finest) {
          return seeds_.starts(domain_, boundary, finest, [this](const Vec<D>& p) { return spacing_at(p, scratch(0)); });
        },
        scratch(0).finger);
    report_progress(boundary_local_);
  }

  // Phases in ascending (generation, level, colour) until no tile has a waiting node.
  //
  // A round: thread 0 first plans the next phase when it is known already (plan_in_round); each thread
  // takes the tiles of its share (its run, those with the most nodes waiting first), then the other
  // shares' next tiles, then hands its run over (hand_over_run), then takes the copies of the tiles its
  // run handed over in the previous phase into their store slots, then the others' copies. Then the team meets at the barrier,
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
          if (t == 0) plan_in_round();
          // Its own run of the tiles, then what is left of the others'; the hand-over of its run's
          // tiles that are done; then the copies the same way; then the rest of the hand-over.
          for (int v = 0; v < 2 * threads_ && !failure_.failed(); ++v) {
            if (v == threads_) hand_over_run(t, false);
            const int owner = (t + v) % threads_;
            const auto share = static_cast<std::size_t>(v / threads_ * threads_ + owner);
            items_.take(share, [this] { return failure_.failed(); }, [&](std::size_t i, std::uint32_t item) {
              if (options_.stop && options_.stop->load(std::memory_order_relaxed)) throw FillStopped();
              const auto start = times_.item_start();
              if (item < round_.tiles.size()) {
                Tile<D>& tile = tiles_[round_.tiles[item]];
                tile.worker = t;
                expansion_.expand(tile, round_.generation, s);
                times_.tile(i, tile.key.level, tile.lo, tile.hi);
                // its run's thread may hand it over
                tile.expanded_round.store(round_.number, std::memory_order_release);
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

  // The same items without rounds (internal/space_rule_fill.hpp).
  void run_space_rule() {
    using Run = SpaceRuleFill<D, Store<Point>, TreeOf, TileExpansion<D, Rule, TreeOf>>;
    Run run(threads_, tiles_, grid_, expansion_, slots_, store_, tree_, failure_, trim_, times_);
    expansion_.look_up_tiles(false);
    run.run(phases_, [this](int t) -> Scratch& { return scratch(t); },
            [this](std::size_t n) { return claim_slots(n); },
            [this] { return options_.stop && options_.stop->load(std::memory_order_relaxed); });
    expansion_.look_up_tiles(true);
    stats_.phases = run.phases();
    stats_.tile_runs = run.items();
    stats_.largest_run = run.largest();
    failure_.rethrow();
  }

  // Run t's hand-over during the round (internal/hand_over.hpp).
  void hand_over_run(int t, bool spin) {
    if (ranks_.active() || hand_over_.handed(t)) return;
    const auto start = std::chrono::steady_clock::now();
    hand_over_.hand_over_expanded(t, spin, start, failure_);
    if (times_.on()) hand_over_.run(t).seconds += PhaseTimes::seconds_since(start);
  }

  // By thread 0 as the round begins, while the others take their tiles: the next phase, if it is of
  // this round's generation. Its tiles and their waiting nodes of that generation are then final (this
  // round only adds nodes of the next generation), so planning it now gives the plan the completion
  // step would, off the serial step; a phase of the next generation waits for the completion step.
  // The completion step reads the plan after the barrier.
  void plan_in_round() {
    if (ranks_.active() || plan_.ready || failure_.failed()) return;
    const auto start = PhaseTimes::Clock::now();
    plan_next_phase(false);
    times_.add_planning(start);
  }

  // The next phase's tiles, sorted and cut into the next round's shares, once the phase queue's first
  // phase can no longer change (PhaseQueue::take_first): during the round (plan_in_round) or by the
  // completion step (`all_handed`). The completion step adds this phase's copies to the cut.
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
      if (ranks_.active()) {
        ranks_.end_phase(failure_, params_.max_nodes, stats_.largest_run,
                         [this](std::size_t n) { return claim_slots(n); }, scratch(0).finger);
        agree_next_phase();
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
    if (ranks_.active()) return agree_next_phase();
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
  // The same with several processes: the phase they agree on (internal/rank_exchange.hpp).
  void agree_next_phase() {
    const auto [next, copies_left] = ranks_.agree_next_phase(failure_.failed());
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
    items_.begin(cut);
    hand_over_.begin(cut.runs);
    trim_.note_round(round_.generation, cut.waiting);
    times_.begin_round(items_.size(), round_.generation);
  }

  void report_progress(std::size_t n) {
    if (options_.progress) options_.progress->fetch_add(n, std::memory_order_relaxed);
  }

  // h at p, checked as the loader checks its samples (spacing.hpp's limits): a fault between them (a
  // spot of h = 1e-300 ran into the k-d tree's depth limit) is the spacing's error, with the point.
  double spacing_at(const Vec<D>& p, Scratch& s) const { return checked_spacing<D>(p, s.h(p), min_spacing_); }

  // Frees the tree and the tiles, then copies the store into the output (internal/fill_output.hpp),
  // with the boundary's rows from `boundary` (the caller's nodes or the rows kept of them) and this
  // process's rows in the whole; `boundary_total`: the boundary nodes of the whole domain.
  template <class Boundary>
  Discretization<D> collect(Boundary&& boundary, std::size_t boundary_total) {
    tree_.release();
    tiles_.release();
    const std::size_t n = slots_.count();
    Discretization<D> out = copy_out<D, Store>(store_, n, boundary_local_, boundary_first_, threads_);
    out.share = ranks_.rows(boundary_first_, boundary_local_, boundary_total, n);
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
  RankExchange<D, Store<Point>, TreeOf> ranks_;
  TileExpansion<D, Rule, TreeOf> expansion_;  // a tile's work in a round
  GenerationZero<D, Store<Point>, TreeOf> seeds_;
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
  std::optional<fill_detail::PnpFill<D, Store, DomainT, SpacingT>> fill;
  agreed_among(options.exchange, [&] { fill.emplace(domain, spacing, params, options); });
  return fill->run(boundary);
}

// The same, consuming `boundary`: after seeding, only the normals and ids the output needs are kept
// for the rest of the fill (fill_domain passes the geometry's boundary this way).
template <int D, template <class> class Store, class DomainT, class SpacingT, class BoundaryNodeT>
Discretization<D> pnp_fill(const DomainT& domain, const SpacingT& spacing, std::vector<BoundaryNodeT>&& boundary,
                           const FillParams& params, const FillOptions& options) {
  std::optional<fill_detail::PnpFill<D, Store, DomainT, SpacingT>> fill;
  agreed_among(options.exchange, [&] { fill.emplace(domain, spacing, params, options); });
  return fill->run(std::move(boundary));
}

}  // namespace nodegen
