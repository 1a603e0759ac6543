#pragma once
// What the fill hands to io/ and the CLI: the options of a run and the nodes it placed
// (docs/architecture.md, "Rules each layer keeps").
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "nodegen/fill/backend.hpp"
#include "nodegen/storage/default_init_allocator.hpp"
#include "nodegen/fill/phase_exchange.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/store_concept.hpp"

namespace nodegen {

// Per-phase timings of a fill (docs/parallel-fill.md, "Scaling model"): for every phase, the seconds of
// each item of its round (first the planning of the next phase when it ran as the round began, else 0;
// then its tiles, then the copies of the previous phase's nodes, in the order the items were handed
// out); of the work one thread does alone (the completion step, with the planning when it ran there,
// and the heap trim); and of the hand-over its threads did during the round, each its own run of
// tiles. Recording costs two clock reads per item.
//
// Beside each item, the tile it expanded (none for the planning and the copies) and each round's
// generation: what a model of other schedules needs to know which items may run at once
// (bench/fill/fill_dataflow_model.py).
struct PhaseLog {
  struct ItemTile {
    bool tile = false;           // false: the planning or a copy
    std::int32_t level = 0;      // the tile's level (tile_grid.hpp)
    double lo[3] = {}, hi[3] = {};  // its cell (z = 0 in 2D)
  };
  std::vector<std::vector<float>> item_seconds;
  std::vector<std::vector<ItemTile>> item_tiles;  // item_tiles[p][i] beside item_seconds[p][i]
  std::vector<std::uint64_t> generations;          // each round's generation
  std::vector<float> completion_seconds;
  std::vector<float> handover_seconds;
  // The space-rule fill (FillOptions::space_rule): the seconds its lock was held after items, for
  // their hand-over and the next item's dispatch, and the items (the rounds above stay empty).
  double lock_seconds = 0.0;
  std::size_t lock_items = 0;
};

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

struct FillOptions {
  int threads = 1;
  // The boundary nodes alone (fill_domain): no interior fill, for PDEs on surfaces.
  bool boundary_only = false;
  Backend backend = Backend::vm;
  bool prefault = false;    // VmStore only: populate pages ahead of the append frontier
  bool huge_pages = false;  // VmStore only: MADV_HUGEPAGE on the reservations
  // Nodes the store and the k-d tree reserve room for, below the cap (FillParams::max_nodes): the fill
  // throws ReservationFull when they run out first. 0: the cap. fill_domain sizes it by the domain
  // file's estimate and fills again with more room when it was too small.
  std::size_t reserve_nodes = 0;
  // Relaxed count of nodes placed (boundary included), updated every few thousand nodes, for a progress bar.
  std::atomic<std::size_t>* progress = nullptr;
  // Set (by another thread, a signal handler) to end the fill early: its threads stop at their next
  // tile and the fill throws FillStopped. Read relaxed; null: never.
  const std::atomic<bool>* stop = nullptr;
  PhaseLog* phase_log = nullptr;  // filled when set (benchmarks only)
  // Items run as the space rule lets them, without rounds (fill/internal/space_rule_fill.hpp), instead
  // of in phases between barriers; the nodes are the same. One process only (several keep the phases).
  bool space_rule = false;
  // Several processes filling one domain together (MPI ranks): each fills the tiles it owns and
  // returns its own rows (Discretization::share). Null: this process fills everything.
  PhaseExchange* exchange = nullptr;
  // Nodes within reach of an expanded node beyond which its candidates ask the tree one by one instead
  // of being checked against the gathered nodes (internal/node_rule.hpp, gather_neighbours): far more
  // than a smooth spacing puts there (tens), few enough that gathering them costs little beside the
  // queries.
  // The nodes are the same at any value; tests set 0 to take the one-by-one path everywhere.
  std::size_t crowd = 4096;
};

// A fill ended by FillOptions::stop.
class FillStopped : public std::runtime_error {
 public:
  FillStopped() : std::runtime_error("the fill was stopped") {}
};

// How one of several processes' rows fit in the whole (FillOptions::exchange); one process holds
// everything: a single run.
struct RowShare {
  std::vector<std::pair<std::size_t, std::size_t>> runs;  // (first row in the whole, count), in local order
  std::size_t boundary_first = 0;  // the whole's row of this process's first boundary node
  std::size_t total_nodes = 0, total_boundary = 0;  // of the whole
  // Nodes sent to other processes (halo and set-aside nodes), their bytes, the most bytes sent after
  // one phase, and the nodes received.
  std::size_t nodes_sent = 0, bytes_sent = 0, largest_phase_bytes = 0, nodes_received = 0;
};

// Boundary nodes first (rows 0 .. boundary_count-1, in the order the geometry produced them), then the
// interior nodes in the order they were placed. Medusa's conventions: types = -boundary_id on the
// boundary and +1 inside; bmap = row into `normals` on the boundary, -1 inside.
template <int D>
struct Discretization {
  static constexpr int kDim = D;
  std::vector<Vec<D>> positions;
  std::vector<std::int32_t, DefaultInitAllocator<std::int32_t>> types;  // written by the fill's threads
  std::vector<std::int32_t, DefaultInitAllocator<std::int32_t>> bmap;
  std::vector<Vec<D>> normals;
  std::size_t boundary_count = 0;
  double fill_seconds = 0.0;      // boundary placement + interior fill (fill_domain), or the fill alone
  double boundary_seconds = 0.0;  // the boundary placement's share of fill_seconds (fill_domain only)
  // How the fill's work was cut (pnp_fill.hpp): phases run, tiles expanded over all phases, and the most
  // nodes one tile placed in one phase. The scaling model of docs/parallel-fill.md is fed with them.
  std::size_t phases = 0, tile_runs = 0, largest_tile_run = 0;
  // Tile runs whose set-aside nodes their run's thread handed over during the round (pnp_fill.hpp,
  // hand_over_run), the rest by the completion step.
  std::size_t early_hand_overs = 0;
  // fill_domain: the room the last fill reserved (FillOptions::reserve_nodes) and how many fills ran
  // (more than one when an estimate left too little room; the nodes are the same).
  std::size_t reserved_nodes = 0;
  int fill_runs = 1;
  RowShare share;  // this process's rows in the whole (the first boundary_count are boundary nodes)
};

using AnyDiscretization = std::variant<Discretization<2>, Discretization<3>>;

}  // namespace nodegen
