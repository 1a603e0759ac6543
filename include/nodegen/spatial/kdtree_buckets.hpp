#pragma once
// BucketArenas<D, Store, LeafSize, Ids, C>: where the k-d tree's leaves keep their points, in size classes.
//
// Why classes (measured: bench/RESULTS.md, K-d tree): with one bucket size, every leaf reserves LeafSize
// slots whatever it holds. Midpoint splits of a quasi-uniform node set make all leaves about equally
// full, and how full depends on where N falls between two generations of splits, so the tree's bytes
// per point swung widely with N, and `nodegen run`'s peak with it. Here a leaf's bucket comes from one
// of kClasses classes of capacities kStep, 2 kStep, ..., LeafSize (kStep = LeafSize / 8 rounded up:
// 4, 8, ..., 32), the smallest that holds its points: a full bucket moves to the next class
// (KdTree::grow_leaf) and a split gives each half the class it needs, so a leaf leaves fewer than kStep
// slots empty. (Except leaves that two threads write to: they move straight to the largest class,
// writer_tag below and KdTree::grow_leaf.)
//
// Why 8 classes and not 16 (2, 4, ..., 32; the link has room for 16): every move rewrites the whole
// leaf elsewhere, and a leaf growing from 16 to 32 points moves 4 times instead of 8. 16 classes
// saved about a byte per point but ran bench/spatial/kdtree's 2D front order slower than 8 classes,
// which already run a little slower than the fixed-size tree (measured: bench/RESULTS.md, K-d tree).
//
// Cost: random insertion order grows every leaf at once, so each class's arena grows to the number
// of leaves that were in it at the same time, and those buckets stay on the free lists after the
// leaves moved up: random order takes far more bytes per point than front order (the fill inserts in
// fronts; bench/RESULTS.md, K-d tree); take() lets a class borrow from the next one up.
//
// Reuse: a bucket that a leaf moved out of is retired onto a pending list of its class; reuse_retired(),
// called at a quiescent point of the tree (no insert or query in flight: the fill's phase barrier, or
// any moment for a tree that one thread uses), moves the pending buckets to the free lists, and the
// next leaf entering that class takes one before a fresh slot is claimed. So no reader or writer still
// holds a bucket when it is reused: within one life a bucket's points below its count never change,
// which is what lets readers scan them with plain loads (kdtree.hpp, read_leaf). A tree whose owner
// never calls reuse_retired() reuses nothing (its moved-out buckets stay claimed). The lists are per
// claim stripe (claim_batches.hpp): a thread mostly gets back buckets it retired itself, and the list
// heads sit on the stripe's own cache line.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>


#include "nodegen/spatial/arena.hpp"
#include "nodegen/spatial/atomic_field.hpp"
#include "nodegen/spatial/claim_batches.hpp"
#include "nodegen/spatial/kdtree_layout.hpp"
#include "nodegen/parallel/false_sharing.hpp"
#include "nodegen/parallel/spin_lock.hpp"
#include "nodegen/storage/store_concept.hpp"

namespace nodegen::spatial_detail {

// Who writes to a live leaf (the bucket's writers word, kdtree_layout.hpp): kNoWriter, or the tag
// (claim stripe + 1) of the thread that wrote last, plus kSharedLeaf once a second thread has
// appended to it or found it full. KdTree moves a shared leaf straight to the largest class
// (kdtree.hpp, grow_leaf). Threads sharing a stripe (more than kClaimStripes threads) look like one
// writer: the leaf then just grows one class at a time.
inline constexpr std::uint32_t kNoWriter = 0;
inline constexpr std::uint32_t kSharedLeaf = 0x8000'0000u;
inline std::uint32_t writer_tag() { return static_cast<std::uint32_t>(stripe_of_this_thread()) + 1; }
// The writers word after the thread tagged `me` wrote to a leaf whose word was `writers`.
constexpr std::uint32_t with_writer(std::uint32_t writers, std::uint32_t me) {
  if ((writers & ~kSharedLeaf) == me) return writers;
  return writers == kNoWriter ? me : me | kSharedLeaf;
}

// The capacities of the size classes of a tree whose leaves split beyond LeafSize points.
template <int LeafSize>
struct LeafClasses {
  static constexpr int kClasses = 8;
  static_assert(kClasses <= kMaxClasses);
  static constexpr int kStep = (LeafSize + kClasses - 1) / kClasses;
  static constexpr int kCount = (LeafSize + kStep - 1) / kStep;
  static_assert(kCount <= kMaxClasses);
  static constexpr int capacity(int k) { return k + 1 == kCount ? LeafSize : kStep * (k + 1); }
  // The smallest class that holds n points (n <= LeafSize).
  static constexpr int for_points(int n) { return n <= kStep ? 0 : std::min(kCount - 1, (n - 1) / kStep); }
};

// One class: its arena and its per-thread claim batches (about 8 KiB of buckets per batch: eight
// classes hold back at most 64 KiB per inserting thread).
template <int D, template <class> class Store, int LeafSize, bool Ids, class C, int K>
struct ClassArena {
  using BucketT = Bucket<D, LeafClasses<LeafSize>::capacity(K), Ids, C>;
  static constexpr std::size_t ids_offset() {
    if constexpr (Ids) return offsetof(BucketT, id);
    else return LeafRef<D, Ids, C>::kHeaderBytes + sizeof(C) * D * BucketT::kCapacity;
  }
  static_assert(offsetof(BucketT, coord) == LeafRef<D, Ids, C>::kHeaderBytes &&
                    ids_offset() == LeafRef<D, Ids, C>::kHeaderBytes + sizeof(C) * D * BucketT::kCapacity,
                "LeafRef's view of a bucket must match Bucket's layout");
  using ArenaT = Arena<Store<BucketT>>;
  static constexpr std::size_t kBatch = std::max<std::size_t>(4, 8192 / sizeof(BucketT));

  template <class Options>
  ClassArena(std::size_t max_points, const Options& options)
      : arena(std::min<std::uint64_t>(kMaxBucketsPerClass,
                                      std::uint64_t{max_points} + 64 + ClaimBatches<ArenaT>::spare_capacity(kBatch)),
              options),
        claims(arena, kBatch) {}

  ArenaT arena;
  ClaimBatches<ArenaT> claims;
};

template <int D, template <class> class Store, int LeafSize, bool Ids, class C,
          class Seq = std::make_integer_sequence<int, LeafClasses<LeafSize>::kCount>>
class BucketArenas;

template <int D, template <class> class Store, int LeafSize, bool Ids, class C, int... K>
class BucketArenas<D, Store, LeafSize, Ids, C, std::integer_sequence<int, K...>>
    : private ClassArena<D, Store, LeafSize, Ids, C, K>... {
 public:
  using Classes = LeafClasses<LeafSize>;
  static constexpr std::uint32_t kNone = 0xFFFF'FFFFu;

  // Every leaf's bucket holds at least one point except the root's first, so each class needs at
  // most max_points buckets (plus what the claim batches hold back); only address space with the VM
  // store.
  template <class Options>
  BucketArenas(std::size_t max_points, const Options& options)
      : ClassArena<D, Store, LeafSize, Ids, C, K>(max_points, options)... {
    ((bases_[K] = reinterpret_cast<std::byte*>(base<K>().arena.base())), ...);
  }

  BucketArenas(const BucketArenas&) = delete;
  BucketArenas& operator=(const BucketArenas&) = delete;

  // Asks the cache for the start of a leaf's bucket (its count and each axis's first coordinates), on
  // stores with stable addresses; a hint only, nothing is read.
  void prefetch(Link leaf) const {
    if constexpr (kStable) {
      const int k = class_of(leaf);
      const std::byte* p = bases_[k] + std::size_t{bucket_of(leaf)} * kBytes[k];
      __builtin_prefetch(p);  // the count, and the first x coordinates
      // The first coordinates of the other axes (the scan's later lines follow by the hardware's own
      // prefetching of each array).
      for (int d = 1; d < D; ++d)
        __builtin_prefetch(p + LeafRef<D, Ids, C>::kHeaderBytes + sizeof(C) * std::size_t{kCapacities[k]} * static_cast<std::size_t>(d));
    }
  }

  // Calls f(LeafRef<D, Ids, C>) on the bucket of a leaf link (not kEmptyLeaf). The reference is valid during
  // the call only (arena.hpp). On stores with stable addresses it is computed from per-class tables.
  template <class F>
  void with(Link leaf, F&& f) {
    const std::uint32_t b = bucket_of(leaf);
    if constexpr (kStable) {
      const int k = class_of(leaf);
      f(LeafRef<D, Ids, C>{bases_[k] + std::size_t{b} * kBytes[k], kCapacities[k]});
    } else {
      switch (class_of(leaf)) {
        case 0: return visit<0>(b, f);
        case 1: return visit<1>(b, f);
        case 2: return visit<2>(b, f);
        case 3: return visit<3>(b, f);
        case 4: return visit<4>(b, f);
        case 5: return visit<5>(b, f);
        case 6: return visit<6>(b, f);
        case 7: return visit<7>(b, f);
        case 8: return visit<8>(b, f);
        case 9: return visit<9>(b, f);
        case 10: return visit<10>(b, f);
        case 11: return visit<11>(b, f);
        case 12: return visit<12>(b, f);
        case 13: return visit<13>(b, f);
        case 14: return visit<14>(b, f);
        default: return visit<15>(b, f);
      }
    }
  }

  // The link of a bucket of class k for a new leaf, or of class k + 1 when class k has no free bucket
  // and class k + 1 has one (at most kStep more empty slots, and a reused bucket instead of a fresh
  // one: in random insertion order, where every leaf grows at once and the classes below are left
  // full of free buckets, this saves memory in bench/spatial/kdtree's random trees and leaves front
  // orders as they were; bench/RESULTS.md, K-d tree). Count 0, unlocked, unpublished (a free bucket was
  // retired before the last quiescent point, so no one holds it). `writers` starts the bucket's
  // writers word.
  Link take(int k, std::uint32_t writers) {
    FreeStripe& s = free_[stripe_of_this_thread()];
    std::uint32_t b = kNone;
    {
      SpinGuard lock(s.lock);
      for (const int c : {k, k + 1}) {  // see take()'s comment
        if (c >= Classes::kCount || s.head[c] == kNone) continue;
        k = c;
        b = s.head[k];
        with(leaf_link(k, b), [&](const auto& bucket) { s.head[k] = bucket.next_free(); });
        break;
      }
    }
    if (b == kNone) {
      const std::size_t slot = claim_fresh(k);
      if (slot >= kMaxBucketsPerClass) throw StoreFull("KdTree: bucket index space exhausted");
      b = static_cast<std::uint32_t>(slot);
    }
    const Link link = leaf_link(k, b);
    with(link, [&](const auto& bucket) {
      store_relaxed(bucket.count(), 0u);
      store_relaxed(bucket.lock(), 0u);
      bucket.writers() = writers;
    });
    return link;
  }

  // Retires the bucket of a leaf that no slot links to any more (its replacement is published, or it
  // never was): readers and writers that reached it before may still read it until the next quiescent
  // point, so it waits on the pending list until then.
  void retire(Link leaf) {
    const int k = class_of(leaf);
    FreeStripe& s = free_[stripe_of_this_thread()];
    SpinGuard lock(s.lock);
    with(leaf, [&](const auto& bucket) { bucket.next_free() = s.pending[k]; });
    if (s.pending[k] == kNone) s.pending_tail[k] = bucket_of(leaf);
    s.pending[k] = bucket_of(leaf);
  }

  // Makes the retired buckets reusable. Only at a quiescent point: no thread inserting or querying.
  void reuse_retired() {
    for (FreeStripe& s : free_) {
      SpinGuard lock(s.lock);
      for (int k = 0; k < Classes::kCount; ++k) {
        if (s.pending[k] == kNone) continue;
        with(leaf_link(k, s.pending_tail[k]), [&](const auto& bucket) { bucket.next_free() = s.head[k]; });
        s.head[k] = s.pending[k];
        s.pending[k] = kNone;
      }
    }
  }

  // Bytes of claimed slots: live leaves, retired buckets waiting for reuse, and slots held back in
  // the claim batches (at most ClassArena::kBatch per class per inserting thread).
  std::size_t bytes_used() const {
    return (std::size_t{0} + ... + (base<K>().arena.size() * sizeof(typename ClassArena<D, Store, LeafSize, Ids, C, K>::BucketT)));
  }
  std::size_t bytes_resident() const { return (std::size_t{0} + ... + base<K>().arena.bytes_resident()); }

 private:
  struct alignas(kFalseSharingBytes) FreeStripe {
    FreeStripe() {
      std::fill(std::begin(head), std::end(head), kNone);
      std::fill(std::begin(pending), std::end(pending), kNone);
    }
    std::atomic<std::uint32_t> lock{0};
    // Guarded by lock: per class, the free list (reusable) and the pending list (retired since the
    // last quiescent point) with its last bucket.
    std::uint32_t head[kMaxClasses];
    std::uint32_t pending[kMaxClasses];
    std::uint32_t pending_tail[kMaxClasses];
  };

  template <int K1>
  ClassArena<D, Store, LeafSize, Ids, C, K1>& base() {
    return static_cast<ClassArena<D, Store, LeafSize, Ids, C, K1>&>(*this);
  }
  template <int K1>
  const ClassArena<D, Store, LeafSize, Ids, C, K1>& base() const {
    return static_cast<const ClassArena<D, Store, LeafSize, Ids, C, K1>&>(*this);
  }
  template <int K1, class F>
  void visit(std::uint32_t b, F& f) {
    if constexpr (K1 < Classes::kCount) {
      base<K1>().arena.with(b, [&](auto& bucket) {
        f(LeafRef<D, Ids, C>{reinterpret_cast<std::byte*>(&bucket), static_cast<std::uint32_t>(Classes::capacity(K1))});
      });
    }
  }

  static constexpr bool kStable = ClassArena<D, Store, LeafSize, Ids, C, 0>::ArenaT::kStable;
  static constexpr std::size_t kBytes[] = {sizeof(typename ClassArena<D, Store, LeafSize, Ids, C, K>::BucketT)...};
  static constexpr std::uint32_t kCapacities[] = {static_cast<std::uint32_t>(Classes::capacity(K))...};
  std::byte* bases_[sizeof...(K)] = {};
  std::size_t claim_fresh(int k) {
    std::size_t slot = 0;
    (void)((k == K ? (slot = base<K>().claims.claim(1), true) : false) || ...);  // the class k's arena
    return slot;
  }

  FreeStripe free_[kClaimStripes];
};

}  // namespace nodegen::spatial_detail
