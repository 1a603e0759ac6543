#pragma once
// The PNP advancing-front fill (Slak & Kosec 2019; Medusa's GeneralFill is the reference), sequential
// and parallel, templated on the storage backend.
//
// Sequential algorithm: the boundary nodes are the first nodes. Nodes are expanded in the order they
// were added: node p with spacing r = h(p) proposes candidates on the circle/sphere of radius r around
// it (randomly rotated); a candidate c is accepted when it lies inside the domain and no node, old or
// just accepted, lies within zeta*r of it. Accepted candidates are appended and expanded in turn. In
// 2D the ring is tried from the counter-clockwise end of a free run (ring_selection.hpp: the first kept
// candidate sits next to the node that blocks the run, which leaves fewer unfillable voids than
// Medusa's scan from the rotation's position 0: holes p99.9 0.775 h instead of 0.855 h).
//
// Speed: one neighbourhood query per expanded node instead of one proximity query per candidate. Every
// node that can reject a candidate of p lies within r + zeta*r of p, so the tree is asked once for that
// ball and the 15-65 candidates are checked against the short list (and against the candidates of p
// already accepted). h is evaluated once per expanded node.
//
// Parallel algorithm (docs/parallel-fill.md has the argument): the append-only node store holds the
// work. Each thread has a lane of segments (WorkLanes): it takes runs of at most kMaxBatch slots from
// the front of its own lane, expands them, and appends all the nodes a run placed as one new segment
// at the back of its own lane, so each thread keeps advancing its own stretch of the front; an idle
// thread steals half of the fullest lane. A run is expanded in groups of kLockGroup nodes; a group is
// expanded while its thread holds the striped spatial locks of every cell the group's query balls
// touch, so expansions that could conflict never overlap in time. Termination: every claimed slot has
// been expanded (finished == claimed).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "nodegen/fill/boundary_rows.hpp"
#include "nodegen/fill/candidates.hpp"
#include "nodegen/fill/discard_pages.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/ring_selection.hpp"
#include "nodegen/fill/spatial_locks.hpp"
#include "nodegen/fill/work_lanes.hpp"
#include "nodegen/geometry/domain_file.hpp"
#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/storage/thread_team.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {

// A candidate closer than kZeta * h(p) to an existing node is rejected (Medusa's default).
inline constexpr double kZeta = 1.0 - 1e-10;

namespace fill_detail {

// A node position as the store keeps it (Eigen's fixed vectors are not trivially copyable).
template <int D>
using StoredPoint = std::array<double, D>;

template <int D>
inline Vec<D> to_vec(const StoredPoint<D>& s) {
  Vec<D> v;
  for (int a = 0; a < D; ++a) v[a] = s[static_cast<std::size_t>(a)];
  return v;
}
template <int D>
inline StoredPoint<D> to_stored(const Vec<D>& v) {
  StoredPoint<D> s;
  for (int a = 0; a < D; ++a) s[static_cast<std::size_t>(a)] = v[a];
  return s;
}

// Points as one array per coordinate, so the distance tests below vectorise.
template <int D>
struct PointList {
  std::array<std::vector<double>, D> x;
  std::size_t size() const { return x[0].size(); }
  void clear() {
    for (auto& v : x) v.clear();
  }
  void reserve(std::size_t n) {
    for (auto& v : x) v.reserve(n);
  }
  void push(const Vec<D>& p) {
    for (int a = 0; a < D; ++a) x[static_cast<std::size_t>(a)].push_back(p[a]);
  }
};

// True when no point of `pts` lies strictly within sqrt(r2) of c. No early exit: the branch-free loop
// over the short list is faster than a data-dependent break.
template <int D>
inline bool clear_of(const Vec<D>& c, const PointList<D>& pts, double r2) {
  const std::size_t n = pts.size();
  const double* px = pts.x[0].data();
  const double* py = pts.x[1].data();
  const double* pz = pts.x[D - 1].data();
  const double cx = c[0], cy = c[1], cz = c[D - 1];
  int hits = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const double dx = px[j] - cx, dy = py[j] - cy, dz = D == 3 ? pz[j] - cz : 0.0;
    hits += (dx * dx + dy * dy + dz * dz) < r2;
  }
  return hits == 0;
}

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
  using Tree = KdTree<D, Store>;

  PnpFill(const DomainT& domain, const SpacingT& spacing, const FillParams& params, const FillOptions& options)
      : domain_(domain),
        spacing_(spacing),
        params_(params),
        options_(options),
        threads_(std::max(1, options.threads)),
        dirs_(unit_candidates<D>(params.candidates)),
        box_diagonal_(domain.bounding_box().size().norm()),
        store_(params.max_nodes, store_options<typename Store<Point>::Options>(options)),
        tree_(std::make_unique<Tree>(params.max_nodes, store_options<typename Store<Point>::Options>(options))) {}

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
  // `owned`: &boundary when the fill may consume it, else null.
  template <class BoundaryNodeT>
  Discretization<D> run_impl(const std::vector<BoundaryNodeT>& boundary, std::vector<BoundaryNodeT>* owned) {
    const auto start = std::chrono::steady_clock::now();
    const std::size_t nb = boundary.size();
    std::optional<BoundaryRows<D>> rows;
    try {
      seed_boundary(boundary);
      if (owned) rows = take_boundary_rows<D>(std::move(*owned));  // `boundary` is empty from here on
      if (threads_ > 1) {
        locks_ = std::make_unique<SpatialLocks<D>>(domain_.bounding_box().lo, lock_cell_size(nb));
        lanes_ = std::make_unique<WorkLanes>(threads_);
        lanes_->push(0, {0, nb});  // the other threads take their stretches of the boundary by stealing
        run_team(threads_, [&](int tid, int) { worker<true>(tid); });
      } else {
        worker<false>(0);
      }
    } catch (const StoreFull& e) {
      throw StoreFull("node cap of " + std::to_string(params_.max_nodes) +
                      " nodes reached before the domain was full (raise max_nodes / --max-nodes, or check "
                      "that the spacing is not far smaller than intended) [" + e.what() + "]");
    }
    Discretization<D> out = rows ? collect(std::move(*rows)) : collect(boundary);
    out.fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

  static constexpr std::size_t kMaxBatch = 64;
  // Expansions done under one taking of the stripe locks. Smaller groups lock smaller boxes for shorter
  // times, so the other thread waits less often and less long where the two meet; larger ones take the
  // locks less often. bench/fill, 2 threads, 1e6 nodes, 5-6 alternated runs (bench/RESULTS.md, third
  // session): 3D median 5.72e5 / 5.66e5 / 5.57e5 / 5.53e5 nodes/s for groups of 8 / 16 / 32 / 64, 2D
  // 2.54e6 for 8, 16 and 64 alike.
  static constexpr std::size_t kLockGroup = 16;
  static constexpr std::size_t kProgressEvery = 4096;
  static constexpr std::uint32_t kPendingId = 0xFFFF'FFFFu;

  // Per-thread scratch, reused by every expansion of that thread.
  struct Scratch {
    typename SpacingT::Evaluator h;
    std::vector<Vec<D>> candidates, accepted;
    std::vector<Vec<D>> pending;  // parallel: nodes placed by the current run, appended at its end
    PointList<D> neighbours;  // nodes near the expanded node (3D: then also its accepted candidates)
    typename SpatialLocks<D>::StripeSet stripes;
    std::array<Vec<D>, kMaxBatch> run_pos;  // parallel: positions and h of the nodes of the current run
    std::array<double, kMaxBatch> run_h;
    std::size_t unreported = 0;  // nodes placed since the last progress update
    std::vector<unsigned char> ring_free;  // 2D: which ring candidates are free (ring_selection.hpp)
  };

  template <class BoundaryNodeT>
  void seed_boundary(const std::vector<BoundaryNodeT>& boundary) {
    if (boundary.size() > params_.max_nodes)
      throw StoreFull("the domain has " + std::to_string(boundary.size()) + " boundary nodes");
    const std::size_t n = boundary.size();
    if (n == 0) return;
    const std::size_t first = store_.claim(n);
    for (std::size_t i = 0; i < n; ++i) {
      store_.set(first + i, to_stored<D>(boundary[i].pos));
      tree_->insert(boundary[i].pos, static_cast<std::uint32_t>(first + i));
    }
    claimed_.store(first + n, std::memory_order_release);
    report_progress(n);
  }

  // Cell edge of the lock grid: twice the diameter of the query ball of a typical node, so a group of
  // nearby expansions touches a handful of cells (12 stripes per group in 2D, 24 in 3D, measured at
  // constant h). Larger cells make the two threads' groups exclude each other more often where their
  // stretches of the front meet; smaller ones mean more stripes per group (1 diameter: 2D 2.35e6 vs
  // 2.62e6 nodes/s at 2 threads, single runs, third session). "Typical" is counted over the nodes,
  // not over the volume: h is sampled on a grid over the bounding box (inside the domain), each
  // sample weighted by the node density there, 1/h^D, and the h below which 90 % of the nodes lie is
  // taken. Sizing by the largest h instead left a graded spacing (h from 0.008 to 0.108 over a unit
  // cube) with 8 cells in all, so the two threads held the same stripes all the time and 2 threads
  // were no faster than 1. The 90 % point (rather than the median, 75 %, 97 % or 99.5 %) was the
  // fastest on graded 2D and 3D boxes at 2 threads, 2-3 runs each (bench/RESULTS.md).
  double lock_cell_size(std::size_t nb) const {
    auto h = spacing_.evaluator();
    const auto& box = domain_.bounding_box();
    constexpr int kSamples = D == 2 ? 64 : 24;
    std::vector<std::pair<double, double>> samples;  // (h, weight)
    auto sample = [&](const Vec<D>& x) {
      const double hx = h(x);
      if (hx > 0.0 && std::isfinite(hx)) samples.emplace_back(hx, std::pow(hx, -D));
    };
    std::array<int, D> idx{};
    for (;;) {
      Vec<D> x;
      for (int a = 0; a < D; ++a) x[a] = box.lo[a] + (box.hi[a] - box.lo[a]) * (idx[static_cast<std::size_t>(a)] + 0.5) / kSamples;
      if (domain_.contains(x)) sample(x);
      int a = 0;
      while (a < D && idx[static_cast<std::size_t>(a)] == kSamples - 1) idx[static_cast<std::size_t>(a++)] = 0;
      if (a == D) break;
      ++idx[static_cast<std::size_t>(a)];
    }
    if (samples.empty())  // a domain too thin for the grid: its boundary nodes (the first nb slots) instead
      for (std::size_t i = 0; i < nb; ++i) sample(to_vec<D>(store_.get(i)));
    const double extent = (box.hi - box.lo).maxCoeff();
    double typical = extent > 0 ? extent : 1.0;
    if (!samples.empty()) {
      std::sort(samples.begin(), samples.end());
      double total = 0.0, running = 0.0;
      for (const auto& [hx, w] : samples) total += w;
      for (const auto& [hx, w] : samples)
        if ((running += w) >= 0.9 * total) {
          typical = hx;
          break;
        }
    }
    constexpr double kBallDiametersPerCell = 2.0;
    return kBallDiametersPerCell * 2.0 * reach(typical) * 1.001;
  }

  // Radius of the ball around p that holds every node able to reject a candidate of p.
  static double reach(double r) { return (r + kZeta * r) * (1.0 + 1e-12); }

  void report_progress(std::size_t n) {
    if (options_.progress) options_.progress->fetch_add(n, std::memory_order_relaxed);
  }

  template <bool Parallel>
  void worker(int lane) {
    Scratch s{spacing_.evaluator(), {}, {}, {}, {}, {}, {}, {}, 0, {}};
    s.neighbours.reserve(256);
    s.accepted.reserve(dirs_.size());
    try {
      work_loop<Parallel>(s, lane);
    } catch (...) {
      failed_.store(true, std::memory_order_relaxed);  // the others stop waiting and return
      throw;
    }
    report_progress(s.unreported);
  }

  template <bool Parallel>
  void work_loop(Scratch& s, int lane) {
    if constexpr (Parallel) {
      parallel_loop(s, lane);
    } else {
      // Breadth-first over the store: every node appended is expanded in turn.
      for (std::size_t i = 0; i < claimed_.load(std::memory_order_relaxed); ++i) {
        const Vec<D> p = to_vec<D>(store_.get(i));
        expand<false>(i, p, spacing_at(p, s), s);
      }
    }
  }

  // Takes runs off its own lane (stealing when it is empty), expands them, then appends everything a
  // run placed as one new segment on its own lane.
  void parallel_loop(Scratch& s, int lane) {
    Backoff idle;
    for (;;) {
      if (failed_.load(std::memory_order_relaxed)) return;
      WorkLanes::Run run;
      if (lanes_->pop(lane, kMaxBatch, run) || (lanes_->steal(lane) && lanes_->pop(lane, kMaxBatch, run))) {
        s.pending.clear();
        for (std::size_t k = 0; k < run.count; ++k) {
          s.run_pos[k] = to_vec<D>(store_.get(run.first + k));
          s.run_h[k] = spacing_at(s.run_pos[k], s);
        }
        for (std::size_t g = 0; g < run.count; g += kLockGroup)
          expand_group(run.first, g, std::min(run.count, g + kLockGroup), s);
        if (!s.pending.empty()) lanes_->push(lane, {append(s.pending), s.pending.size()});
        finished_.fetch_add(run.count, std::memory_order_release);
        idle = Backoff{};
        continue;
      }
      // Done when every claimed slot is expanded. finished is read first, claimed second: equality
      // means that when finished was read no run was in progress (a run's slots are claimed and not
      // yet counted as finished), so no slot can ever be claimed again.
      const std::size_t finished = finished_.load(std::memory_order_acquire);
      if (finished == claimed_.load(std::memory_order_acquire)) return;
      idle.pause();
    }
  }

  // Expands nodes [from, to) of the current run (slots first + k) while holding the stripes of every
  // cell their query balls touch. A group whose balls spread over more than SpatialLocks::kMaxStripes
  // cells is split in halves; a single node whose ball does (h well above the typical h the lock grid
  // was sized for) takes the stripes of all the cells its ball touches. Such nodes are rare in
  // proportion: where h is k times the typical h, a node takes about k^D times the stripes, and there
  // are k^D times fewer nodes per volume.
  void expand_group(std::size_t first, std::size_t from, std::size_t to, Scratch& s) {
    Vec<D> lo = s.run_pos[from], hi = lo;
    for (std::size_t k = from; k < to; ++k) {
      const double reach_k = reach(s.run_h[k]);
      lo = lo.cwiseMin(Vec<D>(s.run_pos[k].array() - reach_k));
      hi = hi.cwiseMax(Vec<D>(s.run_pos[k].array() + reach_k));
    }
    const bool group = to - from > 1;  // a lone node cannot be split: it always gets a set
    if (!locks_->stripes_of_box(lo, hi, s.stripes, group ? SpatialLocks<D>::kMaxStripes : SpatialLocks<D>::kUnlimited) &&
        group) {
      const std::size_t mid = from + (to - from) / 2;
      expand_group(first, from, mid, s);
      expand_group(first, mid, to, s);
      return;
    }
    struct Unlock {  // releases the stripes on every path, exceptions included
      SpatialLocks<D>& locks;
      const typename SpatialLocks<D>::StripeSet& set;
      ~Unlock() { locks.unlock(set); }
    };
    locks_->lock(s.stripes);
    Unlock guard{*locks_, s.stripes};
    for (std::size_t k = from; k < to; ++k) expand<true>(first + k, s.run_pos[k], s.run_h[k], s);
  }

  double spacing_at(const Vec<D>& p, Scratch& s) const {
    const double r = s.h(p);
    if (!(r > 0.0) || !std::isfinite(r))
      throw std::runtime_error("spacing h = " + std::to_string(r) + " at a node; h must be positive and finite");
    return r;
  }

  // Not inlined, on purpose: inlined into the sequential loop and into the locked group separately, the
  // compiler laid out the k-d tree query differently in each; in one build the parallel path on one
  // thread ran 2.6-2.8e5 nodes/s in 3D and the sequential path 3.1-3.8e5 (bench/fill, 1e6 nodes, 4-5
  // alternated runs), which skews every 2-thread/1-thread ratio. One out-of-line copy runs the same
  // code on both paths (KdTree::search_leaves is kept out of line for the same reason).
  //
  // The expanded node p itself is left out: its candidates lie at distance r from it by construction,
  // but only up to the rounding of their coordinates, and zeta's margin (1e-10 r) is below that
  // rounding once |x| / r exceeds ~1e5 (a domain at x = 1e6 with h = 0.01: each coordinate rounds by
  // 1.2e-10, 1.7e-8 r). There the parent rejected its own candidates at random: 10 % fewer nodes,
  // packing 0.64 instead of 0.71 and holes p99.9 0.96 h instead of 0.81 h. Any other node at exactly r
  // from a candidate is a coincidence of measure zero. (The tree holds p's stored coordinates, the
  // very doubles p was read from, so the test is exact.)
  [[gnu::noinline]] void gather_neighbours(const Vec<D>& p, double radius, Scratch& s) const {
    s.neighbours.clear();
    tree_->for_each_within(p, radius, [&](std::uint32_t, const Vec<D>& q) {
      if (q != p) s.neighbours.push(q);
    });
  }

  // Keeps the candidates inside the domain with no node of s.neighbours, nor any candidate kept before
  // them, within zeta*h (rz2 = its square), in s.accepted: 2D in ring_selection.hpp's order, 3D in order.
  void select_candidates(double rz2, Scratch& s) const {
    s.accepted.clear();
    if constexpr (D == 2) {
      auto is_free = [&](const Vec<2>& c) { return clear_of<2>(c, s.neighbours, rz2) && domain_.contains(c); };
      select_on_ring(s.candidates, rz2, is_free, s.ring_free, s.accepted);
    } else {
      for (const Vec<D>& c : s.candidates)
        if (clear_of<D>(c, s.neighbours, rz2) && domain_.contains(c)) {
          s.accepted.push_back(c);
          s.neighbours.push(c);  // later candidates of p keep their distance from it too
        }
    }
  }

  // Proposes the candidates of node i at p with spacing r and keeps in s.accepted those that survive;
  // false when none does.
  bool propose(std::size_t i, const Vec<D>& p, double r, Scratch& s) const {
    const double rz2 = (kZeta * r) * (kZeta * r);
    // p lies in the domain's box, so with r above the box's diagonal every candidate lies outside it and
    // none can be accepted. Such a node (h 1e10 on part of the domain) would otherwise ask the tree for
    // its whole content: at 1e6 nodes those queries took 18-75 s of a torus mesh run.
    if (r > box_diagonal_) return false;
    place_candidates<D>(dirs_, p, r, mix64(params_.seed) ^ (i * 0xD1B54A32D192ED03ull), s.candidates);
    gather_neighbours(p, reach(r), s);
    select_candidates(rz2, s);
    return !s.accepted.empty();
  }

  // Expands node i at p with spacing r. Sequential: appends the accepted candidates to the store at
  // once. Parallel (the caller holds the stripes of p's query ball): makes them visible to the other
  // threads through the tree and keeps them in s.pending, to be appended to the store with the rest of
  // the run.
  template <bool Parallel>
  void expand(std::size_t i, const Vec<D>& p, double r, Scratch& s) {
    if (!propose(i, p, r, s)) return;
    if constexpr (Parallel) {
      // A node's store slot is known only when the run's nodes are appended at its end, and the fill
      // never reads ids back from the tree, so they go in under a placeholder id.
      for (const Vec<D>& c : s.accepted) tree_->insert(c, kPendingId);
      s.pending.insert(s.pending.end(), s.accepted.begin(), s.accepted.end());
    } else {
      const std::size_t first = append(s.accepted);
      for (std::size_t k = 0; k < s.accepted.size(); ++k)
        tree_->insert(s.accepted[k], static_cast<std::uint32_t>(first + k));
    }
    s.unreported += s.accepted.size();
    if (s.unreported >= kProgressEvery) {
      report_progress(s.unreported);
      s.unreported = 0;
    }
  }

  // Claims consecutive slots for `nodes` and writes them; raises claimed_ to cover them.
  std::size_t append(const std::vector<Vec<D>>& nodes) {
    const std::size_t first = store_.claim(nodes.size());
    for (std::size_t k = 0; k < nodes.size(); ++k) store_.set(first + k, to_stored<D>(nodes[k]));
    // claimed_ is the queue's end, a running maximum (claims may complete out of order).
    std::size_t seen = claimed_.load(std::memory_order_relaxed);
    while (seen < first + nodes.size() &&
           !claimed_.compare_exchange_weak(seen, first + nodes.size(), std::memory_order_release,
                                           std::memory_order_relaxed)) {
    }
    return first;
  }

  // The output, with the boundary's normals and ids from the caller's vector...
  template <class BoundaryNodeT>
  Discretization<D> collect(const std::vector<BoundaryNodeT>& boundary) {
    const std::size_t nb = boundary.size();
    Discretization<D> out = collect_nodes(nb);
    out.normals.resize(nb);
    for (std::size_t i = 0; i < nb; ++i) {
      out.types[i] = -static_cast<std::int32_t>(boundary[i].boundary_id);
      out.normals[i] = boundary[i].normal;
    }
    return out;
  }
  // ... or from the rows kept when the fill owned the boundary (the normals are moved, not copied).
  Discretization<D> collect(BoundaryRows<D>&& rows) {
    Discretization<D> out = collect_nodes(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) out.types[i] = -rows.ids[i];
    out.normals = std::move(rows.normals);
    return out;
  }

  // Frees the tree, then copies the store into exactly-sized output arrays: positions, bmap, and the
  // interior nodes' types (the nb boundary types and the normals are the caller's).
  Discretization<D> collect_nodes(std::size_t nb) {
    tree_.reset();
    locks_.reset();
    lanes_.reset();
    const std::size_t n = claimed_.load(std::memory_order_acquire);
    Discretization<D> out;
    out.boundary_count = nb;
    out.positions.resize(n);
    out.types.resize(n);  // not written yet (DefaultInitAllocator): copy_nodes writes them on the team
    out.bmap.resize(n);
    copy_nodes(out, nb);
    return out;
  }

  // Copies the store into out.positions (sized) and writes out.bmap (row i for the nb boundary nodes,
  // -1 after) and out.types (1; the caller then writes the boundary's). With the VM store, each copied block of the store goes
  // back to the kernel at once (nothing reads the store after this), so the store and the positions are
  // not both resident: the collect phase peaks near max(store, positions) + types/bmap instead of their
  // sum (-23 MB on a 1e6-node cube). The positions' fresh pages are first touched here, block by block.
  // The fill's threads share the blocks (parallel_for: contiguous runs of blocks): on 1e6 nodes the copy
  // and its first touches take ~15 ms, 4 % of a 2-thread fill's wall time if done by one thread. A
  // block (2 MiB / sizeof(Point) elements) need not end on a page boundary (3D points are 24 bytes), and
  // the neighbouring block may still be read by another thread, so a thread discards only the pages
  // lying wholly inside its own block: the page a block boundary cuts stays (4 KiB per 2 MiB).
  void copy_nodes(Discretization<D>& out, std::size_t nb) {
    constexpr std::size_t kBlock = (std::size_t{2} << 20) / sizeof(Point);  // 2 MiB of store
    const std::size_t n = out.positions.size();
    parallel_for((n + kBlock - 1) / kBlock, threads_, [&](int, std::size_t b) {
      const std::size_t first = b * kBlock, end = std::min(n, first + kBlock);
      for (std::size_t i = first; i < end; ++i) {
        out.positions[i] = to_vec<D>(store_.get(i));
        out.types[i] = 1;
        out.bmap[i] = i < nb ? static_cast<std::int32_t>(i) : -1;
      }
      if constexpr (std::is_same_v<Store<Point>, VmStore<Point>>)
        discard_pages_within(store_.data() + first, store_.data() + end);
    });
  }

  const DomainT& domain_;
  const SpacingT& spacing_;
  FillParams params_;
  FillOptions options_;
  int threads_;
  std::vector<Vec<D>> dirs_;
  double box_diagonal_;
  Store<Point> store_;
  std::unique_ptr<Tree> tree_;
  std::unique_ptr<SpatialLocks<D>> locks_;            // parallel runs only
  std::unique_ptr<WorkLanes> lanes_;                   // parallel runs only
  alignas(64) std::atomic<std::size_t> claimed_{0};    // slots [0, claimed_) are claimed (maybe not yet written)
  alignas(64) std::atomic<std::size_t> finished_{0};   // nodes whose expansion is complete
  alignas(64) std::atomic<bool> failed_{false};
};

}  // namespace fill_detail

// Fills `domain` (anything with contains(Vec<D>) and bounding_box()) with nodes at spacing h, starting
// from `boundary` (elements with pos, normal, boundary_id). Deterministic for a seed with one thread.
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
