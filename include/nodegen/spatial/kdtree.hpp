#pragma once
// KdTree<D, Store>: an insert-only k-d tree for 2D and 3D points that many threads insert into and
// query at the same time, with no global lock.
//
// Layout (kdtree_layout.hpp): internal nodes (16 bytes) live in an arena from the storage layer, leaf
// buckets (coordinates stored per dimension) in one arena per size class (kdtree_buckets.hpp: a leaf's
// bucket is the smallest class that holds its points, 4, 8, ..., LeafSize, so leaves are nearly full
// whatever N is); slots are claimed by the store's atomic fetch_add in per-thread batches
// (claim_batches.hpp); links between them are 32-bit indices. Nothing shared is written on the insert
// path but the leaf itself (no global counter: size() walks), except when a leaf moves to another
// bucket (the per-stripe list its old bucket is retired to).
//
// Balance (kdtree_split.hpp): a full leaf splits at the midpoint of its cell, so the tree does not
// depend on insertion order and advancing-front order stays O(log n) deep. The root cell is set when
// the root leaf first splits and doubles (a new root above the old one) when a point falls outside.
//
// Concurrency:
//   - Writers lock only the leaf they append to (a spin lock in its bucket). An append writes the
//     point and then release-stores the bucket's count. A full bucket moves: to a bucket of the next
//     class (its points plus the new one; of the largest class if a second thread has written to
//     the leaf, grow_leaf), or, at LeafSize, into a split subtree whose halves get buckets of their
//     own classes. The new bucket(s) are written off to the side and published with
//     a release store of the parent's link; then the old bucket is retired, and it is reused for
//     another leaf of its class only after the owner's next quiescent point (reuse_retired: no
//     insert or query in flight; the fill calls it at its phase barrier).
//   - Readers take no lock. They acquire-load links and a leaf's count, and read the points below
//     the count with plain loads (vectorised): those were written before the count was published and
//     do not change until the bucket is reused, which waits for the reader to finish. A leaf that
//     moves while a reader scans it leaves the reader a consistent snapshot of its older bucket:
//     every insert that completed before the query began is in it (an insert into the leaf's newer
//     bucket comes after the move's link store, so the query would have read the newer link). Each
//     link is read once per query, so no point is reported twice. A walk that lists leaves before scanning
//     them (search_leaves, Batched) scans a bucket a little after reading its link; the bucket stays
//     as it was until the next quiescent point, so the same holds.
//   - Queries allocate nothing: their traversal stack is a fixed array bounded by the depth limit.
//   - A thread may walk from its Finger (the path of its last insert) instead of from the root: an
//     insert from the deepest cell on it that holds the point, a query from the deepest that holds
//     the ball. Cells of published internal nodes never change, so the answers are the same.
//
// Ids (PointIds below): a tree that reports which point it found (nearest, knn, the id argument of
// for_each_within's callback) keeps a 32-bit id beside every point; a tree that only answers where
// points are (the fill's, which tests candidates against the positions of their neighbours) keeps
// none: 4 bytes a point (a sixth of a 2D leaf's bytes with doubles, a third on the grid).
//
// Coordinates (Coords below, grid_frame.hpp): a tree keeps its points' coordinates as doubles, or on
// a fixed grid of 2^32 steps per axis as 32-bit integers, half a leaf's bytes: the fill's tree, whose
// copy of the nodes is the largest thing beside the node store. A grid tree keeps its points rounded
// to the grid once, at insert; moves and splits copy the stored integers, so a point never moves
// again. Its leaf tests take the query rounded by up to 2^-22 of a step and its walk prunes a step or
// two wide of each split plane (prune_r2, plane_gap), so its answers depend on the points and the query
// alone.
//
// Limits: depth is capped (kMaxSplitDepth below the root plus kMaxRootGrowth growth levels); a split
// that would exceed it (more than LeafSize points closer together than the floating-point resolution
// of their cell, e.g. duplicates) throws std::length_error. The arenas are sized from max_points;
// exhausting them throws StoreFull.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "nodegen/spatial/arena.hpp"
#include "nodegen/spatial/atomic_field.hpp"
#include "nodegen/spatial/claim_batches.hpp"
#include "nodegen/spatial/grid_frame.hpp"
#include "nodegen/spatial/kdtree_buckets.hpp"
#include "nodegen/spatial/kdtree_layout.hpp"
#include "nodegen/spatial/kdtree_split.hpp"
#include "nodegen/spatial/leaf_distances.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {

// Whether a KdTree keeps an id beside each point (header comment, "Ids").
enum class PointIds : bool { none = false, kept = true };

template <int D, template <class> class Store = VmStore, int LeafSize = 32, PointIds Ids = PointIds::kept,
          Coords C = Coords::exact>
class KdTree {
  static_assert(D == 2 || D == 3, "KdTree is for 2D and 3D points");
  static_assert(LeafSize >= 2 && LeafSize <= 255, "leaf size out of range");

  using Link = spatial_detail::Link;
  using Slot = spatial_detail::Slot;
  using Node = spatial_detail::Node;
  static constexpr bool kIds = Ids == PointIds::kept;
  static constexpr bool kGrid = C == Coords::grid;
  // How a leaf keeps a coordinate (grid_frame.hpp).
  using Coord = std::conditional_t<kGrid, std::int32_t, double>;
  using Buckets = spatial_detail::BucketArenas<D, Store, LeafSize, kIds, Coord>;
  using Classes = spatial_detail::LeafClasses<LeafSize>;
  using CellD = spatial_detail::Cell<D>;

 public:
  using Options = typename Store<Node>::Options;
  static constexpr int kLeafSize = LeafSize;
  // The id for_each_within reports for every point of a tree that keeps no ids.
  static constexpr std::uint32_t kNoId = 0xFFFF'FFFFu;
  static constexpr int kMaxSplitDepth = 160;
  static constexpr int kMaxRootGrowth = 90;
  class Finger;  // below: a thread's place in the tree

  // max_points sizes the arenas (address space only with the VM store; nothing is committed).
  // options: the backend's Options (for backends whose Options type depends on the element type, such
  // as LockedVectorStore<T>::Options, the Options of any element type is accepted).
  template <class StoreOptions = Options>
  explicit KdTree(std::size_t max_points, const StoreOptions& options = {})
    requires(!kGrid)
      : KdTree(max_points, GridFrame<D>{}, options) {}
  // A tree that keeps its points on `frame`'s grid (Coords::grid; grid_frame.hpp): every point must lie
  // in the frame.
  template <class StoreOptions = Options>
  KdTree(std::size_t max_points, const GridFrame<D>& frame, const StoreOptions& options = {})
      : frame_(frame),
        buckets_(max_points, options),
        nodes_(node_capacity(max_points), options),
        node_claims_(nodes_, kNodeBatch) {
    auto first = std::make_unique<RootRecord>();
    first->link = buckets_.take(0, spatial_detail::kNoWriter);  // the first insert may come from any thread
    first->bounded = false;
    first->cell = CellD::unbounded();
    first->growths = 0;
    root_.store(first.get(), std::memory_order_release);
    root_records_.push_back(std::move(first));
  }

  KdTree(const KdTree&) = delete;
  KdTree& operator=(const KdTree&) = delete;

  // Thread-safe; the point is visible to every query that starts after this returns.
  void insert(const Vec<D>& point, std::uint32_t id)
    requires kIds
  {
    insert_from(point, id, nullptr);
  }

  // The same, descending from the deepest cell of `finger` (the calling thread's own) that holds the
  // point instead of from the root, and leaving the finger on this insert's path.
  void insert(const Vec<D>& point, std::uint32_t id, Finger& finger)
    requires kIds
  {
    insert_from(point, id, &finger);
  }

  // The same for a tree that keeps no ids.
  void insert(const Vec<D>& point)
    requires(!kIds)
  {
    insert_from(point, kNoId, nullptr);
  }
  void insert(const Vec<D>& point, Finger& finger)
    requires(!kIds)
  {
    insert_from(point, kNoId, &finger);
  }

  // Makes the leaf buckets retired since the last call reusable (kdtree_buckets.hpp). Call it only
  // when no thread is inserting or querying and every earlier insert and query happens-before the
  // call: in the completion step of a barrier of the threads that use the tree, after joining them,
  // or at any moment in a tree whose inserts and queries all come from the calling thread. Nothing
  // checks this: a call while a query runs lets a bucket it scans be rewritten under it (a data race,
  // and an answer that may miss or invent points). A tree whose owner never calls it reuses no
  // bucket: a leaf that grows from 4 to 32 points leaves buckets of 4, 8, ..., 28 behind.
  void reuse_retired() { buckets_.reuse_retired(); }

  // The point as the tree keeps it and reports it: p itself, or in a grid tree p rounded to the grid
  // (grid_frame.hpp). Throws std::out_of_range for a point outside a grid tree's frame.
  Vec<D> kept(const Vec<D>& p) const {
    Vec<D> k;
    for (int d = 0; d < D; ++d) k[d] = kept(p[d], d);
    return k;
  }

 private:
  void insert_from(const Vec<D>& point, std::uint32_t id, Finger* finger) {
    // The point as kept: pc in its stored form (what the leaves hold), p decoded (what the walk
    // compares with split values and cells).
    double p[D];
    Coord pc[D];
    for (int d = 0; d < D; ++d) {
      if (!std::isfinite(point[d])) throw std::invalid_argument("KdTree::insert: non-finite coordinate");
      pc[d] = encode(point[d], d);
      p[d] = decode(pc[d], d);
    }
    for (;;) {
      const RootRecord* root = root_.load(std::memory_order_acquire);
      if (root->bounded && !root->cell.contains(p)) {
        grow_root(p);
        continue;
      }
      if (finger)
        while (finger->size > 0 && !finger->cell[finger->size - 1].contains(p)) --finger->size;
      if (insert_below(*root, p, pc, id, finger)) return;
    }
  }

 public:

  // Is there a point p with |p - q| < r? Stops after the first leaf that holds one.
  bool exists_within(const Vec<D>& q, double r) const {
    // NaN coordinates equal none: no point is left out.
    return exists_within(q, r, Vec<D>::Constant(std::numeric_limits<double>::quiet_NaN()));
  }

  // The same for points other than `except` (a point at exactly the coordinates of `except` as the
  // tree keeps them is left out: the caller's own node, which rounding may put within r of q). The
  // squared distance is the sum over the axes of (p - q)^2 in axis order, compared with r * r: in an
  // exact tree a caller that computes it so from the points gets the same answer; a grid tree's is
  // that up to the rounding of q against its grid (distances2).
  bool exists_within(const Vec<D>& q, double r, const Vec<D>& except) const {
    return exists_within_from(q, r, except, spatial_detail::kRootSlot);
  }
  // The same two, searching below the deepest cell of `finger` (the calling thread's) that holds the
  // whole ball instead of from the root, as for_each_within does: the same answer, a shorter walk when
  // q lies near the thread's last insert.
  bool exists_within(const Vec<D>& q, double r, const Finger& finger) const {
    return exists_within(q, r, Vec<D>::Constant(std::numeric_limits<double>::quiet_NaN()), finger);
  }
  bool exists_within(const Vec<D>& q, double r, const Vec<D>& except, const Finger& finger) const {
    return exists_within_from(q, r, except, finger.slot_holding(q, r + ball_slack()));
  }

 private:
  bool exists_within_from(const Vec<D>& q, double r, const Vec<D>& except, Slot start) const {
    if (!(r > 0)) return false;
    double qa[D];
    for (int d = 0; d < D; ++d) qa[d] = q[d];
    Coord skip[D] = {};  // NaN (none) in an exact tree; a grid tree's `except` off its frame is no point of it
    bool can_skip = true;
    for (int d = 0; d < D; ++d) {
      if constexpr (kGrid) can_skip = can_skip && frame_.try_encode(except[d], d, skip[d]);
      else skip[d] = except[d];
    }
    const double r2u = r2_in_units(r * r);
    return range_search(qa, prune_r2(r), [&](auto& bucket, std::uint32_t n, bool& found) {
      found = false;
      for_each_in_ball(bucket, n, qa, r2u, [&](std::uint32_t i) {
        bool same = can_skip;
        for (int d = 0; d < D; ++d) same = same && bucket.coord(d, i) == skip[d];
        found = found || !same;
      });
    }, [] {}, start);
  }

 public:
  // Calls f(id, position) for every point with |p - q| < r (each exactly once, in no fixed order); the
  // id is kNoId in a tree that keeps none.
  template <class F>
  void for_each_within(const Vec<D>& q, double r, F&& f) const {
    for_each_within_from(q, r, f, spatial_detail::kRootSlot, kNoLimit);
  }
  // The same, searching below the deepest cell of `finger` that holds the whole ball instead of from
  // the root (the same points: no point of the ball lies outside that cell). With a `limit`, the search
  // stops once more than `limit` points were found, having shown f some of them (up to a leaf's worth
  // more than the limit): false then, true when f saw every point of the ball.
  template <class F>
  bool for_each_within(const Vec<D>& q, double r, F&& f, const Finger& finger, std::size_t limit = kNoLimit) const {
    return for_each_within_from(q, r, f, finger.slot_holding(q, r + ball_slack()), limit);
  }

 private:
  static constexpr std::size_t kNoLimit = std::numeric_limits<std::size_t>::max();

  template <class F>
  bool for_each_within_from(const Vec<D>& q, double r, F&& f, Slot start, std::size_t limit) const {
    if (!(r > 0)) return true;
    double qa[D];
    for (int d = 0; d < D; ++d) qa[d] = q[d];
    const double r2u = r2_in_units(r * r);
    // A leaf's matches are buffered and handed to f after its scan, so f's work stays out of the
    // scan's loop.
    std::uint32_t hit_id[LeafSize];
    double hit_pos[LeafSize][D];
    int hits = 0;
    std::size_t shown = 0;
    return !range_search<true>(qa, prune_r2(r), [&](auto& bucket, std::uint32_t n, bool& stop) {
      stop = false;
      hits = 0;
      for_each_in_ball(bucket, n, qa, r2u, [&](std::uint32_t i) {
        if constexpr (kIds) hit_id[hits] = bucket.id(i);
        else hit_id[hits] = kNoId;
        for (int d = 0; d < D; ++d) hit_pos[hits][d] = decode(bucket.coord(d, i), d);
        ++hits;
      });
    }, [&] {
      Vec<D> v;
      for (int h = 0; h < hits; ++h) {
        for (int d = 0; d < D; ++d) v[d] = hit_pos[h][d];
        f(hit_id[h], static_cast<const Vec<D>&>(v));
      }
      shown += static_cast<std::size_t>(hits);
      return shown > limit;  // checked once a leaf, out of the scan's loop
    }, start);
  }

 public:

  // The nearest point: (id, distance), or nullopt when the tree is empty.
  std::optional<std::pair<std::uint32_t, double>> nearest(const Vec<D>& q) const
    requires kIds
  {
    struct Best {
      std::uint32_t id = 0;
      double d2 = std::numeric_limits<double>::infinity();
      bool any = false;
      double bound() const { return d2; }
      void offer(std::uint32_t i, double dist2) {
        if (!any || dist2 < d2 || (dist2 == d2 && i < id)) {
          id = i;
          d2 = dist2;
          any = true;
        }
      }
    } best;
    nearest_search(q, best);
    if (!best.any) return std::nullopt;
    return std::make_pair(best.id, std::sqrt(best.d2));
  }

  // The k nearest points as (id, distance) sorted by distance (ties by id) into out, which is cleared
  // first; no allocation when out already has capacity for k entries.
  void knn(const Vec<D>& q, int k, std::vector<std::pair<std::uint32_t, double>>& out) const
    requires kIds
  {
    out.clear();
    if (k <= 0) return;
    out.reserve(static_cast<std::size_t>(k));
    // out is a max-heap on (squared distance, id) while searching.
    struct Heap {
      std::vector<std::pair<std::uint32_t, double>>& h;
      std::size_t k;
      static bool before(const std::pair<std::uint32_t, double>& a,
                         const std::pair<std::uint32_t, double>& b) {
        return a.second < b.second || (a.second == b.second && a.first < b.first);
      }
      double bound() const {
        return h.size() < k ? std::numeric_limits<double>::infinity() : h.front().second;
      }
      void offer(std::uint32_t i, double dist2) {
        const std::pair<std::uint32_t, double> c{i, dist2};
        if (h.size() < k) {
          h.push_back(c);
          std::push_heap(h.begin(), h.end(), before);
        } else if (before(c, h.front())) {
          std::pop_heap(h.begin(), h.end(), before);
          h.back() = c;
          std::push_heap(h.begin(), h.end(), before);
        }
      }
    } heap{out, static_cast<std::size_t>(k)};
    nearest_search(q, heap);
    std::sort_heap(out.begin(), out.end(), Heap::before);
    for (auto& e : out) e.second = std::sqrt(e.second);
  }

  // Points in the tree: every insert that completed before the call is counted, none twice (it reads
  // the leaves like a query does). Walks every leaf, O(size / LeafSize): a diagnostic, not for hot
  // loops. (A counter bumped by every insert was a locked add per insert, which on x86 also waits for
  // the insert's stores to reach the cache, i.e. for the leaf's lines to come back from another core
  // that appended to it: bench/results/kdtree.md.)
  std::size_t size() const {
    std::size_t total = 0;
    std::uint32_t in_leaf = 0;
    search_leaves([](int, double) { return std::pair<int, bool>{0, true}; },
                  [&](const auto&, std::uint32_t n, bool& stop) {
                    stop = false;
                    in_leaf = n;
                  },
                  [&] { total += in_leaf; });
    return total;
  }

  // Points the live leaves' buckets can hold before they move (the sum of their size classes'
  // capacities): size() plus the empty slots of live leaves. Walks every leaf like size(): a
  // diagnostic for tests and benchmarks, exact while no thread inserts (a leaf that moves during the
  // walk may be counted at its older bucket's capacity).
  std::size_t leaf_capacity() const {
    std::size_t total = 0;
    std::uint32_t cap = 0;
    search_leaves([](int, double) { return std::pair<int, bool>{0, true}; },
                  [&](const auto& bucket, std::uint32_t, bool& stop) {
                    stop = false;
                    cap = bucket.cap;
                  },
                  [&] { total += cap; });
    return total;
  }

  // Internal nodes on the longest root-to-leaf path (0 while the root is a single leaf). Walks the
  // tree: a diagnostic for tests and benchmarks, not for hot loops.
  int depth() const {
    std::vector<std::pair<Link, int>> todo{{root_.load(std::memory_order_acquire)->link, 0}};
    int deepest = 0;
    while (!todo.empty()) {
      // Not a structured binding: clang 14 (the asan preset's compiler) cannot capture one in the lambda below.
      const auto link = todo.back().first;
      const auto level = todo.back().second;
      todo.pop_back();
      if (spatial_detail::is_leaf(link)) {
        deepest = std::max(deepest, level);
        continue;
      }
      nodes_.with(spatial_detail::node_of(link), [&](Node& node) {
        for (int side = 0; side < 2; ++side)
          todo.emplace_back(spatial_detail::load_acquire(node.child[side]), level + 1);
      });
    }
    return deepest;
  }

  // Bytes of claimed arena slots (nodes and buckets, including the empty slots of buckets, retired
  // buckets waiting for reuse and the slots claimed in per-thread batches but not yet handed out:
  // about 8 KiB of buckets per class and kNodeBatch nodes per inserting thread).
  std::size_t bytes_used() const { return buckets_.bytes_used() + nodes_.size() * sizeof(Node); }
  // Bytes the two stores hold in memory now (committed pages, vector capacity...).
  std::size_t bytes_resident() const { return buckets_.bytes_resident() + nodes_.bytes_resident(); }

 private:
  // The root link and the cell it covers. Immutable once published; replaced (never freed before the
  // tree) when the root leaf first splits or the root grows, so a thread still descending from an
  // older record sees a consistent link and cell.
  struct RootRecord {
    Link link;
    bool bounded;
    CellD cell;
    int growths;
  };

  static constexpr int kStackCapacity = kMaxSplitDepth + kMaxRootGrowth + 8;

 public:
  // A thread's place in the tree, for inserts and queries that start near the last insert instead of
  // at the root (an advancing front's next node is near its last one, so a walk from the root mostly
  // repeats the last one's, for inserts and for queries; bench/RESULTS.md, K-d tree). It holds the
  // internal-node path of the thread's last insert: child slots with their cells and depths. A child slot's cell
  // never changes once its parent is published (a split below it refines, a root growth adds above),
  // and internal nodes are never freed or moved, so an entry stays valid for the tree's life; a
  // descent from it re-reads the slot's link like a descent from the root. One per thread, not shared.
  class Finger {
   public:
    Finger() = default;

   private:
    friend class KdTree;
    // The slot of the deepest entry whose cell holds the ball of radius r around q, with a margin of a
    // few ulps so that rounding never leaves a point of the ball outside it; kRootSlot if none does.
    Slot slot_holding(const Vec<D>& q, double r) const {
      for (int k = size - 1; k >= 0; --k) {
        bool holds = true;
        for (int d = 0; d < D && holds; ++d) {
          const double need = r * (1.0 + 1e-9) + 4.0 * std::numeric_limits<double>::epsilon() * (std::abs(q[d]) + r);
          holds = cell[k].lo[d] <= q[d] - need && q[d] + need <= cell[k].hi[d];
        }
        if (holds) return slot[k];
      }
      return spatial_detail::kRootSlot;
    }
    int size = 0;
    Slot slot[kStackCapacity];
    CellD cell[kStackCapacity];
    int depth[kStackCapacity];
  };

 private:
  // Nodes a thread takes from the arena at a time (claim_batches.hpp): one 4 KiB page.
  static constexpr std::size_t kNodeBatch = 4096 / sizeof(Node);

  static std::size_t node_capacity(std::size_t max_points) {
    return static_cast<std::size_t>(std::min<std::uint64_t>(
        spatial_detail::kMaxNodes, 2 * std::uint64_t{max_points} + 4 * kStackCapacity +
                                       NodeClaims::spare_capacity(kNodeBatch)));
  }

  // The squared distances of a leaf's first n points to q, into d2[0..n): the sum over the axes of
  // (p - q)^2 in axis order, rounded as exists_within promises because the build never contracts a
  // multiply and an add into one fused operation (-ffp-contract=off, CMakeLists.txt). One pass of
  // plain loads over each coordinate array, vectorised, in a kernel with a version per instruction set
  // (leaf_distances.hpp); one loop of per-point atomic loads and tests made the fill slower.
  // Distances are in the tree's units: a grid tree takes the differences in grid steps,
  // x - (q - centre) / step with x the stored integer, one conversion per coordinate and no decoding.
  // A squared distance in steps times step^2 (a power of two: exact) is the squared distance to the
  // decoded point up to the rounding of q - centre (up to 2^-22 of a step in a frame of 2^32 steps);
  // callers compare it with r2_in_units(r2) and report units_to_r2(d2).
  template <class Bucket>
  void distances2(const Bucket& bucket, std::uint32_t n, const double* q, double* d2) const {
    const Coord* x[D];
    double qs[D];
    leaf_frame(bucket, q, x, qs);
    if constexpr (D == 2) spatial_detail::leaf_distances2(x[0], x[1], n, qs[0], qs[1], d2);
    else spatial_detail::leaf_distances2(x[0], x[1], x[2], n, qs[0], qs[1], qs[2], d2);
  }
  // Calls f(i) for each of a leaf's first n points whose squared distance (as distances2 sums it, in
  // the tree's units) lies below r2u, in ascending i. The comparisons come from the scan itself as a
  // bit mask (leaf_within: with AVX2 a compare and a movemask per four points, with AVX-512 a masked
  // compare per eight, the distances never stored), and f runs once per set bit: a leaf of 64 points
  // holds a few matches, and a test and branch per point mispredicted on each of them.
  template <class Bucket, class F>
  void for_each_in_ball(const Bucket& bucket, std::uint32_t n, const double* q, double r2u, F&& f) const {
    const Coord* x[D];
    double qs[D];
    leaf_frame(bucket, q, x, qs);
    for_each_marked(n, [&](std::uint32_t base, std::uint32_t m) {
      const Coord* at[D];
      for (int d = 0; d < D; ++d) at[d] = x[d] + base;
      return spatial_detail::leaf_within(at, D, m, qs, r2u);
    }, f);
  }
  // Calls f(i) for each i < n whose bit is set in mask_at(base, m), the mask of points base..base + m
  // (m <= 64), chunk after chunk: in ascending i, once per set bit.
  template <class MaskAt, class F>
  static void for_each_marked(std::uint32_t n, MaskAt&& mask_at, F&& f) {
    for (std::uint32_t base = 0; base < n; base += 64) {
      std::uint64_t mask = mask_at(base, std::min<std::uint32_t>(64, n - base));
      for (; mask != 0; mask &= mask - 1) f(base + static_cast<std::uint32_t>(std::countr_zero(mask)));
    }
  }
  // A leaf's coordinate arrays and the query in the tree's units.
  template <class Bucket>
  void leaf_frame(const Bucket& bucket, const double* q, const Coord** x, double* qs) const {
    for (int d = 0; d < D; ++d) {
      x[d] = &bucket.coord(d, 0);
      qs[d] = kGrid ? (q[d] - frame_.centre[d]) * frame_.inv_step : q[d];
    }
  }
  double r2_in_units(double r2) const { return kGrid ? r2 * (frame_.inv_step * frame_.inv_step) : r2; }
  // Pruning at split planes. A grid tree's leaf tests take the query rounded by up to 2^-22 of a step,
  // so its walk visits the far side of a plane a step or two further than the radius: every leaf whose
  // test could pass is visited, and an answer does not depend on which split planes the tree has. An
  // exact tree prunes at r itself.
  // prune_r2: the squared radius a range search of radius r prunes with; plane_gap: how far the far
  // side of a plane lies from the query for a nearest search, given q - split.
  double prune_r2(double r) const {
    const double w = kGrid ? r + 2 * frame_.step : r;
    return w * w;
  }
  double plane_gap(double diff) const {
    if constexpr (kGrid) return std::max(0.0, std::fabs(diff) - frame_.step);
    else return diff;
  }
  // The same slack for the finger's choice of a cell that holds the query's ball.
  double ball_slack() const { return kGrid ? frame_.step : 0.0; }
  double units_to_r2(double d2) const { return kGrid ? d2 * (frame_.step * frame_.step) : d2; }

  // A coordinate as the tree keeps it (grid_frame.hpp), in its stored form and decoded.
  double kept(double x, int d) const {
    if constexpr (kGrid) return frame_.round(x, d);
    else return x;
  }
  Coord encode(double x, int d) const {
    if constexpr (kGrid) return frame_.encode(x, d);
    else return x;
  }
  double decode(Coord c, int d) const {
    if constexpr (kGrid) return frame_.decode(c, d);
    else return c;
  }

  // Calls f(i) for each i < n with d2[i] <= r2, in ascending i (the nearest searches, which need the
  // distances themselves): the comparisons into a bit mask (mask_of), and f once per set bit.
  template <class F>
  static void for_each_at_most(const double* d2, std::uint32_t n, double r2, F&& f) {
    for_each_marked(
        n, [&](std::uint32_t base, std::uint32_t m) { return spatial_detail::mask_of<true>(d2 + base, m, r2); }, f);
  }

  // ---- arena helpers ----

  Link load_slot(Slot slot) const {
    if (slot == spatial_detail::kRootSlot) return root_.load(std::memory_order_acquire)->link;
    Link link = 0;
    nodes_.with(slot >> 1, [&](Node& node) { link = spatial_detail::load_acquire(node.child[slot & 1]); });
    return link;
  }

  std::uint32_t claim_nodes(int n) {
    const std::size_t first = node_claims_.claim(static_cast<std::size_t>(n));
    if (first + static_cast<std::size_t>(n) > spatial_detail::kMaxNodes)
      throw StoreFull("KdTree: node index space (2^29) exhausted");
    return static_cast<std::uint32_t>(first);
  }

  // Waits for the lock of the leaf bucket `leaf`. The bucket may have been retired meanwhile (not
  // reused: that waits for a quiescent point): the caller then finds its slot no longer holding `leaf`.
  void lock_bucket(Link leaf) {
    Backoff backoff;
    for (;;) {
      bool locked = false;
      buckets_.with(leaf, [&](const auto& bucket) {
        std::atomic_ref<std::uint32_t> lock(bucket.lock());
        std::uint32_t expected = 0;
        locked = lock.load(std::memory_order_relaxed) == 0 &&
                 lock.compare_exchange_strong(expected, 1u, std::memory_order_acquire,
                                              std::memory_order_relaxed);
      });
      if (locked) return;
      backoff.pause();
    }
  }
  void unlock_bucket(Link leaf) {
    buckets_.with(leaf, [](const auto& bucket) { spatial_detail::store_release(bucket.lock(), 0u); });
  }
  struct BucketGuard {
    KdTree& tree;
    Link leaf;
    ~BucketGuard() { tree.unlock_bucket(leaf); }
  };

  // A new unpublished leaf bucket holding the n points x[.][first..first+n) with ids[first..): the
  // smallest class that holds them and is at least min_class, kEmptyLeaf for none; `writers` starts
  // its writers word (by default: only the caller). Plain stores: the bucket is unpublished and no
  // reader of an earlier life holds it (kdtree_buckets.hpp, reuse).
  template <int N>
  Link new_leaf(const Coord (&x)[D][N], const std::uint32_t* ids, int first, int n, int min_class = 0,
                std::uint32_t writers = spatial_detail::writer_tag()) {
    using namespace spatial_detail;
    if (n == 0) return kEmptyLeaf;
    const Link leaf = buckets_.take(std::max(Classes::for_points(n), min_class), writers);
    buckets_.with(leaf, [&](const auto& bucket) {
      for (int i = 0; i < n; ++i) {
        for (int d = 0; d < D; ++d) bucket.coord(d, i) = x[d][first + i];
        if constexpr (kIds) bucket.id(i) = ids[first + i];
      }
      store_release(bucket.count(), static_cast<std::uint32_t>(n));
    });
    return leaf;
  }

  // Points the locked leaf bucket holds, copied into x[.][0..) and ids[0..) (left alone in a tree that
  // keeps no ids); returns how many.
  template <int N>
  int copy_points(Link leaf, Coord (&x)[D][N], std::uint32_t* ids) {
    using namespace spatial_detail;
    int n = 0;
    buckets_.with(leaf, [&](const auto& bucket) {
      n = static_cast<int>(load_relaxed(bucket.count()));  // only the lock holder writes count
      for (int i = 0; i < n; ++i) {
        for (int d = 0; d < D; ++d) x[d][i] = bucket.coord(d, i);
        if constexpr (kIds) ids[i] = bucket.id(i);
      }
    });
    return n;
  }

  // Replaces the link at `slot` (held by the locked leaf `old`) by `link`, then retires `old`.
  void replace_leaf(Slot slot, Link old, Link link, const RootRecord& root) {
    using namespace spatial_detail;
    if (slot == kRootSlot) {
      publish_root(link, root.bounded, root.cell, root.growths);
    } else {
      nodes_.with(slot >> 1, [&](Node& node) { store_release(node.child[slot & 1], link); });
    }
    buckets_.retire(old);
  }

  // ---- insertion ----

  // Descends from `root` (or from the finger's deepest entry, whose cell the caller checked holds p)
  // and inserts, recording the path in the finger; false if the root changed under us (restart from
  // the top).
  bool insert_below(const RootRecord& root, const double* p, const Coord* pc, std::uint32_t id, Finger* finger) {
    using namespace spatial_detail;
    CellD cell = root.cell;
    Slot slot = kRootSlot;
    Link link = root.link;
    int depth = 0;
    if (finger && finger->size > 0) {
      const int k = finger->size - 1;
      cell = finger->cell[k];
      slot = finger->slot[k];
      depth = finger->depth[k];
      link = load_slot(slot);
    } else if (finger) {
      finger->size = 0;
    }
    for (;;) {
      if (!is_leaf(link)) {
        const std::uint32_t n = node_of(link);
        const int d = dim_of(link);
        nodes_.with(n, [&](Node& node) {
          const int side = p[d] < node.split ? 0 : 1;
          // Every bound by a constant index (a select), none through the computed one: the cell then
          // stays in registers. Stored by index, it was copied into the finger below by wider loads
          // than the store before them, which stalled each level on the store's forwarding
          // (measured: bench/RESULTS.md, K-d tree).
          for (int a = 0; a < D; ++a) {
            cell.hi[a] = a == d && side == 0 ? node.split : cell.hi[a];
            cell.lo[a] = a == d && side == 1 ? node.split : cell.lo[a];
          }
          slot = child_slot(n, side);
          link = load_acquire(node.child[side]);
        });
        ++depth;
        if (finger && finger->size < kStackCapacity) {
          finger->slot[finger->size] = slot;
          finger->cell[finger->size] = cell;
          finger->depth[finger->size] = depth;
          ++finger->size;
        }
        continue;
      }
      if (link == kEmptyLeaf) {
        if (fill_empty_leaf(slot, pc, id)) return true;
        link = load_slot(slot);
        continue;
      }
      lock_bucket(link);
      BucketGuard guard{*this, link};
      const Link now = load_slot(slot);
      if (now != link) {  // moved or split while we waited for the lock
        if (slot == kRootSlot) return false;
        link = now;
        continue;
      }
      if (append(link, pc, id)) return true;
      if (class_of(link) + 1 < Classes::kCount) {
        grow_leaf(slot, link, root, pc, id);
        return true;
      }
      split_leaf(slot, link, cell, depth, root, p);
      if (slot == kRootSlot) return false;
      link = load_slot(slot);
    }
  }

  // Appends to the locked leaf bucket unless it is full; records the caller in its writers word.
  bool append(Link leaf, const Coord* p, std::uint32_t id) {
    using namespace spatial_detail;
    bool done = false;
    buckets_.with(leaf, [&](const auto& bucket) {
      const std::uint32_t n = load_relaxed(bucket.count());  // only the lock holder writes count
      // Tagged before the capacity check: a second thread that finds the leaf full makes it grow
      // straight to full size as well (grow_leaf).
      const std::uint32_t writers = bucket.writers();
      const std::uint32_t now = with_writer(writers, writer_tag());
      if (now != writers) bucket.writers() = now;
      if (n == static_cast<std::uint32_t>(bucket.cap)) return;
      for (int d = 0; d < D; ++d) bucket.coord(d, n) = p[d];  // no reader looks at or above count
      if constexpr (kIds) bucket.id(n) = id;
      store_release(bucket.count(), n + 1);
      done = true;
    });
    return done;
  }

  // Gives the empty leaf at `slot` a bucket holding p; false if another thread filled it first.
  bool fill_empty_leaf(Slot slot, const Coord* p, std::uint32_t id) {
    using namespace spatial_detail;
    Coord x[D][1];
    for (int d = 0; d < D; ++d) x[d][0] = p[d];
    const Link leaf = new_leaf(x, &id, 0, 1);
    bool won = false;
    nodes_.with(slot >> 1, [&](Node& node) {
      Link expected = kEmptyLeaf;
      won = std::atomic_ref<Link>(node.child[slot & 1])
                .compare_exchange_strong(expected, leaf, std::memory_order_acq_rel,
                                         std::memory_order_acquire);
    });
    if (!won) buckets_.retire(leaf);  // never published: reusable after the next quiescent point
    return won;
  }

  // Moves the full, locked leaf `leaf` at `slot` to a bucket of the next class, with p appended; a
  // leaf that two threads have written to goes straight to the largest class instead.
  //
  // Why: every move rewrites the whole leaf in another bucket and its parent's link, and when the
  // other thread then reads or appends to the leaf, it misses on all those lines. A shared leaf now
  // moves once more instead of up to seven times. In bench/spatial/kdtree's front order, where both threads
  // fill the same leaves a few rows apart, 2 threads scale better with this rule than with one class at
  // a time, about as well as with fixed-size buckets (measured: bench/results/kdtree.md). Leaves one
  // thread fills (every leaf at 1 thread; most of the fill's, whose threads grow patches of their own) keep
  // growing one class at a time, so their memory is unchanged; a shared leaf may keep up to
  // LeafSize - kStep slots empty, as every leaf of the fixed-size tree could.
  void grow_leaf(Slot slot, Link leaf, const RootRecord& root, const Coord* p, std::uint32_t id) {
    using namespace spatial_detail;
    Coord x[D][LeafSize];
    std::uint32_t ids[LeafSize];
    const int n = copy_points(leaf, x, ids);
    for (int d = 0; d < D; ++d) x[d][n] = p[d];
    ids[n] = id;
    std::uint32_t writers = 0;
    buckets_.with(leaf, [&](const auto& bucket) { writers = bucket.writers(); });
    const int to = (writers & kSharedLeaf) != 0 ? Classes::kCount - 1 : class_of(leaf) + 1;
    replace_leaf(slot, leaf, new_leaf(x, ids, 0, n + 1, to, writers), root);
  }

  // Splits the full, locked leaf `leaf` found at `slot` (cell `cell`, `depth` nodes below the root)
  // so that the incoming point p is separated from at least one of the leaf's points: the plan is
  // made for the leaf's points plus p, so even a leaf full of coincident points splits off a point
  // that differs from them. Each half goes to a new bucket of the class it needs (a half with no
  // point is an empty leaf). p itself is inserted afterwards, by descending again.
  void split_leaf(Slot slot, Link leaf, CellD cell, int depth, const RootRecord& root, const double* p) {
    using namespace spatial_detail;
    Coord stored[D][LeafSize];
    std::uint32_t ids[LeafSize];
    const int n = copy_points(leaf, stored, ids);  // n == LeafSize
    double x[D][LeafSize + 1];  // the points decoded, p last: what the plan compares with midpoints
    for (int d = 0; d < D; ++d) {
      for (int i = 0; i < n; ++i) x[d][i] = decode(stored[d][i], d);
      x[d][n] = p[d];
    }
    const bool at_root = slot == kRootSlot;
    if (at_root && !root_cell_around(x, n + 1, cell))
      throw std::length_error("KdTree: more than LeafSize coincident points");

    SplitStep steps[kMaxSplitDepth];
    const int nsteps = plan_split(x, n + 1, cell, kMaxSplitDepth - depth, steps);
    if (nsteps < 0)
      throw std::length_error(
          "KdTree: depth limit reached (more than LeafSize points closer than the cell resolution)");
    const SplitStep& last = steps[nsteps - 1];

    // The left half first, then the right half.
    Coord sorted[D][LeafSize];
    std::uint32_t sorted_ids[LeafSize];
    int left = 0;
    for (int i = 0; i < n; ++i) left += x[last.dim][i] < last.split ? 1 : 0;
    for (int i = 0, l = 0, r = left; i < n; ++i) {
      const int to = x[last.dim][i] < last.split ? l++ : r++;
      for (int d = 0; d < D; ++d) sorted[d][to] = stored[d][i];
      if constexpr (kIds) sorted_ids[to] = ids[i];
    }
    // A tree without ids passes none: g++ 12 warns of the unwritten array wherever it sees the call alone.
    const std::uint32_t* const ids_sorted = kIds ? sorted_ids : nullptr;
    const Link halves[2] = {new_leaf(sorted, ids_sorted, 0, left), new_leaf(sorted, ids_sorted, left, n - left)};

    // The chain of internal nodes: empty-side steps, then the separating one.
    const std::uint32_t first = claim_nodes(nsteps);
    for (int k = 0; k < nsteps; ++k) {
      nodes_.with(first + static_cast<std::uint32_t>(k), [&](Node& node) {
        node.split = steps[k].split;
        if (k + 1 < nsteps) {
          const int full = steps[k].full_side;
          store_relaxed(node.child[full], internal_link(first + static_cast<std::uint32_t>(k) + 1,
                                                        steps[k + 1].dim));
          store_relaxed(node.child[1 - full], kEmptyLeaf);
        } else {
          store_relaxed(node.child[0], halves[0]);
          store_relaxed(node.child[1], halves[1]);
        }
      });
    }
    const Link top = internal_link(first, steps[0].dim);
    if (at_root) {
      // The root record gains its cell with its first split.
      publish_root(top, true, cell, root.growths);
      buckets_.retire(leaf);
    } else {
      replace_leaf(slot, leaf, top, root);
    }
  }

  // A new root record (under the root mutex: growth and root replacements are serialised).
  void publish_root(Link link, bool bounded, const CellD& cell, int growths) {
    std::lock_guard lock(root_mutex_);
    auto record = std::make_unique<RootRecord>();
    record->link = link;
    record->bounded = bounded;
    record->cell = cell;
    record->growths = growths;
    root_.store(record.get(), std::memory_order_release);
    root_records_.push_back(std::move(record));
  }

  // Doubles the root cell (one new root node per doubling, the old root one child and an empty leaf
  // the other) until it contains p. Growth happens O(log(extent)) times in a tree's life, so it takes
  // a mutex; inserts and queries never wait for it (they keep descending from the record they read).
  void grow_root(const double* p) {
    using namespace spatial_detail;
    std::lock_guard lock(root_mutex_);
    const RootRecord* current = root_.load(std::memory_order_acquire);
    while (current->bounded && !current->cell.contains(p)) {
      if (current->growths >= kMaxRootGrowth)
        throw std::length_error("KdTree: point too far from the others (root growth limit)");
      const CellD& c = current->cell;
      int dim = -1;
      for (int d = 0; d < D; ++d) {
        const bool outside = !(c.lo[d] <= p[d] && p[d] < c.hi[d]);
        if (outside && (dim < 0 || c.hi[d] - c.lo[d] < c.hi[dim] - c.lo[dim])) dim = d;
      }
      const double side = c.hi[dim] - c.lo[dim];
      auto record = std::make_unique<RootRecord>(*current);
      ++record->growths;
      const std::uint32_t n = claim_nodes(1);
      nodes_.with(n, [&](Node& node) {
        if (p[dim] < c.lo[dim]) {
          node.split = c.lo[dim];
          store_relaxed(node.child[0], kEmptyLeaf);
          store_relaxed(node.child[1], current->link);
          record->cell.lo[dim] = c.lo[dim] - side;
        } else {
          node.split = c.hi[dim];
          store_relaxed(node.child[0], current->link);
          store_relaxed(node.child[1], kEmptyLeaf);
          record->cell.hi[dim] = c.hi[dim] + side;
        }
      });
      record->link = internal_link(n, dim);
      root_.store(record.get(), std::memory_order_release);
      current = record.get();
      root_records_.push_back(std::move(record));
    }
  }

  // ---- queries ----

  // Runs scan(bucket, count, result) on the leaf `link`: the points below its count, which stay as
  // they are while the query lasts (header comment, "Readers").
  template <class Scan, class Result>
  void read_leaf(Link link, Result& result, Scan& scan) const {
    buckets_.with(link, [&](const auto& bucket) { scan(bucket, spatial_detail::load_acquire(bucket.count()), result); });
  }

  // Visits every leaf that may hold a point within sqrt(r2) of q, near side first. scan(bucket, n,
  // stop) examines one leaf; after its scan, on_leaf() runs; the search ends when stop is set
  // (or when on_leaf, if it returns a bool, returns true).
  // start: the slot to search below (kRootSlot, or a finger's entry whose cell holds the ball).
  template <bool Batched = false, class Scan, class OnLeaf>
  bool range_search(const double* q, double r2, Scan&& scan, OnLeaf&& on_leaf,
                    Slot start = spatial_detail::kRootSlot) const {
    return search_leaves<Batched>(
        [&](int d, double split) {
          const double diff = q[d] - split;
          return std::pair<int, bool>{diff < 0 ? 0 : 1, diff * diff < r2};
        },
        scan, on_leaf, start);
  }
  template <class Scan>
  bool range_search(const double* q, double r2, Scan&& scan) const {
    return range_search(q, r2, scan, [] {});
  }

  // The depth-first walk behind range_search and size(): at an internal node splitting dimension d at
  // `split`, sides(d, split) returns {the side to descend first, whether to visit the other one}.
  // Kept out of line: g++ 12 inlined it into for_each_within in some callers and not in others, and
  // the inlined leaf scan made the 3D fill slower; out of line it is the same fast loop for every caller.
  // Batched: the walk first lists up to kLeafBatch leaves, asking the cache for each bucket as it is
  // found, then scans them in the order found, so one leaf's cache misses overlap the walk to the
  // next instead of stalling its scan (for searches that read every leaf; one that stops early would
  // walk further than it needs). The leaves and their order are the same either way.
  template <bool Batched = false, class Sides, class Scan, class OnLeaf>
  [[gnu::noinline]] bool search_leaves(Sides&& sides, Scan&& scan, OnLeaf&& on_leaf,
                                       Slot start = spatial_detail::kRootSlot) const {
    using namespace spatial_detail;
    Slot stack[kStackCapacity];
    int top = 0;
    stack[top++] = start;
    constexpr int kBatch = Batched ? kLeafBatch : 1;
    Link batch[kBatch];
    int listed = 0;
    // Scans the listed leaves; true when the search is to end.
    auto scan_listed = [&]() {
      for (int k = 0; k < listed; ++k) {
        bool stop = false;
        read_leaf(batch[k], stop, scan);
        if constexpr (std::is_same_v<decltype(on_leaf()), bool>) {
          if (on_leaf()) return true;
        } else {
          on_leaf();
        }
        if (stop) return true;
      }
      listed = 0;
      return false;
    };
    while (top > 0) {
      Link link = load_slot(stack[--top]);
      while (!is_leaf(link)) {
        const std::uint32_t n = node_of(link);
        const int d = dim_of(link);
        nodes_.with(n, [&](Node& node) {
          const auto [near, visit_far] = sides(d, node.split);
          if (visit_far) stack[top++] = child_slot(n, 1 - near);
          link = load_acquire(node.child[near]);
        });
      }
      if (link == kEmptyLeaf) continue;
      if constexpr (Batched) buckets_.prefetch(link);
      batch[listed++] = link;
      if ((listed == kBatch || top == 0) && scan_listed()) return true;
    }
    return scan_listed();  // leaves still listed when the walk ended on an empty leaf
  }
  static constexpr int kLeafBatch = 16;

  // Best-first-ish search (near child first, far children pruned by their plane distance) feeding
  // every point closer than collector.bound() to collector.offer(id, squared distance).
  template <class Collector>
  void nearest_search(const Vec<D>& query, Collector& collector) const {
    using namespace spatial_detail;
    double q[D];
    for (int d = 0; d < D; ++d) q[d] = query[d];
    struct Entry {
      Slot slot;
      double bound;
    };
    Entry stack[kStackCapacity];
    int top = 0;
    stack[top++] = {kRootSlot, 0.0};
    std::uint32_t cand_id[LeafSize];
    double cand_d2[LeafSize];
    int cands = 0;
    double d2[LeafSize];
    auto scan = [&](auto& bucket, std::uint32_t n, double bound) {
      cands = 0;
      distances2(bucket, n, q, d2);
      for_each_at_most(d2, n, r2_in_units(bound), [&](std::uint32_t i) {
        cand_id[cands] = bucket.id(i);
        cand_d2[cands] = units_to_r2(d2[i]);
        ++cands;
      });
    };
    while (top > 0) {
      const Entry e = stack[--top];
      if (e.bound > collector.bound()) continue;
      Link link = load_slot(e.slot);
      while (!is_leaf(link)) {
        const std::uint32_t n = node_of(link);
        const int d = dim_of(link);
        nodes_.with(n, [&](Node& node) {
          const double diff = q[d] - node.split;
          const int near = diff < 0 ? 0 : 1;
          const double gap = plane_gap(diff);
          const double far_bound = std::max(e.bound, gap * gap);
          if (far_bound <= collector.bound()) stack[top++] = {child_slot(n, 1 - near), far_bound};
          link = load_acquire(node.child[near]);
        });
      }
      if (link == kEmptyLeaf) continue;
      double limit = collector.bound();
      read_leaf(link, limit, scan);
      for (int c = 0; c < cands; ++c) collector.offer(cand_id[c], cand_d2[c]);
    }
  }

  using NodeArena = spatial_detail::Arena<Store<Node>>;
  using NodeClaims = spatial_detail::ClaimBatches<NodeArena>;

  const GridFrame<D> frame_;  // a grid tree's grid; unused in an exact tree
  mutable Buckets buckets_;
  mutable NodeArena nodes_;
  NodeClaims node_claims_;
  std::atomic<const RootRecord*> root_{nullptr};
  std::mutex root_mutex_;
  std::vector<std::unique_ptr<RootRecord>> root_records_;  // guarded by root_mutex_
};

}  // namespace nodegen
