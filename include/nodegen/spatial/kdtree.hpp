#pragma once
// KdTree<D, Store>: an insert-only k-d tree for 2D and 3D points that many threads insert into and
// query at the same time, with no global lock.
//
// Layout (kdtree_layout.hpp): internal nodes (16 bytes) and leaf buckets (up to LeafSize points,
// coordinates stored per dimension) live in two arenas from the storage layer, claimed by the store's
// atomic fetch_add in per-thread batches (claim_batches.hpp); links between them are 32-bit indices.
// Nothing shared is written on the insert path but the leaf itself (no global counter: size() walks).
//
// Balance (kdtree_split.hpp): a full leaf splits at the midpoint of its cell, so the tree does not
// depend on insertion order and advancing-front order stays O(log n) deep. The root cell is set when
// the root leaf first splits and doubles (a new root above the old one) when a point falls outside.
//
// Concurrency:
//   - Writers lock only the leaf they append to (a spin lock in its bucket). An append writes the
//     point and then release-stores the bucket's count. A split (leaf full) builds the new subtree off
//     to the side (the right half goes to a fresh bucket, the left half stays in the old bucket) and
//     publishes it with a release store of the parent's link; the old bucket is compacted in place
//     under its sequence lock.
//   - Readers take no lock. They acquire-load links, and read a leaf as a sequence-lock snapshot:
//     seq even before, the parent link still pointing at this leaf, seq unchanged after; otherwise
//     they re-read the link (which then leads to the split subtree). Hence a query sees every insert
//     that completed before it began, and never reports a point twice.
//   - Queries allocate nothing: their traversal stack is a fixed array bounded by the depth limit.
//
// Limits: depth is capped (kMaxSplitDepth below the root plus kMaxRootGrowth growth levels); a split
// that would exceed it (more than LeafSize points closer together than the floating-point resolution
// of their cell, e.g. duplicates) throws std::length_error. The arenas are sized from max_points;
// exhausting them throws StoreFull.
#include <algorithm>
#include <atomic>
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
#include "nodegen/spatial/kdtree_layout.hpp"
#include "nodegen/spatial/kdtree_split.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {

template <int D, template <class> class Store = VmStore, int LeafSize = 32>
class KdTree {
  static_assert(D == 2 || D == 3, "KdTree is for 2D and 3D points");
  static_assert(LeafSize >= 2 && LeafSize <= 255, "leaf size out of range");

  using Link = spatial_detail::Link;
  using Slot = spatial_detail::Slot;
  using Node = spatial_detail::Node;
  using Bucket = spatial_detail::Bucket<D, LeafSize>;
  using CellD = spatial_detail::Cell<D>;

 public:
  using Options = typename Store<Node>::Options;
  static constexpr int kLeafSize = LeafSize;
  static constexpr int kMaxSplitDepth = 160;
  static constexpr int kMaxRootGrowth = 90;

  // max_points sizes the arenas (address space only with the VM store; nothing is committed).
  // options: the backend's Options (for backends whose Options type depends on the element type, such
  // as LockedVectorStore<T>::Options, the Options of any element type is accepted).
  template <class StoreOptions = Options>
  explicit KdTree(std::size_t max_points, const StoreOptions& options = {})
      : buckets_(bucket_capacity(max_points), options),
        nodes_(node_capacity(max_points), options),
        bucket_claims_(buckets_, kBucketBatch),
        node_claims_(nodes_, kNodeBatch) {
    auto first = std::make_unique<RootRecord>();
    first->link = spatial_detail::leaf_link(new_bucket());
    first->bounded = false;
    first->cell = CellD::unbounded();
    first->growths = 0;
    root_.store(first.get(), std::memory_order_release);
    root_records_.push_back(std::move(first));
  }

  KdTree(const KdTree&) = delete;
  KdTree& operator=(const KdTree&) = delete;

  // Thread-safe; the point is visible to every query that starts after this returns.
  void insert(const Vec<D>& point, std::uint32_t id) {
    double p[D];
    for (int d = 0; d < D; ++d) {
      p[d] = point[d];
      if (!std::isfinite(p[d])) throw std::invalid_argument("KdTree::insert: non-finite coordinate");
    }
    for (;;) {
      const RootRecord* root = root_.load(std::memory_order_acquire);
      if (root->bounded && !root->cell.contains(p)) {
        grow_root(p);
        continue;
      }
      if (insert_below(*root, p, id)) return;
    }
  }

  // Is there a point p with |p - q| < r? Stops at the first one found.
  bool exists_within(const Vec<D>& q, double r) const {
    if (!(r > 0)) return false;
    double qa[D];
    for (int d = 0; d < D; ++d) qa[d] = q[d];
    const double r2 = r * r;
    return range_search(qa, r2, [&](Bucket& bucket, std::uint32_t n, bool& found) {
      found = false;
      for (std::uint32_t i = 0; i < n; ++i) {
        if (distance2(bucket, i, qa) < r2) {
          found = true;
          return;
        }
      }
    });
  }

  // Calls f(id, position) for every point with |p - q| < r (each exactly once, in no fixed order).
  template <class F>
  void for_each_within(const Vec<D>& q, double r, F&& f) const {
    if (!(r > 0)) return;
    double qa[D];
    for (int d = 0; d < D; ++d) qa[d] = q[d];
    const double r2 = r * r;
    // A leaf's matches are buffered and handed to f only once the snapshot is validated, so a retry
    // after a concurrent split never reports a point twice.
    std::uint32_t hit_id[LeafSize];
    double hit_pos[LeafSize][D];
    int hits = 0;
    range_search(qa, r2, [&](Bucket& bucket, std::uint32_t n, bool& stop) {
      stop = false;
      hits = 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        double d2 = 0;
        double pos[D];
        for (int d = 0; d < D; ++d) {
          pos[d] = spatial_detail::load_acquire(bucket.coord[d][i]);
          const double t = pos[d] - qa[d];
          d2 += t * t;
        }
        if (d2 < r2) {
          hit_id[hits] = spatial_detail::load_acquire(bucket.id[i]);
          for (int d = 0; d < D; ++d) hit_pos[hits][d] = pos[d];
          ++hits;
        }
      }
    }, [&] {
      Vec<D> v;
      for (int h = 0; h < hits; ++h) {
        for (int d = 0; d < D; ++d) v[d] = hit_pos[h][d];
        f(hit_id[h], static_cast<const Vec<D>&>(v));
      }
    });
  }

  // The nearest point: (id, distance), or nullopt when the tree is empty.
  std::optional<std::pair<std::uint32_t, double>> nearest(const Vec<D>& q) const {
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
  void knn(const Vec<D>& q, int k, std::vector<std::pair<std::uint32_t, double>>& out) const {
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
                  [&](Bucket&, std::uint32_t n, bool& stop) {
                    stop = false;
                    in_leaf = n;
                  },
                  [&] { total += in_leaf; });
    return total;
  }

  // Internal nodes on the longest root-to-leaf path (0 while the root is a single leaf). Walks the
  // tree: a diagnostic for tests and benchmarks, not for hot loops.
  int depth() const {
    std::vector<std::pair<Link, int>> todo{{root_.load(std::memory_order_acquire)->link, 0}};
    int deepest = 0;
    while (!todo.empty()) {
      const auto [link, level] = todo.back();
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

  // Bytes of claimed arena slots (nodes and buckets, including empty bucket slots and the slots
  // claimed in per-thread batches but not yet handed out: at most kBucketBatch buckets and kNodeBatch
  // nodes per inserting thread).
  std::size_t bytes_used() const {
    return buckets_.size() * sizeof(Bucket) + nodes_.size() * sizeof(Node);
  }
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
  static constexpr std::uint32_t kNoBucket = 0xFFFF'FFFFu;
  // Slots a thread takes from an arena at a time (claim_batches.hpp): about 16 KiB of buckets, one
  // 4 KiB page of nodes.
  static constexpr std::size_t kBucketBatch = 16;
  static constexpr std::size_t kNodeBatch = 4096 / sizeof(Node);

  static std::size_t bucket_capacity(std::size_t max_points) {
    // Every bucket in the tree holds at least one point, so max_points buckets always suffice.
    return static_cast<std::size_t>(std::min<std::uint64_t>(
        spatial_detail::kMaxBuckets,
        std::uint64_t{max_points} + 64 + BucketClaims::spare_capacity(kBucketBatch)));
  }
  static std::size_t node_capacity(std::size_t max_points) {
    return static_cast<std::size_t>(std::min<std::uint64_t>(
        spatial_detail::kMaxNodes, 2 * std::uint64_t{max_points} + 4 * kStackCapacity +
                                       NodeClaims::spare_capacity(kNodeBatch)));
  }

  static double distance2(Bucket& bucket, std::uint32_t i, const double* q) {
    double d2 = 0;
    for (int d = 0; d < D; ++d) {
      const double t = spatial_detail::load_acquire(bucket.coord[d][i]) - q[d];
      d2 += t * t;
    }
    return d2;
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

  // A fresh, empty, unlocked bucket: the spare one if a lost race left one behind, else a new slot.
  std::uint32_t new_bucket() {
    std::uint32_t b = kNoBucket;
    if (spare_bucket_.load(std::memory_order_relaxed) != kNoBucket)
      b = spare_bucket_.exchange(kNoBucket, std::memory_order_acq_rel);
    if (b == kNoBucket) {
      const std::size_t slot = bucket_claims_.claim(1);
      if (slot >= spatial_detail::kMaxBuckets) throw StoreFull("KdTree: bucket index space exhausted");
      b = static_cast<std::uint32_t>(slot);
    }
    buckets_.with(b, [](Bucket& bucket) {
      spatial_detail::store_relaxed(bucket.count, 0u);
      spatial_detail::store_relaxed(bucket.lock, 0u);
      spatial_detail::store_relaxed(bucket.seq, 0u);
    });
    return b;
  }

  // A bucket that was never published (its CAS lost) goes back for the next new_bucket().
  void recycle_bucket(std::uint32_t b) {
    spare_bucket_.store(b, std::memory_order_release);  // at worst overwrites another spare: one bucket leaked
  }

  void lock_bucket(std::uint32_t b) {
    Backoff backoff;
    for (;;) {
      bool locked = false;
      buckets_.with(b, [&](Bucket& bucket) {
        std::atomic_ref<std::uint32_t> lock(bucket.lock);
        std::uint32_t expected = 0;
        locked = lock.load(std::memory_order_relaxed) == 0 &&
                 lock.compare_exchange_strong(expected, 1u, std::memory_order_acquire,
                                              std::memory_order_relaxed);
      });
      if (locked) return;
      backoff.pause();
    }
  }
  void unlock_bucket(std::uint32_t b) {
    buckets_.with(b, [](Bucket& bucket) { spatial_detail::store_release(bucket.lock, 0u); });
  }
  struct BucketGuard {
    KdTree& tree;
    std::uint32_t b;
    ~BucketGuard() { tree.unlock_bucket(b); }
  };

  // ---- insertion ----

  // Descends from `root` and inserts; false if the root changed under us (restart from the top).
  bool insert_below(const RootRecord& root, const double* p, std::uint32_t id) {
    using namespace spatial_detail;
    CellD cell = root.cell;
    Slot slot = kRootSlot;
    Link link = root.link;
    int depth = 0;
    for (;;) {
      if (!is_leaf(link)) {
        const std::uint32_t n = node_of(link);
        const int d = dim_of(link);
        nodes_.with(n, [&](Node& node) {
          const int side = p[d] < node.split ? 0 : 1;
          (side == 0 ? cell.hi[d] : cell.lo[d]) = node.split;
          slot = child_slot(n, side);
          link = load_acquire(node.child[side]);
        });
        ++depth;
        continue;
      }
      if (link == kEmptyLeaf) {
        if (fill_empty_leaf(slot, p, id)) return true;
        link = load_slot(slot);
        continue;
      }
      const std::uint32_t b = bucket_of(link);
      lock_bucket(b);
      BucketGuard guard{*this, b};
      const Link now = load_slot(slot);
      if (now != link) {  // split while we waited for the lock
        if (slot == kRootSlot) return false;
        link = now;
        continue;
      }
      if (append(b, p, id)) return true;
      split_leaf(slot, b, cell, depth, root, p);
      if (slot == kRootSlot) return false;
      link = load_slot(slot);
    }
  }

  // Appends to the locked bucket b unless it is full.
  bool append(std::uint32_t b, const double* p, std::uint32_t id) {
    using namespace spatial_detail;
    bool done = false;
    buckets_.with(b, [&](Bucket& bucket) {
      const std::uint32_t n = load_relaxed(bucket.count);  // only the lock holder writes count
      if (n == static_cast<std::uint32_t>(LeafSize)) return;
      for (int d = 0; d < D; ++d) store_relaxed(bucket.coord[d][n], p[d]);
      store_relaxed(bucket.id[n], id);
      store_release(bucket.count, n + 1);
      done = true;
    });
    return done;
  }

  // Gives the empty leaf at `slot` a bucket holding p; false if another thread filled it first.
  bool fill_empty_leaf(Slot slot, const double* p, std::uint32_t id) {
    using namespace spatial_detail;
    const std::uint32_t b = new_bucket();
    buckets_.with(b, [&](Bucket& bucket) {
      for (int d = 0; d < D; ++d) store_relaxed(bucket.coord[d][0], p[d]);
      store_relaxed(bucket.id[0], id);
      store_relaxed(bucket.count, 1u);
    });
    bool won = false;
    nodes_.with(slot >> 1, [&](Node& node) {
      Link expected = kEmptyLeaf;
      won = std::atomic_ref<Link>(node.child[slot & 1])
                .compare_exchange_strong(expected, leaf_link(b), std::memory_order_acq_rel,
                                         std::memory_order_acquire);
    });
    if (!won) recycle_bucket(b);
    return won;
  }

  // Splits the full, locked leaf bucket b found at `slot` (cell `cell`, `depth` nodes below the root)
  // so that the incoming point p is separated from at least one of the leaf's points: the plan is
  // made for the leaf's points plus p, so even a leaf full of coincident points splits off a point
  // that differs from them. p itself is inserted afterwards, by descending again.
  void split_leaf(Slot slot, std::uint32_t b, CellD cell, int depth, const RootRecord& root,
                  const double* p) {
    using namespace spatial_detail;
    double x[D][LeafSize + 1];
    std::uint32_t ids[LeafSize];
    std::uint32_t seq0 = 0;
    buckets_.with(b, [&](Bucket& bucket) {
      for (int i = 0; i < LeafSize; ++i) {
        for (int d = 0; d < D; ++d) x[d][i] = load_relaxed(bucket.coord[d][i]);
        ids[i] = load_relaxed(bucket.id[i]);
      }
      seq0 = load_relaxed(bucket.seq);
    });
    for (int d = 0; d < D; ++d) x[d][LeafSize] = p[d];
    const bool at_root = slot == kRootSlot;
    if (at_root && !root_cell_around(x, LeafSize + 1, cell))
      throw std::length_error("KdTree: more than LeafSize coincident points");

    SplitStep steps[kMaxSplitDepth];
    const int nsteps = plan_split(x, LeafSize + 1, cell, kMaxSplitDepth - depth, steps);
    if (nsteps < 0)
      throw std::length_error(
          "KdTree: depth limit reached (more than LeafSize points closer than the cell resolution)");
    const SplitStep& last = steps[nsteps - 1];

    // The right half goes to a fresh bucket, invisible until the link is published.
    const std::uint32_t nb = new_bucket();
    int left = 0;
    buckets_.with(nb, [&](Bucket& bucket) {
      std::uint32_t right = 0;
      for (int i = 0; i < LeafSize; ++i) {
        if (x[last.dim][i] < last.split) {
          for (int d = 0; d < D; ++d) x[d][left] = x[d][i];  // compact the left half in the copy
          ids[left] = ids[i];
          ++left;
          continue;
        }
        for (int d = 0; d < D; ++d) store_relaxed(bucket.coord[d][right], x[d][i]);
        store_relaxed(bucket.id[right], ids[i]);
        ++right;
      }
      store_relaxed(bucket.count, right);
    });

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
          store_relaxed(node.child[0], leaf_link(b));
          store_relaxed(node.child[1], leaf_link(nb));
        }
      });
    }
    const Link top = internal_link(first, steps[0].dim);

    // Sequence-lock write section on b: readers that raced with it retry and find the new subtree.
    // No fences (ThreadSanitizer does not model them): every store after the odd seq is a release
    // store and readers load points with acquire, so a reader that sees any of these stores also sees
    // the odd seq when it re-checks (both are plain moves on x86-64).
    buckets_.with(b, [&](Bucket& bucket) { store_relaxed(bucket.seq, seq0 + 1); });

    if (at_root) {
      publish_root_split(top, cell, root.growths);
    } else {
      nodes_.with(slot >> 1, [&](Node& node) { store_release(node.child[slot & 1], top); });
    }
    buckets_.with(b, [&](Bucket& bucket) {
      for (int i = 0; i < left; ++i) {
        for (int d = 0; d < D; ++d) store_release(bucket.coord[d][i], x[d][i]);
        store_release(bucket.id[i], ids[i]);
      }
      store_release(bucket.count, static_cast<std::uint32_t>(left));
      store_release(bucket.seq, seq0 + 2);
    });
  }

  void publish_root_split(Link top, const CellD& cell, int growths) {
    std::lock_guard lock(root_mutex_);
    auto record = std::make_unique<RootRecord>();
    record->link = top;
    record->bounded = true;
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

  // Runs scan(bucket, count, result) on a consistent snapshot of the leaf `link` found at `slot`.
  // Returns false if the slot no longer holds the link (the leaf was split): re-read the slot. scan
  // may be repeated; it must reset whatever it records.
  template <class Scan, class Result>
  bool read_leaf(Slot slot, Link link, Result& result, Scan& scan) const {
    using namespace spatial_detail;
    const std::uint32_t b = bucket_of(link);
    Backoff backoff;
    for (;;) {
      std::uint32_t s0 = 0;
      buckets_.with(b, [&](Bucket& bucket) { s0 = load_acquire(bucket.seq); });
      if ((s0 & 1u) == 0) {
        if (load_slot(slot) != link) return false;
        bool consistent = false;
        buckets_.with(b, [&](Bucket& bucket) {
          // scan loads points with acquire, so this re-check cannot move before them.
          scan(bucket, load_acquire(bucket.count), result);
          consistent = load_relaxed(bucket.seq) == s0;
        });
        if (consistent) return true;
      }
      backoff.pause();
    }
  }

  // Visits every leaf that may hold a point within sqrt(r2) of q, near side first. scan(bucket, n,
  // stop) examines one leaf; after a validated scan, on_leaf() runs; the search ends when stop is set.
  template <class Scan, class OnLeaf>
  bool range_search(const double* q, double r2, Scan&& scan, OnLeaf&& on_leaf) const {
    return search_leaves(
        [&](int d, double split) {
          const double diff = q[d] - split;
          return std::pair<int, bool>{diff < 0 ? 0 : 1, diff * diff < r2};
        },
        scan, on_leaf);
  }
  template <class Scan>
  bool range_search(const double* q, double r2, Scan&& scan) const {
    return range_search(q, r2, scan, [] {});
  }

  // The depth-first walk behind range_search and size(): at an internal node splitting dimension d at
  // `split`, sides(d, split) returns {the side to descend first, whether to visit the other one}.
  template <class Sides, class Scan, class OnLeaf>
  bool search_leaves(Sides&& sides, Scan&& scan, OnLeaf&& on_leaf) const {
    using namespace spatial_detail;
    Slot stack[kStackCapacity];
    int top = 0;
    stack[top++] = kRootSlot;
    while (top > 0) {
      Slot slot = stack[--top];
      Link link = load_slot(slot);
      for (;;) {
        if (!is_leaf(link)) {
          const std::uint32_t n = node_of(link);
          const int d = dim_of(link);
          nodes_.with(n, [&](Node& node) {
            const auto [near, visit_far] = sides(d, node.split);
            if (visit_far) stack[top++] = child_slot(n, 1 - near);
            slot = child_slot(n, near);
            link = load_acquire(node.child[near]);
          });
          continue;
        }
        if (link == kEmptyLeaf) break;
        bool stop = false;
        if (!read_leaf(slot, link, stop, scan)) {
          link = load_slot(slot);
          continue;
        }
        on_leaf();
        if (stop) return true;
        break;
      }
    }
    return false;
  }

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
    auto scan = [&](Bucket& bucket, std::uint32_t n, double bound) {
      cands = 0;
      for (std::uint32_t i = 0; i < n; ++i) {
        const double d2 = distance2(bucket, i, q);
        if (d2 <= bound) {
          cand_id[cands] = load_acquire(bucket.id[i]);
          cand_d2[cands] = d2;
          ++cands;
        }
      }
    };
    while (top > 0) {
      const Entry e = stack[--top];
      if (e.bound > collector.bound()) continue;
      Slot slot = e.slot;
      Link link = load_slot(slot);
      double bound = e.bound;
      for (;;) {
        if (!is_leaf(link)) {
          const std::uint32_t n = node_of(link);
          const int d = dim_of(link);
          nodes_.with(n, [&](Node& node) {
            const double diff = q[d] - node.split;
            const int near = diff < 0 ? 0 : 1;
            const double far_bound = std::max(bound, diff * diff);
            if (far_bound <= collector.bound()) stack[top++] = {child_slot(n, 1 - near), far_bound};
            slot = child_slot(n, near);
            link = load_acquire(node.child[near]);
          });
          continue;
        }
        if (link == kEmptyLeaf) break;
        double limit = collector.bound();
        if (!read_leaf(slot, link, limit, scan)) {
          link = load_slot(slot);
          continue;
        }
        for (int c = 0; c < cands; ++c) collector.offer(cand_id[c], cand_d2[c]);
        break;
      }
    }
  }

  using BucketArena = spatial_detail::Arena<Store<Bucket>>;
  using NodeArena = spatial_detail::Arena<Store<Node>>;
  using BucketClaims = spatial_detail::ClaimBatches<BucketArena>;
  using NodeClaims = spatial_detail::ClaimBatches<NodeArena>;

  mutable BucketArena buckets_;
  mutable NodeArena nodes_;
  BucketClaims bucket_claims_;
  NodeClaims node_claims_;
  std::atomic<const RootRecord*> root_{nullptr};
  std::mutex root_mutex_;
  std::vector<std::unique_ptr<RootRecord>> root_records_;  // guarded by root_mutex_
  alignas(64) std::atomic<std::uint32_t> spare_bucket_{kNoBucket};
};

}  // namespace nodegen
