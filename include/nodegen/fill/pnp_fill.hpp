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
// queue. An atomic cursor hands out batches of claimed slots to expand; a slot is expanded once its
// "written" flag is set (ReadyFlags). The neighbourhood query runs without locks (optimistic); an
// expansion that wants to add nodes then takes the striped spatial locks of the cells its query ball
// touches and re-runs the query under the locks only if some stripe was taken by anyone since just
// before the optimistic query (versioned stripes). It then claims store slots, writes the nodes,
// inserts them in the tree, unlocks, and flags the slots written. Termination: every claimed slot has
// been expanded (finished == claimed).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "nodegen/fill/candidates.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/ready_flags.hpp"
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

// True when no point of `pts` lies strictly within sqrt(r2) of c.
template <int D>
inline bool clear_of(const Vec<D>& c, const std::vector<Vec<D>>& pts, double r2) {
  for (const Vec<D>& q : pts)
    if ((q - c).squaredNorm() < r2) return false;
  return true;
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
    const auto start = std::chrono::steady_clock::now();
    try {
      seed_boundary(boundary);
      if (threads_ > 1) {
        locks_ = std::make_unique<SpatialLocks<D>>(domain_.bounding_box().lo, lock_cell_size(boundary));
        ready_ = std::make_unique<ReadyFlags>(params_.max_nodes);
        for (std::size_t i = 0; i < boundary.size(); ++i) ready_->set(i);
        run_team(threads_, [&](int, int) { worker<true>(); });
      } else {
        worker<false>();
      }
    } catch (const StoreFull& e) {
      throw StoreFull("node cap of " + std::to_string(params_.max_nodes) +
                      " nodes reached before the domain was full (raise max_nodes / --max-nodes, or check "
                      "that the spacing is not far smaller than intended) [" + e.what() + "]");
    }
    Discretization<D> out = collect(boundary);
    out.fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }

 private:
  static constexpr std::size_t kMaxBatch = 64;
  static constexpr std::size_t kProgressEvery = 4096;

  // Per-thread scratch, reused by every expansion of that thread.
  struct Scratch {
    typename SpacingT::Evaluator h;
    std::vector<Vec<D>> candidates, neighbours, accepted;
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

  // Cell edge of the lock grid: at least the diameter of the largest query ball, so a ball touches at
  // most 2 cells per axis. h is sampled on a grid over the bounding box and at the boundary nodes; if
  // the sample misses a larger h somewhere, balls there touch more cells, which SpatialLocks handles.
  template <class BoundaryNodeT>
  double lock_cell_size(const std::vector<BoundaryNodeT>& boundary) const {
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
    for (const auto& b : boundary) hmax = std::max(hmax, h(b.pos));
    const double extent = (box.hi - box.lo).maxCoeff();
    if (!(hmax > 0.0) || !std::isfinite(hmax)) hmax = extent > 0 ? extent : 1.0;
    return 2.0 * reach(hmax) * 1.001;
  }

  // Radius of the ball around p that holds every node able to reject a candidate of p.
  static double reach(double r) { return (r + kZeta * r) * (1.0 + 1e-12); }

  void report_progress(std::size_t n) {
    if (options_.progress) options_.progress->fetch_add(n, std::memory_order_relaxed);
  }

  template <bool Parallel>
  void worker() {
    Scratch s{spacing_.evaluator(), {}, {}, {}, {}, 0};
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
    Backoff idle;
    for (;;) {
      if (Parallel && failed_.load(std::memory_order_relaxed)) return;
      std::size_t first = cursor_.load(std::memory_order_relaxed);
      const std::size_t claimed = claimed_.load(std::memory_order_acquire);
      if (first < claimed) {
        std::size_t take = claimed - first;
        if constexpr (Parallel) {
          take = std::clamp<std::size_t>(take / (2 * static_cast<std::size_t>(threads_)), 1, kMaxBatch);
          if (!cursor_.compare_exchange_weak(first, first + take, std::memory_order_relaxed)) continue;
        } else {
          cursor_.store(first + take, std::memory_order_relaxed);
        }
        for (std::size_t i = first; i < first + take; ++i) {
          // A slot handed out may still be being written by its claimer (rare: the queue is long).
          if (Parallel && !ready_->wait(i, failed_)) return;
          expand<Parallel>(i, s);
        }
        if constexpr (Parallel) finished_.fetch_add(take, std::memory_order_release);
        idle = Backoff{};
        continue;
      }
      if constexpr (!Parallel) return;  // nothing left to expand
      // Done when every claimed slot is expanded. finished is read first, claimed second: equality
      // means that when finished was read no expansion was in progress (an expansion's node is claimed
      // and not yet counted as finished), so no slot can ever be claimed again.
      const std::size_t finished = finished_.load(std::memory_order_acquire);
      if (finished == claimed_.load(std::memory_order_acquire)) return;
      idle.pause();
    }
  }

  void gather_neighbours(const Vec<D>& p, double radius, Scratch& s) const {
    s.neighbours.clear();
    tree_->for_each_within(p, radius, [&](std::uint32_t, const Vec<D>& q) { s.neighbours.push_back(q); });
  }

  // Expands node i: appends the candidates of i that are accepted.
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
    s.accepted.clear();
    for (const Vec<D>& c : s.candidates)
      if (clear_of<D>(c, s.neighbours, rz2) && clear_of<D>(c, s.accepted, rz2) && domain_.contains(c))
        s.accepted.push_back(c);
    if (s.accepted.empty()) return;

    std::size_t first = 0, count = 0;
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
        // keep the accepted candidates that are still clear (in order, against each other too).
        gather_neighbours(p, radius, s);
        std::size_t kept = 0;
        for (std::size_t k = 0; k < s.accepted.size(); ++k) {
          const Vec<D> c = s.accepted[k];
          bool ok = clear_of<D>(c, s.neighbours, rz2);
          for (std::size_t j = 0; ok && j < kept; ++j) ok = (s.accepted[j] - c).squaredNorm() >= rz2;
          if (ok) s.accepted[kept++] = c;
        }
        s.accepted.resize(kept);
        if (kept == 0) return;
      }
      count = s.accepted.size();
      first = append(s.accepted);
      guard.inserted = true;
    } else {
      count = s.accepted.size();
      first = append(s.accepted);
    }

    if constexpr (Parallel)
      for (std::size_t k = 0; k < count; ++k) ready_->set(first + k);
    s.unreported += count;
    if (s.unreported >= kProgressEvery) {
      report_progress(s.unreported);
      s.unreported = 0;
    }
  }

  // Claims slots for the accepted candidates, writes them, inserts them in the tree.
  std::size_t append(const std::vector<Vec<D>>& nodes) {
    const std::size_t first = store_.claim(nodes.size());
    // claimed_ is the queue's end: raise it to cover this claim (claims of other threads may finish
    // in any order, so it is a running maximum).
    std::size_t seen = claimed_.load(std::memory_order_relaxed);
    while (seen < first + nodes.size() &&
           !claimed_.compare_exchange_weak(seen, first + nodes.size(), std::memory_order_release, std::memory_order_relaxed)) {
    }
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      store_.set(first + k, to_stored<D>(nodes[k]));
      tree_->insert(nodes[k], static_cast<std::uint32_t>(first + k));
    }
    return first;
  }

  // Frees the tree, then copies the store into exactly-sized output arrays.
  template <class BoundaryNodeT>
  Discretization<D> collect(const std::vector<BoundaryNodeT>& boundary) {
    tree_.reset();
    locks_.reset();
    ready_.reset();
    const std::size_t n = claimed_.load(std::memory_order_acquire);
    const std::size_t nb = boundary.size();
    Discretization<D> out;
    out.boundary_count = nb;
    out.positions.resize(n);
    out.types.resize(n);
    out.bmap.resize(n);
    out.normals.resize(nb);
    for (std::size_t i = 0; i < n; ++i) out.positions[i] = to_vec<D>(store_.get(i));
    for (std::size_t i = 0; i < nb; ++i) {
      out.types[i] = -static_cast<std::int32_t>(boundary[i].boundary_id);
      out.bmap[i] = static_cast<std::int32_t>(i);
      out.normals[i] = boundary[i].normal;
    }
    std::fill(out.types.begin() + static_cast<std::ptrdiff_t>(nb), out.types.end(), 1);
    std::fill(out.bmap.begin() + static_cast<std::ptrdiff_t>(nb), out.bmap.end(), -1);
    return out;
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
  std::unique_ptr<ReadyFlags> ready_;                  // parallel runs only
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

}  // namespace nodegen
