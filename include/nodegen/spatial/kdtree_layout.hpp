#pragma once
// Memory layout of the k-d tree (see "The price of dynamic memory": 32-bit links instead of pointers,
// leaf points stored contiguously, everything in two arenas).
//
// A link is a 32-bit word naming a subtree. Links are the only mutable part of the tree structure:
// they are published with release stores (or CAS) and read with acquire loads.
//   leaf link:     bit 31 set, bits 27..30 the bucket's size class (kdtree_buckets.hpp), bits 0..26
//                  the bucket index within its class; kEmptyLeaf (all ones) is a leaf with no bucket
//                  yet (its bucket is claimed by the first insert that lands in it).
//   internal link: bit 31 clear, bits 29..30 the split dimension, bits 0..28 the node index.
// Putting the dimension in the link keeps an internal node at 16 bytes (split value + two links).
#include <cstddef>
#include <cstdint>
#include <limits>

namespace nodegen::spatial_detail {

using Link = std::uint32_t;

inline constexpr Link kLeafFlag = 0x8000'0000u;
inline constexpr Link kEmptyLeaf = 0xFFFF'FFFFu;
inline constexpr int kDimShift = 29;
inline constexpr Link kNodeMask = (Link{1} << kDimShift) - 1;
inline constexpr std::uint64_t kMaxNodes = kNodeMask + std::uint64_t{1};
inline constexpr int kClassShift = 27;
inline constexpr int kMaxClasses = 16;
inline constexpr Link kBucketMask = (Link{1} << kClassShift) - 1;
// Buckets per class; the last index of the last class would spell kEmptyLeaf, so no class uses it.
inline constexpr std::uint64_t kMaxBucketsPerClass = kBucketMask;

constexpr bool is_leaf(Link l) { return (l & kLeafFlag) != 0; }
constexpr std::uint32_t bucket_of(Link l) { return l & kBucketMask; }
constexpr int class_of(Link l) { return static_cast<int>((l >> kClassShift) & (kMaxClasses - 1)); }
constexpr Link leaf_link(int cls, std::uint32_t bucket) {
  return kLeafFlag | (static_cast<Link>(cls) << kClassShift) | bucket;
}
constexpr std::uint32_t node_of(Link l) { return l & kNodeMask; }
constexpr int dim_of(Link l) { return static_cast<int>(l >> kDimShift); }
constexpr Link internal_link(std::uint32_t node, int dim) {
  return node | (static_cast<Link>(dim) << kDimShift);
}

// An internal node. Points with coordinate < split (along the dimension named by the link) are in
// child[0], the others in child[1]. The split value is written once before the node is published.
struct Node {
  double split;
  Link child[2];
};
static_assert(sizeof(Node) == 16);

// A leaf's points, structure-of-arrays so a scan walks each coordinate array contiguously. Cap is the
// bucket's capacity (its size class, kdtree_buckets.hpp).
//   count: points published; the writer holding `lock` writes point `count`, then release-stores
//          count + 1, so readers that acquire-load count see complete points below it. Within one
//          life of the bucket (from its publication until it is reused for another leaf) the points
//          below count never change: a retired bucket is reused only after a quiescent point of the
//          tree (KdTree::reuse_retired), so readers read them with plain loads, which vectorise.
//   lock:  writers' spin lock (appends, moves and splits of this leaf are serialised by it).
//   spare: unused; keeps the coordinates 8-byte aligned.
//   next_free: while retired, the next bucket on its free or pending list (kdtree_buckets.hpp);
//          while a live leaf, who writes to it (writer_tag, kdtree_buckets.hpp; written only by the
//          lock holder or before publication).
//   id:    the caller's id of each point, in trees that keep ids (Ids; 4 bytes a point otherwise saved).
// C is the type a coordinate is kept in: double, or a 32-bit integer on a grid (grid_frame.hpp).
template <int D, int Cap, bool Ids, class C>
struct Bucket {
  static constexpr int kCapacity = Cap;
  std::uint32_t count;
  std::uint32_t lock;
  std::uint32_t spare;
  std::uint32_t next_free;
  C coord[D][Cap];
  std::uint32_t id[Cap];
};
template <int D, int Cap, class C>
struct Bucket<D, Cap, false, C> {
  static constexpr int kCapacity = Cap;
  std::uint32_t count;
  std::uint32_t lock;
  std::uint32_t spare;
  std::uint32_t next_free;
  C coord[D][Cap];
};

// A leaf bucket of any class, seen through its capacity: the code that reads and writes leaves is
// compiled once for all classes and reached without a jump on the class (with 8 classes, a switch
// per leaf visit slowed queries in bench/spatial/kdtree: the class varies from leaf to leaf, so the
// jump mispredicts). The fields are those of Bucket<D, cap, Ids, C> (static_asserts in kdtree_buckets.hpp).
template <int D, bool Ids, class C>
struct LeafRef {
  std::byte* p;
  std::uint32_t cap;

  std::uint32_t& count() const { return word(0); }
  std::uint32_t& lock() const { return word(1); }
  std::uint32_t& next_free() const { return word(3); }
  std::uint32_t& writers() const { return word(3); }  // the same word, while the bucket is a live leaf
  C& coord(int d, std::uint32_t i) const {
    return reinterpret_cast<C*>(p + kHeaderBytes)[static_cast<std::size_t>(d) * cap + i];
  }
  std::uint32_t& id(std::uint32_t i) const
    requires Ids
  {
    return reinterpret_cast<std::uint32_t*>(p + kHeaderBytes + sizeof(C) * D * cap)[i];
  }

  static constexpr std::size_t kHeaderBytes = 4 * sizeof(std::uint32_t);

 private:
  std::uint32_t& word(int k) const { return reinterpret_cast<std::uint32_t*>(p)[k]; }
};

// A reference to where a link lives, so the link can be read again later (a query's stack of subtrees
// still to visit, a writer checking that its leaf has not moved, a finger's path): node * 2 + side for a
// child link, kRootSlot for the root.
using Slot = std::uint32_t;
inline constexpr Slot kRootSlot = 0xFFFF'FFFFu;
constexpr Slot child_slot(std::uint32_t node, int side) {
  return node * 2 + static_cast<std::uint32_t>(side);
}

// An axis-aligned cell [lo, hi) of the space (the region of a subtree).
template <int D>
struct Cell {
  double lo[D];
  double hi[D];

  bool contains(const double* p) const {
    for (int d = 0; d < D; ++d)
      if (!(lo[d] <= p[d] && p[d] < hi[d])) return false;
    return true;
  }
  static Cell unbounded() {
    Cell c;
    for (int d = 0; d < D; ++d) {
      c.lo[d] = -std::numeric_limits<double>::infinity();
      c.hi[d] = std::numeric_limits<double>::infinity();
    }
    return c;
  }
};

}  // namespace nodegen::spatial_detail
