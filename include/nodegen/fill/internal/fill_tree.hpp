#pragma once
// FillTree: the fill's k-d tree (the nodes placed so far, as the node rule asks for them) and its
// upkeep between rounds.
//
// Shape: the tree answers where the nodes are, never which: it keeps no ids (4 bytes a node). Leaves
// hold up to 64 points: with the leaf scan one vectorised pass, a shallower tree pays for the larger
// leaves (the leaf size compared: bench/RESULTS.md, Fill), and the nodes are the same at any leaf size.
// Its points lie on a grid of 2^32 steps per axis over the domain's box (grid_frame.hpp): 4 bytes a
// coordinate instead of 8, and a node's neighbours are tested at their grid points, within sqrt(D) / 2
// steps of them (6.1e-10 of the box in 3D, 0.3 % of the least spacing the fill takes).
//
// Upkeep: a leaf that grows or splits moves to another bucket and retires the old one, which becomes
// reusable only at a quiescent point, when no thread is in the tree (KdTree::reuse_retired). The fill
// has two: an insert by the one thread at work (seeding, a completion step: insert_alone), and the
// barrier's completion step (reuse_retired, every kReuseAfter nodes).
//
// Concurrency: the team's threads insert and query through the tree directly (operator->) during a
// round; insert_alone and reuse_retired only while no other thread is in it.
#include <cstddef>
#include <memory>

#include "nodegen/geometry/box.hpp"
#include "nodegen/spatial/grid_frame.hpp"
#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D, template <class> class Store>
class FillTree {
 public:
  using Tree = KdTree<D, Store, 64, PointIds::none, Coords::grid>;

  // Room for `reserved` nodes in the domain's box `box`, on the store options `options`.
  template <class Options>
  FillTree(std::size_t reserved, const Box<D>& box, const Options& options)
      : tree_(std::make_unique<Tree>(reserved, GridFrame<D>::around(box.lo.data(), box.hi.data()), options)) {}

  Tree& operator*() const { return *tree_; }
  Tree* operator->() const { return tree_.get(); }

  // An insert by the one thread at work: no other thread is in the tree, so the buckets that leaves
  // move out of are made reusable as it goes rather than at the end of the next round (the boundary
  // nodes, inserted before the first round, would otherwise hold their retired buckets through it).
  void insert_alone(const Vec<D>& p, typename Tree::Finger& finger) {
    tree_->insert(p, finger);
    if (++alone_inserts_ % 1024 == 0) tree_->reuse_retired();
  }

  // The completion step's: the retired buckets made reusable (no thread is in the tree) once
  // kReuseAfter nodes have been placed since the last time (`placed`: the nodes so far), not every
  // round: the call reads every stripe, the other threads' lines among them, a cost the few tens of
  // KiB a few thousand inserts retire do not repay.
  void reuse_retired(std::size_t placed) {
    if (placed - reused_at_ < kReuseAfter) return;
    tree_->reuse_retired();
    reused_at_ = placed;
  }

  // Frees the tree (the fill's output no longer needs it).
  void release() { tree_.reset(); }

 private:
  static constexpr std::size_t kReuseAfter = 4096;

  std::unique_ptr<Tree> tree_;
  std::size_t alone_inserts_ = 0;  // inserts by the one thread at work (insert_alone)
  std::size_t reused_at_ = 0;      // the nodes placed when the retired buckets were last made reusable
};

}  // namespace nodegen::fill_detail
