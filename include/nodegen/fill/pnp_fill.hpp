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
// node belongs to a tile (tile_grid.hpp: tiles sized by the node's spacing, in levels and colours).
// The fill runs in phases; a phase takes the tiles of one (generation, level, colour) that have nodes
// of that generation waiting and expands those nodes, tiles in parallel: a tile expands them first in,
// first out, keeps the accepted candidates that are its own (same tile, same level) as waiting nodes
// of the next generation, and sets aside the others. Tiles of one phase are far enough apart that
// none can see what another writes, so what a tile does depends only on what earlier phases left.
// Between phases, one thread gives every node the phase placed its store slot, tile by tile in the
// merge order of their keys (tile_grid.hpp: ownership block, then Z-order), and the set-aside nodes go
// to their tiles in that order too (handed over by a thread out of items as tiles finish, the rest by
// that one thread). Phases run in ascending (generation, level, colour) order
// until no tile has a waiting node. Several processes (MPI ranks) can share the fill: each expands the
// tiles it owns and they exchange nodes between phases (the section "Several processes" below).
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "nodegen/fill/boundary_rows.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/internal/candidate_test.hpp"
#include "nodegen/fill/internal/fill_output.hpp"
#include "nodegen/fill/internal/fill_tree.hpp"
#include "nodegen/fill/internal/first_failure.hpp"
#include "nodegen/fill/internal/heap_trim.hpp"
#include "nodegen/fill/internal/node_rule.hpp"
#include "nodegen/fill/internal/phase_times.hpp"
#include "nodegen/fill/internal/point_list.hpp"
#include "nodegen/fill/ownership.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/geometry/domain_file.hpp"
#include "nodegen/geometry/spacing_fault.hpp"
#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/parallel/backoff.hpp"
#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/phase_barrier.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/parallel/thread_team.hpp"
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
        tree_(reserved_, domain.bounding_box(), store_options<typename Store<Point>::Options>(options)) {}

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
  // A node waiting to be expanded, with its spacing (evaluated once, when it was accepted). Its
  // generation (the boundary is generation 0, a node placed by a node of generation g is g + 1) is
  // kept by its tile, not by the node: a waiting list holds at most two generations (below).
  struct Waiting {
    Vec<D> pos;
    double h;
  };
  // An accepted node that belongs to another tile, set aside until the tile is handed over, with the
  // tile's index (kNoTile when the tile does not exist yet). The expanding thread looks the tile up
  // (find_tile), so the hand-over only appends the node.
  static constexpr std::uint32_t kNoTile = 0xFFFF'FFFFu;
  struct SetAside {
    Waiting node;
    TileKey<D> key;
    std::uint32_t tile;
  };
  struct Tile {
    TileKey<D> key;
    std::uint64_t block = 0;        // its ownership block (tile_grid.hpp), the merge order's first key
    std::uint32_t index = 0;        // in tiles_ (the order tiles were first met: storage only, no order)
    Vec<D> lo, hi;                  // its cell (a node on a face may go either way; both are safe)
    // First in, first out. Its first front_count nodes are of generation front_generation, the rest of
    // the next one: a node of generation g + 2 is placed in a phase of generation g + 1, which comes
    // after every phase of generation g, this tile's included, so the g nodes are gone by then; and a
    // node of generation g arrives only from phases of generation g - 1, before any of g.
    std::vector<Waiting> waiting;
    std::uint64_t front_generation = 0;
    std::size_t front_count = 0;
    std::vector<Vec<D>> placed;     // the nodes this tile placed in the current phase, in order
    std::vector<SetAside> set_aside;
    std::int64_t listed = -1;       // the latest generation whose phase lists this tile
    int worker = 0;                 // the thread that expanded it last (where its lines are cached)
    std::atomic<std::uint64_t> expanded_round{~std::uint64_t{0}};  // the last round that expanded it
    // The nodes runs handed over to it in round seg_round (deliver): waiting[seg_base, ...) holds one
    // segment per run that delivered, in run order, each (run, end) ending where the next begins.
    std::uint64_t seg_round = ~std::uint64_t{0};
    std::size_t seg_base = 0;
    std::vector<std::pair<int, std::size_t>> segs;
    std::atomic<std::uint32_t> lock{0};  // deliveries from several runs during a round
  };
  // A phase: the nodes of one generation in the tiles of one level and one colour.
  struct Phase {
    std::uint64_t generation;
    std::int32_t level;
    int colour;
    friend auto operator<=>(const Phase&, const Phase&) = default;
  };

  static bool is_constant(const SpacingT& spacing) {
    if constexpr (requires { spacing.is_constant(); }) return spacing.is_constant();
    else return false;
  }

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
    share_lists_.resize(static_cast<std::size_t>(threads_));
    shares_ = std::make_unique<Share[]>(2 * static_cast<std::size_t>(threads_));
    runs_ = std::make_unique<Run[]>(static_cast<std::size_t>(threads_));
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
    Discretization<D> out = rows ? collect(std::move(*rows)) : collect(boundary);
    out.phases = stats_.phases;
    out.tile_runs = stats_.tile_runs;
    out.largest_tile_run = stats_.largest_run;
    out.early_hand_overs = stats_.early_hand_overs;
    out.fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

  // Per-thread scratch, reused by every expansion of that thread: the node rule's, and an evaluator of
  // the spacing. On cache lines of its own: the vectors' headers are written by every expansion. Made by
  // the thread that uses it (run_impl), so what it allocates comes from that thread's heap too: a
  // spacing expression's evaluator writes its variables and muparser's stack at every h(x), and
  // evaluators one thread made one after the other shared cache lines (bench/RESULTS.md, Fill).
  struct alignas(kFalseSharingBytes) Scratch : Rule::Scratch {
    explicit Scratch(typename SpacingT::Evaluator e) : h(std::move(e)) {}
    typename SpacingT::Evaluator h;
  };

  // The boundary nodes are the store's first nodes, in the order the geometry produced them, and the
  // first waiting nodes of their tiles.
  template <class BoundaryNodeT>
  void seed_boundary(const std::vector<BoundaryNodeT>& boundary) {
    if (boundary.size() > params_.max_nodes)
      throw StoreFull("the domain has " + std::to_string(boundary.size()) + " boundary nodes");
    const std::size_t n = boundary.size();
    if (n == 0) return;
    const std::size_t first = store_.claim(n);
    boundary_local_ = n;
    Scratch& s = *scratch_.front();
    for (std::size_t i = 0; i < n; ++i) {
      const Vec<D>& p = boundary[i].pos;
      store_.set(first + i, to_stored<D>(p));
      tree_.insert_alone(p, s.finger);
      const double r = spacing_at(p, s);
      const TileKey<D> key = grid_.key_of(p, r);
      Tile& tile = tile_at(key);
      enqueue(tile, {p, r}, 0);
    }
    count_ = first + n;
    report_progress(n);
  }

  // The index of the tile with this key, kNoTile when there is none. Read-only, so the team's threads
  // call it during a round: tiles are created (tile_at) only before the phases and in completion steps.
  std::uint32_t find_tile(const TileKey<D>& key) const {
    const auto it = tile_index_.find(key);
    return it == tile_index_.end() ? kNoTile : it->second;
  }
  Tile& tile_at(const TileKey<D>& key) {
    auto [it, fresh] = tile_index_.try_emplace(key, tiles_.size());
    if (fresh) {
      tiles_.push_back(std::make_unique<Tile>());
      Tile& t = *tiles_.back();
      t.key = key;
      t.block = TileGrid<D>::block_code(key);
      t.index = static_cast<std::uint32_t>(it->second);
      grid_.cell_of(key, t.lo, t.hi);
    }
    return *tiles_[it->second];
  }
  // Appends a node of `generation` to the tile's waiting list and lists the tile in that generation's phase.
  void enqueue(Tile& tile, const Waiting& node, std::uint64_t generation) {
    if (tile.waiting.empty()) {
      tile.front_generation = generation;
      tile.front_count = 0;
    }
    if (generation == tile.front_generation) ++tile.front_count;
    tile.waiting.push_back(node);
    schedule(tile, generation);
  }
  // Lists the tile in the phase of `generation` (a node of that generation now waits in it).
  void schedule(Tile& tile, std::uint64_t generation) {
    if (tile.listed >= static_cast<std::int64_t>(generation)) return;
    tile.listed = static_cast<std::int64_t>(generation);
    ready_[phase_of(tile, generation)].push_back(tile.index);
  }
  // The list of the tile's phase of `generation` in ready_.
  static Phase phase_of(const Tile& tile, std::uint64_t generation) {
    return {generation, tile.key.level, TileGrid<D>::colour(tile.key)};
  }

  // Phases in ascending (generation, level, colour) until no tile has a waiting node. A phase of
  // generation g only adds nodes of generation g + 1, so every phase comes after those that feed it.
  //
  // One team runs every phase. A round: each thread takes the tiles of its share (cut_tiles: a run of
  // this phase's tiles along space, those with the most nodes waiting first), then the other shares'
  // next tiles, then hands its run over (hand_over_run: the set-aside nodes to their tiles; the first
  // thread there also prepares the next round), then takes the copies of the tiles its run handed over
  // in the previous phase into their store slots, then the others' copies (cut_copies: the long items
  // start early and the short ones fill the end of the round). Then the team meets at the barrier, whose
  // completion step (one thread, the others waiting) does what that left: hand-over, slots, the next phase. The
  // barrier orders every write of a round before every read of the next (parallel/phase_barrier.hpp: the
  // completion happens after every arrival and before any thread returns from the wait). A thread that fails
  // still arrives, so nobody waits for it; the completion step then ends the fill.
  void run_phases() {
    start_next_phase();
    PhaseBarrier sync(threads_);
    run_team(threads_, [&](int t, int) {
      Scratch& s = *scratch_[static_cast<std::size_t>(t)];
      sync.meet();  // the members start at different times
      while (!done_) {
        try {
          // Its own run of the tiles, then what is left of the others'; the hand-over of its run's
          // tiles that are done; then the copies the same way; then the rest of the hand-over.
          for (int v = 0; v < 2 * threads_ && !failure_.failed(); ++v) {
            if (v == threads_) hand_over_run(t, false);
            const std::size_t owner = static_cast<std::size_t>((t + v) % threads_);
            Share& share = shares_[static_cast<std::size_t>(v / threads_ * threads_) + owner];
            for (std::size_t i; (i = share.next.fetch_add(1, std::memory_order_relaxed)) < share.end;) {
              if (failure_.failed()) break;
              const auto start = times_.item_start();
              const std::size_t item = order_[i];
              if (item < active_.size()) {
                Tile& tile = *tiles_[active_[item]];
                tile.worker = t;
                expand_tile(tile, generation_, s);
                tile.expanded_round.store(round_, std::memory_order_release);  // its run's thread may hand it over
              } else {
                copy_to_store(runs_[owner], item - active_.size());
              }
              times_.item(i, start);
            }
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

  struct Run;
  // The nodes one tile placed in one phase, and the store slot of the first (from a run's base).
  struct CopyJob {
    std::size_t first;
    std::vector<Vec<D>> nodes;
  };
  // A round's items as cut_tiles and cut_copies cut them: the order, and each share's range of it
  // (the threads' runs of tiles, then their copies), with the nodes waiting in the phase's tiles.
  struct Cut {
    std::vector<std::uint32_t> order;
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    std::size_t tiles = 0;    // items below this are tiles, the others copies
    std::size_t waiting = 0;  // nodes waiting in the tiles
    std::vector<std::pair<std::size_t, std::size_t>> runs;  // each thread's tiles, as merge positions [first, second)
  };
  // Writes the round's copy item `copy` (cut_copies), one of the run's due jobs.
  void copy_to_store(Run& run, std::size_t copy) {
    CopyJob& job = run.due[copy - run.due_item];
    const std::size_t first = run.due_base + job.first;
    for (std::size_t k = 0; k < job.nodes.size(); ++k) store_.set(first + k, to_stored<D>(job.nodes[k]));
    std::vector<Vec<D>>().swap(job.nodes);
  }
  // Drops every run's copies not written (a thread failed).
  void drop_copies() {
    for (int t = 0; t < threads_; ++t) {
      runs_[static_cast<std::size_t>(t)].due.clear();
      runs_[static_cast<std::size_t>(t)].copies.clear();
    }
  }

  // The barrier's completion step (one thread; the others wait).
  void end_phase() noexcept {
    const auto start = std::chrono::steady_clock::now();
    try {
      tree_.reuse_retired(count_);
      for (int t = 0; t < threads_; ++t) {  // written; slots are absolute until finish_hand_over sets a base
        runs_[static_cast<std::size_t>(t)].due.clear();
        runs_[static_cast<std::size_t>(t)].due_base = 0;
      }
      if (ex_) {
        end_phase_ranks();
        times_.end_phase_alone(start);
        return;
      }
      // What the runs' hand-overs during the round (hand_over_run) left, then what they deferred.
      if (!failure_.failed()) {
        for (int t = 0; t < threads_; ++t)
          for (Run& run = runs_[static_cast<std::size_t>(t)]; run.next < run.hi; ++run.next) hand_over_in_run(t);
        finish_hand_over();
      }
      start_next_phase();  // timed with the rest: picking and sorting the next phase's tiles is serial too
      if (times_.on()) {
        float handing = 0.0f;
        for (int t = 0; t < threads_; ++t) handing += std::exchange(runs_[static_cast<std::size_t>(t)].seconds, 0.0f);
        times_.end_phase(start, handing);
      }
    } catch (...) {
      failure_.fail(std::current_exception());
      drop_copies();
      active_.clear();
      order_.clear();
      done_ = true;
    }
  }

  // The nodes this process's tiles placed in the phase.
  std::size_t placed_count() const {
    std::size_t n = 0;
    for (std::uint32_t t : active_) n += tiles_[t]->placed.size();
    return n;
  }
  // Store slots for n nodes; returns the first.
  std::size_t claim_slots(std::size_t n) {
    const std::size_t slot = n ? store_.claim(n) : count_;
    count_ = slot + n;
    report_progress(n);
    return slot;
  }
  // The nodes of the phase's tiles active_[from, to) get their slots from `slot` on, tile by tile in
  // the merge order; the next round writes them there (each job in the due list of the thread that
  // placed its nodes, whose cache holds them). Several processes.
  void queue_copies(std::size_t from, std::size_t to, std::size_t slot) {
    for (std::size_t k = from; k < to; ++k) {
      Tile& tile = *tiles_[active_[k]];
      queue_copy(tile, slot, stats_.largest_run, runs_[static_cast<std::size_t>(tile.worker)].due);
    }
  }
  // The tile's placed nodes go to `into` as a job for the store from `slot` on (then moved past them);
  // `largest` keeps the most nodes one tile placed.
  static void queue_copy(Tile& tile, std::size_t& slot, std::size_t& largest, std::vector<CopyJob>& into) {
    largest = std::max(largest, tile.placed.size());
    if (tile.placed.empty()) return;
    into.push_back({slot, std::move(tile.placed)});
    slot += into.back().nodes.size();
    tile.placed = {};
  }
  // With several processes the completion step hands over every tile, interleaved with the nodes
  // received (take_nodes), in the merge order, each node straight into its tile.
  void hand_over_set_aside() {
    for (std::uint32_t t : active_) hand_over(*tiles_[t], 0, nullptr);
  }

  // The hand-over. Each run (a thread's share of the phase's tiles, a range of the merge order: runs
  // in thread order cover the phase's tiles in the merge order) is handed over by its own thread as
  // soon as it has run out of tiles (hand_over_run), tile by tile in the merge order: the tile's
  // set-aside nodes go to their tiles (deliver) and its placed nodes are queued for the store, at
  // offsets from the run's first slot. The completion step hands over what the runs left, in the same
  // way, then the nodes whose tile did not exist at the start of the round (their tiles are made then,
  // since the expanding threads read the tile map during the round), in the merge order of their
  // sources, and gives each run its first slot, after the runs before it (finish_hand_over).
  //
  // Why the nodes come out as if one thread had handed over every tile in the merge order: a tile's
  // nodes arrive in its waiting list in segments, one per run, kept in run order whichever thread
  // delivers first (deliver), and within a segment in the order its one thread handed its run over,
  // the merge order. It is safe during the round: a tile of the phase sets nodes aside only to tiles
  // outside the phase (other colours or levels, tile_grid.hpp), which no thread expands in it, or to
  // itself; a run's thread hands over only tiles that are expanded (expanded_round, release /
  // acquire); deliveries to one tile from several runs take its lock; and what they add to ready_
  // waits in the run's list until the run is handed over, then goes there under ready_lock_
  // (list_scheduled), into phases of the next generation, which the round's planner
  // (plan_next_phase) does not take. Each thread's hand-over touches its own run's tiles,
  // which it expanded itself unless another thread took them, and the tiles next to them: on this
  // VM's distant vCPU placement a cache line between the two threads costs about 165 ns.
  //
  // A run's thread hands over the tiles that are done before it takes copies, without waiting; after
  // the copies it goes on, and waits for its tiles that another thread is still expanding when every
  // thread has a core (`spin`, as the barrier's waiters) until kHandOverWait has passed since it
  // began, and otherwise stops; the completion step hands over the rest. The first thread out of
  // tiles also prepares the next round (plan_next_phase).
  struct alignas(kFalseSharingBytes) Run {
    std::size_t hi = 0, next = 0;  // its tiles are active_[.., hi); those before next are handed over
    std::size_t placed = 0;        // nodes its handed-over tiles placed (its copies' offsets)
    std::size_t largest = 0, early = 0;  // the most nodes one tile placed; tiles handed over in the round
    float seconds = 0.0f;                // the phase log's: its hand-over time this round
    std::vector<CopyJob> copies;         // first: the offset from the run's first slot
    std::vector<std::uint32_t> scheduled;  // tiles to list in ready_ for the next generation
    std::vector<std::pair<std::size_t, std::uint32_t>> new_tile_sources;  // (merge position, tile)
    // The copies of the round before, which this round writes (the run's thread first: it handed
    // them over), from slot due_base on; the first is the round's copy item due_item (cut_copies).
    // Written only by the completion step; apart from the fields above, which its thread writes.
    alignas(kFalseSharingBytes) std::vector<CopyJob> due;
    std::size_t due_base = 0, due_item = 0;
  };

  void hand_over_run(int t, bool spin) {
    Run& run = runs_[static_cast<std::size_t>(t)];
    if (ex_ || run.next == run.hi) return;
    const auto start = std::chrono::steady_clock::now();
    if (!planning_.exchange(true, std::memory_order_acquire) && !plan_.ready &&
        !failure_.failed()) {
      plan_next_phase(false);
      times_.add_planning(start);  // within run.seconds below; the log keeps them apart
    }
    Backoff backoff;
    unsigned waits = 0;
    while (run.next < run.hi && !failure_.failed()) {
      if (tiles_[active_[run.next]]->expanded_round.load(std::memory_order_acquire) != round_) {
        if (!spin || (++waits % 64 == 0 && std::chrono::steady_clock::now() - start > kHandOverWait)) break;
        backoff.pause();
        continue;
      }
      hand_over_in_run(t);
      ++run.next;
      ++run.early;
    }
    if (run.next == run.hi) list_scheduled(run);
    if (times_.on()) run.seconds += PhaseTimes::seconds_since(start);
  }
  // The tiles the run listed for the next generation go to ready_, by the run's thread as soon as its
  // hand-over is done (the tiles are in its cache; in the completion step the same took 1.1 ms of a
  // 2D 1e6 fill's 4 ms of serial steps at 2 threads), or by the completion step. ready_lock_ orders
  // this with the other runs and with the round's planner; the order within a phase's list does not
  // matter, since plan_next_phase sorts it.
  void list_scheduled(Run& run) {
    if (run.scheduled.empty()) return;
    const std::uint64_t generation = generation_ + 1;
    SpinGuard guard(ready_lock_);
    std::vector<std::uint32_t>* list = nullptr;
    Phase last{};
    for (std::uint32_t i : run.scheduled) {  // a run's tiles mostly list in a few phases
      const Phase phase = phase_of(*tiles_[i], generation);
      if (!list || phase != last) list = &ready_[last = phase];
      list->push_back(i);
    }
    run.scheduled.clear();
  }
  // Hands over the tile at run t's position next.
  void hand_over_in_run(int t) {
    Run& run = runs_[static_cast<std::size_t>(t)];
    Tile& tile = *tiles_[active_[run.next]];
    hand_over(tile, t, &run);
    queue_copy(tile, run.placed, run.largest, run.copies);
  }
  // The tile's set-aside nodes (those for tiles this process owns) go to their tiles, as run `r`'s.
  // With `run` (one process) the nodes for tiles not made yet wait for finish_hand_over and the tiles
  // to list go to the run's list; without, everything goes straight in (several processes, whose
  // completion step hands over alone).
  void hand_over(Tile& tile, int r, Run* run) {
    bool to_new_tiles = false;
    const std::vector<SetAside>& aside = tile.set_aside;
    for (std::size_t i = 0; i < aside.size();) {
      const SetAside& n = aside[i];
      if (ranks_ > 1 && own_.owner(n.key) != rank_) {
        ++i;
      } else if (n.tile == kNoTile) {
        if (run) to_new_tiles = true;
        else enqueue(tile_at(n.key), n.node, generation_ + 1);
        ++i;
      } else {  // the nodes for one tile mostly come together: one delivery for them all
        std::size_t j = i + 1;
        while (j < aside.size() && aside[j].tile == n.tile) ++j;
        deliver(*tiles_[n.tile], aside.data() + i, aside.data() + j, r, run);
        i = j;
      }
    }
    if (to_new_tiles) {
      run->new_tile_sources.push_back({run->next, tile.index});
      if (!tile.waiting.empty()) list_next(tile, run);
    } else {
      release_set_aside(tile, run);
    }
  }
  // Appends the nodes [from, to) to the tile's waiting list as run r's (generation_ + 1) in this
  // round: after the segments of the runs before r, before those of the runs after it.
  void deliver(Tile& tile, const SetAside* from, const SetAside* to, int r, Run* run) {
    SpinGuard guard(tile.lock);
    const std::uint64_t generation = generation_ + 1;
    const std::size_t n = static_cast<std::size_t>(to - from);
    if (tile.waiting.empty()) {
      tile.front_generation = generation;
      tile.front_count = 0;
    }
    if (generation == tile.front_generation) tile.front_count += n;
    if (tile.seg_round != round_) {
      tile.seg_round = round_;
      tile.seg_base = tile.waiting.size();
      tile.segs.clear();
    }
    std::size_t s = 0, at = tile.seg_base;
    while (s < tile.segs.size() && tile.segs[s].first < r) at = tile.segs[s++].second;
    if (s == tile.segs.size() || tile.segs[s].first != r) tile.segs.insert(tile.segs.begin() + static_cast<std::ptrdiff_t>(s), {r, at});
    at = tile.segs[s].second;
    for (std::size_t k = s; k < tile.segs.size(); ++k) tile.segs[k].second += n;
    if (at == tile.waiting.size()) {
      for (const SetAside* p = from; p != to; ++p) tile.waiting.push_back(p->node);
    } else {  // a run after r delivered first
      tile.waiting.insert(tile.waiting.begin() + static_cast<std::ptrdiff_t>(at), n, from->node);
      for (const SetAside* p = from; p != to; ++p) tile.waiting[at++] = p->node;
    }
    list_next(tile, run);
  }
  // Lists the tile in the next generation's phase: in ready_ at once, or through the run's list.
  void list_next(Tile& tile, Run* run) {
    if (!run) return schedule(tile, generation_ + 1);
    if (tile.listed >= static_cast<std::int64_t>(generation_ + 1)) return;
    tile.listed = static_cast<std::int64_t>(generation_ + 1);
    run->scheduled.push_back(tile.index);
  }
  void release_set_aside(Tile& tile, Run* run) {
    // A tile the front is crossing keeps its set-aside list's room for its next phase; one the front
    // has passed (nothing waiting) keeps no capacity: 3.5 B a node at 1e6 nodes in 2D if it did.
    tile.set_aside.clear();
    if (!tile.waiting.empty()) {
      list_next(tile, run);
    } else {
      std::vector<Waiting>().swap(tile.waiting);
      std::vector<SetAside>().swap(tile.set_aside);
      std::vector<std::pair<int, std::size_t>>().swap(tile.segs);
    }
  }
  // The completion step's end of the hand-over (one process): the tiles the runs listed go to ready_;
  // the nodes for tiles not made at the start of the round go to them, now made, in the merge order of
  // their sources; and each run's queued nodes get their store slots, after the runs before it.
  void finish_hand_over() {
    const std::uint64_t generation = generation_ + 1;
    for (int t = 0; t < threads_; ++t) {
      Run& run = runs_[static_cast<std::size_t>(t)];
      list_scheduled(run);
      new_tile_sources_.insert(new_tile_sources_.end(), run.new_tile_sources.begin(), run.new_tile_sources.end());
      run.new_tile_sources.clear();
    }
    std::sort(new_tile_sources_.begin(), new_tile_sources_.end());
    for (const auto& [position, t] : new_tile_sources_) {
      Tile& tile = *tiles_[t];
      for (const SetAside& n : tile.set_aside)
        if (n.tile == kNoTile) enqueue(tile_at(n.key), n.node, generation);
      release_set_aside(tile, nullptr);
    }
    new_tile_sources_.clear();
    std::size_t total = 0;
    for (int t = 0; t < threads_; ++t) total += runs_[static_cast<std::size_t>(t)].placed;
    std::size_t slot = claim_slots(total);
    for (int t = 0; t < threads_; ++t) {
      Run& run = runs_[static_cast<std::size_t>(t)];
      run.due.swap(run.copies);  // the jobs stay where the run's thread wrote them
      run.due_base = slot;
      slot += run.placed;
      stats_.largest_run = std::max(stats_.largest_run, run.largest);
      stats_.early_hand_overs += run.early;
      run.placed = run.largest = run.early = 0;
    }
  }
  // The next phase's tiles, sorted and cut into the next round's shares by the first thread out of
  // tiles while the others finish theirs. The next phase is known once ready_'s smallest phase can no
  // longer change: at once when it is of this phase's generation g (2 of 3 phases in 2D, 7 of 8 in
  // 3D), since a node of generation g arrives only from phases of generation g - 1 and the hand-over
  // adds only nodes of g + 1; otherwise once the hand-over is finished (`all_handed`: the completion
  // step, after finish_hand_over). The completion step adds this phase's copies to the cut. Called by
  // the first thread out of tiles (planning_), whose ready_ and plan the completion step reads after
  // the barrier, and by the completion step when that one could not.
  void plan_next_phase(bool all_handed) {
    SpinGuard guard(ready_lock_);
    if (ready_.empty()) return;
    if (ready_.begin()->first.generation != generation_ && !all_handed) return;
    auto it = ready_.begin();
    plan_.generation = it->first.generation;
    plan_.active = std::move(it->second);
    ready_.erase(it);
    sort_merge_order(plan_.active);
    cut_tiles(plan_.active, plan_.cut);
    plan_.ready = true;
  }
  // The longest a round's hand-over waits for tiles still being expanded: a few times a long tile's
  // expansion (2D tiles of 32 spacings take up to ~100 us), far below a scheduler's time slice.
  static constexpr std::chrono::microseconds kHandOverWait{500};

  // Takes the first phase of ready_ as the next round's tiles; the fill is done when a round would
  // have nothing to do (no copies left and no phase), or a thread failed.
  void start_next_phase() {
    if (ex_) return agree_next_phase();
    active_.clear();
    const bool failed = failure_.failed();
    // Every tile is handed over by now, so the next phase is known if the round did not prepare it.
    if (!failed && !plan_.ready) plan_next_phase(/*all_handed=*/true);
    if (std::exchange(plan_.ready, false) && !failed) {
      generation_ = plan_.generation;
      active_.swap(plan_.active);
      ++stats_.phases;
      stats_.tile_runs += active_.size();
      cut_copies(plan_.cut);
      begin_round(plan_.cut);
    } else {
      begin_round();  // no phase: the last copies, or none when a thread failed
    }
    done_ = order_.empty();
  }

  // The merge order (tile_grid.hpp: ownership block, then Z-order), which any process can compute
  // for its own tiles without knowing the others' history.
  void sort_merge_order(std::vector<std::uint32_t>& tiles) const {
    std::sort(tiles.begin(), tiles.end(), [&](std::uint32_t a, std::uint32_t b) {
      return merge_less<D>(tiles_[a]->key, tiles_[a]->block, tiles_[b]->key, tiles_[b]->block);
    });
  }
  // Sorts the phase's tiles into the merge order and hands out the round's items.
  void begin_round() {
    sort_merge_order(active_);
    if (failure_.failed()) drop_copies();
    cut_tiles(active_, cut_);
    cut_copies(cut_);
    begin_round(cut_);
  }
  // The same for tiles already sorted and cut (`cut`, which is left empty).
  void begin_round(Cut& cut) {
    ++round_;
    planning_.store(false, std::memory_order_relaxed);
    order_.swap(cut.order);
    cut.order.clear();
    for (std::size_t i = 0; i < cut.ranges.size(); ++i) {
      shares_[i].next.store(cut.ranges[i].first, std::memory_order_relaxed);
      shares_[i].end = cut.ranges[i].second;
    }
    for (std::size_t t = 0; t < cut.runs.size(); ++t) {
      runs_[t].next = cut.runs[t].first;
      runs_[t].hi = cut.runs[t].second;
    }
    trim_.note_round(generation_, cut.waiting);
    times_.begin_round(order_.size());
  }

  // Who takes which of the round's items first (no tile's work depends on it). The tiles, in the merge
  // order, which follows space, are cut into one run per thread of about equal waiting nodes, so a
  // thread keeps expanding the same part of the front, whose tiles, tree leaves and store pages are in
  // its core's cache, phase after phase; a tile's copy goes to the thread that handed it over. A run
  // is taken the most waiting nodes first, and every thread's copies come after every tile, so a
  // round ends on short items; a thread that has finished its run takes the others' next tiles.
  // The phase's tiles `active` (sorted) go to `cut`, with the nodes waiting in them; cut_copies then
  // adds the copies.
  void cut_tiles(const std::vector<std::uint32_t>& active, Cut& cut) {
    const std::size_t teams = static_cast<std::size_t>(threads_);
    for (auto& list : share_lists_) list.clear();
    // Every share is sorted as plain integers, (most waiting first, then k) packed into one key whose
    // low half is the item: with a comparison reading both tiles' counts this step took 1.9 ms of a
    // 2D 1e6 fill's 4.5 ms of completion steps at one thread, 1.2 ms so (20-odd tiles a phase).
    std::size_t total = 0;
    for (std::uint32_t t : active) total += tiles_[t]->front_count;
    std::size_t before = 0;
    cut.runs.assign(teams, {0, 0});
    for (std::size_t k = 0; k < active.size(); ++k) {
      const std::size_t w = tiles_[active[k]]->front_count;
      const std::size_t who = total ? std::min(teams - 1, (2 * before + w) * teams / (2 * total)) : 0;
      const std::uint64_t fewer = 0xFFFF'FFFFu - std::min<std::uint64_t>(w, 0xFFFF'FFFFu);
      share_lists_[who].push_back(fewer << 32 | k);
      if (share_lists_[who].size() == 1) cut.runs[who].first = k;  // `who` never decreases with k
      cut.runs[who].second = k + 1;
      before += w;
    }
    for (auto& list : share_lists_) std::sort(list.begin(), list.end());
    cut.order.clear();
    cut.ranges.resize(2 * teams);
    append_runs(cut);
    cut.tiles = active.size();
    cut.waiting = total;
  }
  // The copies, after the tiles: each run's due jobs to its thread, which handed them over and (unless
  // another thread took the tile) placed their nodes, so neither the jobs nor the nodes leave its cache.
  void cut_copies(Cut& cut) {
    const std::size_t teams = static_cast<std::size_t>(threads_);
    std::size_t item = 0;
    for (std::size_t t = 0; t < teams; ++t) {
      Run& run = runs_[t];
      run.due_item = item;
      cut.ranges[teams + t].first = cut.order.size();
      for (std::size_t j = 0; j < run.due.size(); ++j) cut.order.push_back(static_cast<std::uint32_t>(cut.tiles + item++));
      cut.ranges[teams + t].second = cut.order.size();
    }
  }
  // Whether a run has copies for the next round (several processes agree on it before the fill ends).
  bool copies_due() const {
    for (int t = 0; t < threads_; ++t)
      if (!runs_[static_cast<std::size_t>(t)].due.empty()) return true;
    return false;
  }
  // Appends each thread's list (share_lists_, emptied; an item in the low half of each key) to the
  // cut's order as the range of the thread's share.
  void append_runs(Cut& cut) {
    for (std::size_t t = 0; t < share_lists_.size(); ++t) {
      cut.ranges[t].first = cut.order.size();
      for (std::uint64_t key : share_lists_[t]) cut.order.push_back(static_cast<std::uint32_t>(key));
      cut.ranges[t].second = cut.order.size();
      share_lists_[t].clear();
    }
  }

  // Expands the tile's waiting nodes of `generation` (the front of its list); the nodes of its own
  // that they place wait for the next generation's phase.
  void expand_tile(Tile& tile, std::uint64_t generation, Scratch& s) {
    if (tile.waiting.empty() || tile.front_generation != generation) return;
    const std::size_t due = tile.front_count;
    TileKey<D> last_key{};  // the nodes a tile sets aside mostly go to the same neighbour
    std::uint32_t last_tile = kNoTile;
    for (std::size_t q = 0; q < due; ++q) {
      const Waiting node = tile.waiting[q];  // a copy: the pushes below may move the vector
      if (!rule_.propose(node.pos, node.h, *tree_, s)) continue;
      for (const Vec<D>& c : s.accepted) {
        tree_->insert(c, s.finger);  // the tree is what the other tiles see
        tile.placed.push_back(c);
        const Waiting child{c, constant_spacing_ ? node.h : spacing_at(c, s)};
        const bool same_level = constant_spacing_ || grid_.level_of(child.h) == tile.key.level;
        if (same_level && (c.array() >= tile.lo.array()).all() && (c.array() < tile.hi.array()).all())
          tile.waiting.push_back(child);
        else {
          const TileKey<D> key = grid_.key_of(c, child.h);
          if (last_tile == kNoTile || !(key == last_key)) {
            last_key = key;
            last_tile = find_tile(key);
          }
          tile.set_aside.push_back({child, key, last_tile});
        }
      }
    }
    tile.waiting.erase(tile.waiting.begin(), tile.waiting.begin() + static_cast<std::ptrdiff_t>(due));
    // A list that has shrunk to a quarter of its capacity gives the rest back: in 3D a tile holds a whole
    // sheet of the front for a few phases and a few dozen nodes after, and capacities kept from those
    // sheets were 5.2 of the 73 bytes per node of a 1e6-node cube (5.5 times the nodes waiting).
    if (tile.waiting.capacity() > 4 * tile.waiting.size() + 16) tile.waiting.shrink_to_fit();
    tile.front_generation = generation + 1;  // what is left (if anything) is the next generation
    tile.front_count = tile.waiting.size();
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

  // A phase as one number whose order is the phases' order (generation, level, colour).
  static std::int64_t pack(const Phase& p) {
    return static_cast<std::int64_t>((p.generation << 14) | (static_cast<std::uint64_t>(p.level + 1024) << 3) |
                                     static_cast<std::uint64_t>(p.colour));
  }
  static Phase unpack(std::int64_t v) {
    const auto u = static_cast<std::uint64_t>(v);
    return {u >> 14, static_cast<std::int32_t>((u >> 3) & 2047) - 1024, static_cast<int>(u & 7)};
  }
  static constexpr std::int64_t kNoPhase = std::numeric_limits<std::int64_t>::max();

  // Every process holds every boundary node: it seeds the tiles it owns with them, puts those its tiles
  // may read in its tree, and writes an even share of their rows.
  template <class BoundaryNodeT>
  void seed_boundary_ranks(const std::vector<BoundaryNodeT>& boundary) {
    const std::size_t n = boundary.size();
    if (n > params_.max_nodes) throw StoreFull("the domain has " + std::to_string(n) + " boundary nodes");
    std::vector<double> h(n);
    std::exception_ptr failure;
    try {
      parallel_for(n, threads_, [&](int t, std::size_t i) {
        h[i] = spacing_at(boundary[i].pos, *scratch_[static_cast<std::size_t>(t)]);
      });
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
    if (boundary_local_) store_.claim(boundary_local_);
    Scratch& s = *scratch_.front();
    boundary_pos_.reserve(n);
    in_tree_.assign(n, false);
    for (std::size_t i = 0; i < n; ++i) {
      const Vec<D>& p = boundary[i].pos;
      boundary_pos_.push_back(p);
      if (i >= boundary_first_ && i - boundary_first_ < boundary_local_) store_.set(i - boundary_first_, to_stored<D>(p));
      const TileKey<D> key = grid_.key_of(p, h[i]);
      const bool owned = own_.owner(key) == rank_;
      if (!owned) own_.readers(grid_, p, lmin_, lmax_, readers_);
      if (owned || std::find(readers_.begin(), readers_.end(), rank_) != readers_.end()) {
        tree_.insert_alone(p, s.finger);
        in_tree_[i] = true;
      }
      if (owned) enqueue(tile_at(key), {p, h[i]}, 0);
    }
    count_ = boundary_local_;
    row_base_ = n;
    report_progress(boundary_local_);
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
        const double r = scratch_[static_cast<std::size_t>(t)]->h(c);
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

  // The completion step with several processes (end_phase's, when ex_ is set). Every process makes the
  // same collective calls in the same order whatever happened on it; a failure anywhere is agreed at
  // the next agree() and ends every process with the same error.
  void end_phase_ranks() {
    ex_->agree(failure_.failed() ? failure_.error() : nullptr);
    // The levels open: the set-aside nodes may open new ones.
    std::int64_t levels[2] = {lmin_, -static_cast<std::int64_t>(lmax_)};
    for (std::uint32_t t : active_)
      for (const SetAside& n : tiles_[t]->set_aside) {
        levels[0] = std::min<std::int64_t>(levels[0], n.key.level);
        levels[1] = std::min<std::int64_t>(levels[1], -static_cast<std::int64_t>(n.key.level));
      }
    ex_->min(levels);
    const std::int32_t old_min = lmin_, old_max = lmax_;
    lmin_ = static_cast<std::int32_t>(levels[0]);
    lmax_ = static_cast<std::int32_t>(-levels[1]);
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
      const std::size_t stored = count_;  // the nodes of earlier phases, all copied by now
      const std::size_t slot = claim_slots(local);
      if (lmin_ < old_min || lmax_ > old_max) open_levels(old_min, old_max, stored, out);
      for (std::uint32_t t : active_) send_placed(*tiles_[t], out);
      queue_copies(0, active_.size(), slot);
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

  // A record of the exchange: a node's coordinates and its spacing when it is handed to its tile's
  // owner to wait there, 0 when it only joins the receiver's tree.
  static void push_record(std::vector<double>& to, const Vec<D>& p, double h) {
    for (int a = 0; a < D; ++a) to.push_back(p[a]);
    to.push_back(h);
  }

  // The tile's new nodes to the processes that may read them, and its set-aside nodes to the owners of
  // their tiles. The set-aside nodes are a subsequence of the placed ones, in the same order.
  void send_placed(const Tile& tile, std::vector<std::vector<double>>& out) {
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
    Scratch& s = *scratch_.front();
    for (std::size_t i = 0; i < boundary_pos_.size(); ++i) {
      if (in_tree_[i]) continue;
      newly(boundary_pos_[i]);
      if (std::find(readers_.begin(), readers_.end(), rank_) == readers_.end()) continue;
      tree_.insert_alone(boundary_pos_[i], s.finger);
      in_tree_[i] = true;
    }
  }

  // The nodes the processes sent, taken in rank order, this process's own set-aside nodes in its place.
  void take_nodes(const std::vector<std::vector<double>>& in) {
    Scratch& s = *scratch_.front();  // its thread waits at the barrier while this runs
    for (int src = 0; src < ranks_; ++src) {
      if (src == rank_) {
        hand_over_set_aside();
        continue;
      }
      const std::vector<double>& from = in[static_cast<std::size_t>(src)];
      for (std::size_t k = 0; k + D < from.size(); k += D + 1) {
        Vec<D> p;
        for (int a = 0; a < D; ++a) p[a] = from[k + static_cast<std::size_t>(a)];
        const double h = from[k + D];
        tree_.insert_alone(p, s.finger);
        ++share_.nodes_received;
        if (h > 0.0) enqueue(tile_at(grid_.key_of(p, h)), {p, h}, generation_ + 1);
      }
    }
  }

  // The next phase: the smallest any process has waiting; the fill ends when no process has a phase
  // nor nodes still to copy into its store.
  void agree_next_phase() {
    std::int64_t next[2] = {ready_.empty() || failure_.failed() ? kNoPhase
                                                                                     : pack(ready_.begin()->first),
                            copies_due() ? 0 : 1};
    ex_->min(next);
    active_.clear();
    if (next[0] != kNoPhase) {
      const Phase phase = unpack(next[0]);
      generation_ = phase.generation;
      if (auto it = ready_.find(phase); it != ready_.end()) {
        active_ = std::move(it->second);
        ready_.erase(it);
      }
      ++stats_.phases;
      stats_.tile_runs += active_.size();
    }
    begin_round();
    done_ = next[0] == kNoPhase && next[1] == 1;
  }

  // The output (internal/fill_output.hpp), with the boundary's normals and ids from the caller's
  // vector, or from the rows kept when the fill owned the boundary (the normals are moved, not copied).
  // (With several processes, each returns its share of the boundary rows: boundary_first_ on.)
  template <class BoundaryNodeT>
  Discretization<D> collect(const std::vector<BoundaryNodeT>& boundary) {
    Discretization<D> out = collect_nodes(boundary_local_, boundary.size());
    write_boundary_rows<D>(out, boundary, boundary_first_, boundary_local_);
    return out;
  }
  Discretization<D> collect(BoundaryRows<D>&& rows) {
    Discretization<D> out = collect_nodes(boundary_local_, rows.size());
    write_boundary_rows<D>(out, std::move(rows), boundary_first_, boundary_local_);
    return out;
  }

  // Frees the tree and the tiles, then copies the store into exactly-sized output arrays: positions,
  // bmap, and the interior nodes' types (the nb boundary types and the normals are the caller's).
  // `boundary_total`: the boundary nodes of the whole domain (nb of them are this process's).
  Discretization<D> collect_nodes(std::size_t nb, std::size_t boundary_total) {
    tree_.release();
    std::vector<std::unique_ptr<Tile>>().swap(tiles_);
    decltype(tile_index_)().swap(tile_index_);
    const std::size_t n = count_;
    Discretization<D> out = copy_out<D, Store>(store_, n, nb, boundary_first_, threads_);
    RowShare& share = out.share;
    share.boundary_first = boundary_first_;
    share.total_boundary = boundary_total;
    if (ex_) {
      share = share_;
      share.boundary_first = boundary_first_;
      share.total_boundary = boundary_total;
      share.total_nodes = row_base_;
      share.runs.insert(share.runs.begin(), {boundary_first_, nb});
    } else {
      share.total_nodes = n;
      share.runs = {{0, n}};
    }
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
  std::size_t boundary_first_ = 0, boundary_local_ = 0;  // this process's boundary rows
  std::size_t row_base_ = 0;          // rows of the whole so far
  RowShare share_;                    // this process's runs of interior rows and exchange figures
  std::size_t reserved_;  // nodes the store and tree have room for (FillOptions::reserve_nodes)
  Store<Point> store_;
  TreeOf tree_;
  std::vector<std::unique_ptr<Scratch>> scratch_;  // one per thread
  std::vector<std::unique_ptr<Tile>> tiles_;       // in the order they were first met
  std::unordered_map<TileKey<D>, std::uint32_t, TileKeyHash<D>> tile_index_;
  std::map<Phase, std::vector<std::uint32_t>> ready_;  // tiles with waiting nodes, by phase
  alignas(kFalseSharingBytes) std::atomic<std::uint32_t> ready_lock_{0};  // ready_ during a round (list_scheduled)
  std::size_t count_ = 0;                              // nodes in the store
  struct {
    std::size_t phases = 0, tile_runs = 0, largest_run = 0;
    std::size_t early_hand_overs = 0;  // tiles the runs' threads handed over during the round
  } stats_;
  // The current round (written by the barrier's completion step, read by the team after the barrier).
  std::vector<std::uint32_t> active_;  // this phase's tiles, in the merge order (merge_less)
  std::uint64_t generation_ = 0;       // this phase's generation
  std::vector<std::pair<std::size_t, std::uint32_t>> new_tile_sources_;  // scratch of finish_hand_over
  // The round's items (cut_tiles, cut_copies): k < active_.size() is the tile active_[k], the others
  // the copies.
  std::vector<std::uint32_t> order_;
  std::vector<std::vector<std::uint64_t>> share_lists_;  // scratch of cut_tiles
  Cut cut_;  // scratch of begin_round
  // The next phase, prepared during the round (plan_next_phase) for the completion step to start.
  struct {
    bool ready = false;
    std::uint64_t generation = 0;
    std::vector<std::uint32_t> active;  // its tiles, in the merge order
    Cut cut;
  } plan_;
  // A thread's share of the round, order_[next, end). Whoever takes from it takes the next item (its
  // owner, and a thread whose own share is done): both threads then end the round on short items, where
  // a thief taking the shortest from the back left the owner a longer last one (the idle time of the
  // round's first finisher, 2D 1e6 at 2 threads: 2.9-3.4 µs a phase against 5.6-10 µs).
  struct alignas(kFalseSharingBytes) Share {
    std::atomic<std::size_t> next{0};
    std::size_t end = 0;
  };
  std::unique_ptr<Share[]> shares_;    // each thread's run of tiles, then each thread's copies
  std::unique_ptr<Run[]> runs_;        // each thread's run of the round's tiles, for the hand-over
  std::uint64_t round_ = 0;            // rounds begun
  alignas(kFalseSharingBytes) std::atomic<bool> planning_{false};  // taken by the first thread out of tiles
  HeapTrim trim_;
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
