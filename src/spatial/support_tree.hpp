#pragma once
// SupportTree: a static k-d tree over a fixed point set, for the k-nearest queries of supports
// (nearest_supports.hpp), where every query is one of the points.
//
// Layout: the points are copied in tree order (each node a contiguous range of them); the tree is
// implicit, node i's children at 2i + 1 and 2i + 2, split at the middle of its range along the longest
// side of its cell clipped to all points' box (ties by id, so the order is a function of the points
// alone); a node keeps its points' tight box (made bottom-up after the splits), for pruning, and its
// cell (the region its ancestors' split planes leave it), for knowing when a ball lies wholly inside
// it. A leaf holds at most kLeafSize points.
//
// Query (near_leaf): the points near a whole leaf at once, for the queries of all its points: the
// search climbs from the leaf to the first ancestor whose cell strictly contains the leaf's box grown
// by the radius (no point outside that subtree can then be near) and walks down from there, so a small
// radius costs a few nodes, not a walk from the root, and one walk serves the leaf's points.
//
// Thread use: immutable once built; any number of threads query it at once.
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "nodegen/spatial/point.hpp"

namespace nodegen::spatial_detail {

template <int D>
class SupportTree {
 public:
  static constexpr std::uint32_t kLeafSize = 16;

  // Built a level at a time, `threads` splitting a level's nodes among them; the tree does not depend
  // on it.
  SupportTree(std::span<const Vec<D>> points, int threads);

  // The id (index in the points given) of the point at tree position j, and its coordinates; the
  // coordinates along axis a of all points, in tree order (an array per axis: a leaf's are contiguous).
  std::uint32_t id_at(std::size_t j) const { return ids_[j]; }
  Vec<D> point_at(std::size_t j) const {
    Vec<D> p;
    for (int a = 0; a < D; ++a) p[a] = axes_[static_cast<std::size_t>(a)][j];
    return p;
  }
  const double* axis(int a) const { return axes_[static_cast<std::size_t>(a)].data(); }

  // The leaves, in tree order: leaf l holds tree positions [leaf_begin(l), leaf_end(l)).
  std::size_t leaves() const { return leaves_.size(); }
  std::size_t leaf_begin(std::size_t l) const { return nodes_[leaves_[l]].begin; }
  std::size_t leaf_end(std::size_t l) const { return nodes_[leaves_[l]].end; }
  // The squared diagonal of leaf l's box.
  double leaf_diagonal2(std::size_t l) const {
    const Node& n = nodes_[leaves_[l]];
    return (n.hi - n.lo).squaredNorm();
  }

  // Calls out(begin, end) for tree positions [begin, end) of each leaf within distance r of leaf l's box
  // (its own included): every point within r of any point of the leaf, and others.
  template <class Out>
  void near_leaf(std::size_t l, double r, Out&& out) const;

 private:
  struct Node {
    Vec<D> lo, hi;            // the points' tight box
    Vec<D> cell_lo, cell_hi;  // the split planes' region (infinite at the outside)
    std::uint32_t begin = 0, end = 0;
  };
  static bool is_leaf(const Node& n) { return n.end - n.begin <= kLeafSize; }

  std::array<std::vector<double>, D> axes_;  // the points' coordinates in tree order, an array per axis
  std::vector<std::uint32_t> ids_;           // ids_[j]: the given index of the point at position j
  std::vector<std::uint32_t> leaves_;  // the leaf nodes, in tree order
  std::vector<Node> nodes_;            // implicit: children of i at 2i + 1, 2i + 2; unused slots empty
};

template <int D>
template <class Out>
void SupportTree<D>::near_leaf(std::size_t l, double r, Out&& out) const {
  const Node& leaf = nodes_[leaves_[l]];
  const Vec<D> lo = leaf.lo.array() - r, hi = leaf.hi.array() + r;  // the leaf's box grown by r
  // Climb to the first node whose cell holds the grown box strictly inside: no point outside that
  // subtree is within r of the leaf.
  std::size_t top = leaves_[l];
  while (top > 0) {
    const Node& n = nodes_[top];
    if ((lo.array() > n.cell_lo.array()).all() && (hi.array() < n.cell_hi.array()).all()) break;
    top = (top - 1) / 2;
  }
  const double r2 = r * r;
  std::size_t stack[64];
  int depth = 0;
  stack[depth++] = top;
  while (depth > 0) {
    const std::size_t at = stack[--depth];
    const Node& n = nodes_[at];
    // Box to box: the gap between the node's box and the leaf's along each axis.
    const double gap2 = (n.lo - leaf.hi).cwiseMax(leaf.lo - n.hi).cwiseMax(0.0).squaredNorm();
    if (gap2 > r2) continue;
    if (is_leaf(n)) {
      out(std::size_t{n.begin}, std::size_t{n.end});
      continue;
    }
    stack[depth++] = 2 * at + 2;
    stack[depth++] = 2 * at + 1;
  }
}

extern template class SupportTree<2>;
extern template class SupportTree<3>;

}  // namespace nodegen::spatial_detail
