#pragma once
// The PNP advancing-front fill (Slak & Kosec 2019; Medusa's GeneralFill is the reference), sequential
// and parallel, templated on the storage backend.
//
// Sequential algorithm: the boundary nodes are the first nodes. Nodes are expanded in the order they
// were added: node p with spacing r = h(p) proposes candidates on the circle/sphere of radius r around
// it (randomly rotated); a candidate c is accepted when it lies inside the domain and no node, old or
// just accepted, lies within zeta*r of it. Accepted candidates are appended and expanded in turn.
//
// Speed: one neighbourhood query per expanded node instead of one proximity query per candidate. Every
// node that can reject a candidate of p lies within r + zeta*r of p, so the tree is asked once for that
// ball and the 15-65 candidates are checked against the short list (and against the candidates of p
// already accepted). h is evaluated once per expanded node.
//
// Parallel algorithm (docs/parallel-fill.md has the argument): the append-only node store is the work
// queue. An atomic cursor hands out runs of written slots (QueueFlags: whole segments, at most
// kMaxBatch); a thread expands its run and appends all the nodes the run placed as one new segment,
// so each thread keeps to its own patch of the front. The neighbourhood query runs without locks
// (optimistic); an expansion that wants to add nodes takes the striped spatial locks of the cells its
// query ball touches, re-runs the query under the locks only if some stripe was taken by anyone since
// just before the optimistic query (versioned stripes), inserts the surviving candidates in the tree
// and unlocks. Termination: every claimed slot has been expanded (finished == claimed).
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
#include "nodegen/fill/queue_flags.hpp"
#include "nodegen/fill/spatial_locks.hpp"
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
        flags_ = std::make_unique<QueueFlags>(params_.max_nodes);
        if (nb > 0) flags_->publish_segment(0, nb);
        run_team(threads_, [&](int, int) { worker<true>(); });
      } else {
        worker<false>();
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
  static constexpr std::size_t kProgressEvery = 4096;
  static constexpr std::uint32_t kPendingId = 0xFFFF'FFFFu;

  // Per-thread scratch, reused by every expansion of that thread.
  struct Scratch {
    typename SpacingT::Evaluator h;
    std::vector<Vec<D>> candidates, accepted;
    std::vector<Vec<D>> pending;  // parallel: nodes placed by the current batch, appended at its end
    PointList<D> neighbours;  // nodes near the expanded node, then also its accepted candidates
    typename SpatialLocks<D>::StripeSet stripes;
    std::size_t unreported = 0;  // nodes placed since the last progress update
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

  // Cell edge of the lock grid: twice the diameter of the largest query ball. At least one diameter
  // keeps a ball within 2 cells per axis; at exactly one, a ball almost always straddles a cell edge on
  // every axis and locks 4 stripes (8 in 3D); at two it locks 2.25 (3.4 in 3D) on average, and every
  // stripe is an atomic RMW to take and a store to release. Larger cells make unrelated expansions of
  // the two threads collide more often (a collision costs a repeated query): measured with bench/fill at
  // 2 threads, 1e6 nodes, 5 alternated runs (bench/RESULTS.md, second session), 2 diameters gave 2D +7%
  // and 3D -1% (noise) over 1 diameter; 4 diameters 2D +7%, 3D -5%. h is sampled on a grid over the
  // bounding box and at the nb boundary nodes (the first nb slots of the store); if the sample misses a
  // larger h somewhere, balls there touch more cells, which SpatialLocks handles.
  double lock_cell_size(std::size_t nb) const {
    auto h = spacing_.evaluator();
    const auto& box = domain_.bounding_box();
    constexpr int kSamples = D == 2 ? 64 : 24;
    double hmax = 0.0;
    std::array<int, D> idx{};
    for (;;) {
      Vec<D> x;
      for (int a = 0; a < D; ++a) x[a] = box.lo[a] + (box.hi[a] - box.lo[a]) * (idx[static_cast<std::size_t>(a)] + 0.5) / kSamples;
      hmax = std::max(hmax, h(x));
      int a = 0;
      while (a < D && idx[static_cast<std::size_t>(a)] == kSamples - 1) idx[static_cast<std::size_t>(a++)] = 0;
      if (a == D) break;
      ++idx[static_cast<std::size_t>(a)];
    }
    for (std::size_t i = 0; i < nb; ++i) hmax = std::max(hmax, h(to_vec<D>(store_.get(i))));
    const double extent = (box.hi - box.lo).maxCoeff();
    if (!(hmax > 0.0) || !std::isfinite(hmax)) hmax = extent > 0 ? extent : 1.0;
    constexpr double kBallDiametersPerCell = 2.0;
    return kBallDiametersPerCell * 2.0 * reach(hmax) * 1.001;
  }

  // Radius of the ball around p that holds every node able to reject a candidate of p.
  static double reach(double r) { return (r + kZeta * r) * (1.0 + 1e-12); }

  void report_progress(std::size_t n) {
    if (options_.progress) options_.progress->fetch_add(n, std::memory_order_relaxed);
  }

  template <bool Parallel>
  void worker() {
    Scratch s{spacing_.evaluator(), {}, {}, {}, {}, {}, 0};
    s.neighbours.reserve(256);
    s.accepted.reserve(dirs_.size());
    try {
      work_loop<Parallel>(s);
    } catch (...) {
      failed_.store(true, std::memory_order_relaxed);  // the others stop waiting and return
      throw;
    }
    report_progress(s.unreported);
  }

  template <bool Parallel>
  void work_loop(Scratch& s) {
    if constexpr (Parallel) {
      parallel_loop(s);
    } else {
      // Breadth-first over the store: every node appended is expanded in turn.
      for (std::size_t i = 0; i < claimed_.load(std::memory_order_relaxed); ++i) expand<false>(i, s);
    }
  }

  // Takes runs of published slots (whole segments, cut at kMaxBatch) off the shared cursor, expands
  // them, then appends everything the run placed as one new segment.
  void parallel_loop(Scratch& s) {
    Backoff idle;
    for (;;) {
      if (failed_.load(std::memory_order_relaxed)) return;
      std::size_t first = cursor_.load(std::memory_order_relaxed);
      const std::size_t claimed = claimed_.load(std::memory_order_acquire);
      if (first < claimed && flags_->state(first) != QueueFlags::kEmpty) {
        const std::size_t take = flags_->run_length(first, claimed, kMaxBatch);
        if (!cursor_.compare_exchange_weak(first, first + take, std::memory_order_relaxed)) continue;
        // Every 64 Ki slots the cursor passes, the flags behind it go back to the kernel.
        if (((first + take) >> 16) != (first >> 16)) flags_->discard_before(first);
        s.pending.clear();
        for (std::size_t i = first; i < first + take; ++i) expand<true>(i, s);
        if (!s.pending.empty()) {
          const std::size_t at = append(s.pending);
          flags_->publish_segment(at, s.pending.size());
        }
        finished_.fetch_add(take, std::memory_order_release);
        idle = Backoff{};
        continue;
      }
      // Done when every claimed slot is expanded. finished is read first, claimed second: equality
      // means that when finished was read no batch was in progress (a batch's slots are claimed and
      // not yet counted as finished), so no slot can ever be claimed again.
      const std::size_t finished = finished_.load(std::memory_order_acquire);
      if (finished == claimed_.load(std::memory_order_acquire)) return;
      idle.pause();
    }
  }

  void gather_neighbours(const Vec<D>& p, double radius, Scratch& s) const {
    s.neighbours.clear();
    tree_->for_each_within(p, radius, [&](std::uint32_t, const Vec<D>& q) { s.neighbours.push(q); });
  }

  // Keeps the candidates inside the domain with no node of s.neighbours, nor any candidate kept before
  // them, within zeta*h (rz2 = its square), in order, in s.accepted.
  void select_candidates(double rz2, Scratch& s) const {
    s.accepted.clear();
    for (const Vec<D>& c : s.candidates)
      if (clear_of<D>(c, s.neighbours, rz2) && domain_.contains(c)) {
        s.accepted.push_back(c);
        s.neighbours.push(c);  // later candidates of p keep their distance from it too
      }
  }

  // Expands node i. Sequential: appends the accepted candidates to the store at once. Parallel: makes
  // them visible to the other threads through the tree (under the spatial locks) and keeps them in
  // s.pending, to be appended to the store with the rest of the batch.
  template <bool Parallel>
  void expand(std::size_t i, Scratch& s) {
    const Vec<D> p = to_vec<D>(store_.get(i));
    const double r = s.h(p);
    if (!(r > 0.0) || !std::isfinite(r))
      throw std::runtime_error("spacing h = " + std::to_string(r) + " at a node; h must be positive and finite");
    const double rz2 = (kZeta * r) * (kZeta * r);
    const double radius = reach(r);
    place_candidates<D>(dirs_, p, r, mix64(params_.seed) ^ (i * 0xD1B54A32D192ED03ull), s.candidates);

    if constexpr (Parallel) {
      locks_->stripes_of_ball(p, radius, s.stripes);
      locks_->snapshot(s.stripes);  // before the query: see SpatialLocks::lock
    }
    gather_neighbours(p, radius, s);
    select_candidates(rz2, s);
    if (s.accepted.empty()) return;

    if constexpr (Parallel) {
      struct Unlock {  // releases the stripes on every path, exceptions included
        SpatialLocks<D>& locks;
        typename SpatialLocks<D>::StripeSet& set;
        bool inserted = false;
        ~Unlock() { locks.unlock(set, inserted); }
      };
      const bool exact = locks_->lock(s.stripes);
      Unlock guard{*locks_, s.stripes};
      if (!exact) {
        // Someone inserted near p since the snapshot: redo the query, now exact under the locks, and
        // the whole selection (a candidate may have been turned down only because of one accepted
        // earlier in this expansion that is now rejected).
        gather_neighbours(p, radius, s);
        select_candidates(rz2, s);
        if (s.accepted.empty()) return;
      }
      // The tree is what other threads check against, so the nodes go in before the locks are
      // released. Their store slots are not known yet (claimed per batch), and the fill never reads
      // ids back from the tree, so they are inserted under a placeholder id.
      guard.inserted = true;  // set first: a throwing insert may have inserted some already
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
    flags_.reset();
    const std::size_t n = claimed_.load(std::memory_order_acquire);
    Discretization<D> out;
    out.boundary_count = nb;
    out.positions.resize(n);
    out.types.resize(n);
    out.bmap.resize(n);
    copy_positions(out.positions);
    for (std::size_t i = 0; i < nb; ++i) out.bmap[i] = static_cast<std::int32_t>(i);
    std::fill(out.types.begin() + static_cast<std::ptrdiff_t>(nb), out.types.end(), 1);
    std::fill(out.bmap.begin() + static_cast<std::ptrdiff_t>(nb), out.bmap.end(), -1);
    return out;
  }

  // Copies the store into `positions` (sized). With the VM store, each copied block of the store goes
  // back to the kernel at once (nothing reads the store after this), so the store and the positions are
  // not both resident: the collect phase peaks near max(store, positions) + types/bmap instead of their
  // sum (-23 MB on a 1e6-node cube). The positions' fresh pages are first touched here, block by block.
  // The fill's threads share the blocks (block k goes to thread k mod threads): on 1e6 nodes the copy
  // and its first touches take ~15 ms, 4 % of a 2-thread fill's wall time if done by one thread. A
  // block (2 MiB / sizeof(Point) elements) need not end on a page boundary (3D points are 24 bytes), and
  // the neighbouring block may still be read by another thread, so a thread discards only the pages
  // lying wholly inside its own block: the page a block boundary cuts stays (4 KiB per 2 MiB).
  void copy_positions(std::vector<Vec<D>>& positions) {
    constexpr std::size_t kBlock = (std::size_t{2} << 20) / sizeof(Point);  // 2 MiB of store
    const std::size_t n = positions.size();
    const std::size_t blocks = (n + kBlock - 1) / kBlock;
    const int team = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads_), blocks));
    auto copy_blocks = [&](int tid, int nt) {
      for (std::size_t b = static_cast<std::size_t>(tid); b < blocks; b += static_cast<std::size_t>(nt)) {
        const std::size_t first = b * kBlock, end = std::min(n, first + kBlock);
        for (std::size_t i = first; i < end; ++i) positions[i] = to_vec<D>(store_.get(i));
        if constexpr (std::is_same_v<Store<Point>, VmStore<Point>>)
          discard_pages_within(store_.data() + first, store_.data() + end);
      }
    };
    if (team > 1) run_team(team, copy_blocks);
    else copy_blocks(0, 1);
  }

  const DomainT& domain_;
  const SpacingT& spacing_;
  FillParams params_;
  FillOptions options_;
  int threads_;
  std::vector<Vec<D>> dirs_;
  Store<Point> store_;
  std::unique_ptr<Tree> tree_;
  std::unique_ptr<SpatialLocks<D>> locks_;            // parallel runs only
  std::unique_ptr<QueueFlags> flags_;                  // parallel runs only
  alignas(64) std::atomic<std::size_t> cursor_{0};     // next node to hand out for expansion
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
