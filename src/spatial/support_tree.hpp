#pragma once
// SupportTree: a static k-d tree cut at the middles of its boxes, over a fixed point set, for the
// k-nearest queries of supports (nearest_supports.hpp), where every query is one of the points.
//
// Layout: the points are sorted once by their Morton code (the coordinates quantised to 2^B steps of
// the points' bounding cube, B = 31 in 2D, 21 in 3D, the axes' bits interleaved), with a stable radix
// sort, so points with one code stay in id order and the order is a function of the points alone. A
// node is a range of that order and a box of the cube's grid: its two children are the halves of its
// range whose codes' next bit is 0 and 1, the halves of its box across the axis of that bit (so the
// cuts take the axes in turn, at the middle of the box); a node whose points all have one value of
// that bit keeps its larger box, and its points go on to the next bit (no chains of single children).
// A range of at most kLeafSize points is a leaf. A larger range of points the quantisation cannot
// tell apart (one code) is halved by position until its parts are leaves, the halves with an empty
// cell (the other half shares theirs). Each node keeps its points' tight box (made bottom-up), for
// pruning, and its cell (its box of the grid), for knowing when a ball lies wholly inside it. Children
// follow one another in the node array, after their parent, and the leaves come in the points' order.
//
// Why not median splits: sorting by code costs a few linear passes, where a median split rereads
// every point at every level; on the nodes of a fill (nearly even spacing locally) the middle of a box
// cuts its points about as evenly as their median would.
//
// Query (near_leaf): the points near a whole leaf at once, for the queries of all its points: the
// search climbs from the leaf to the first ancestor whose cell holds the leaf's box grown by the
// radius strictly inside, by a margin far above the quantisation's rounding (no point outside that
// subtree can then be near), and walks down from there, so a small radius costs a few nodes, not a
// walk from the root, and one walk serves the leaf's points.
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
  static constexpr std::uint32_t kLeafSize = 24;

  // `lo`, `hi`: the points' bounding box (the caller has it from checking them). `threads` share the
  // codes, the copy into tree order and the leaves' boxes; the tree does not depend on it. The
  // coordinates must be finite, and the squares of their span too (nearest_supports checks).
  SupportTree(std::span<const Vec<D>> points, const Vec<D>& lo, const Vec<D>& hi, int threads);

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
  static constexpr int kBits = D == 2 ? 31 : 21;  // quantisation steps per axis: 2^kBits
  static constexpr std::uint32_t kNone = 0xFFFF'FFFFu;
  struct Node {
    Vec<D> lo, hi;            // the points' tight box
    Vec<D> cell_lo, cell_hi;  // its cell, shrunk by the margin (the root's is everything)
    std::uint32_t begin = 0, end = 0;
    std::uint32_t parent = kNone;
    std::uint32_t first_child = 0;  // its two children: nodes first_child and first_child + 1; 0: a leaf
  };
  using Codes = std::vector<std::uint64_t>;
  using Steps = std::array<std::uint64_t, D>;  // a place on the grid of the codes, in steps per axis
  void sort_by_code(std::span<const Vec<D>> points, Codes& codes, int threads);
  void split(std::uint32_t at, const Codes& codes, int bit, Steps lo, Steps hi);
  std::uint32_t add_children(std::uint32_t parent);
  void set_cell(Node& node, const Steps& lo, const Steps& hi) const;
  void make_boxes(int threads);

  std::array<std::vector<double>, D> axes_;  // the points' coordinates in tree order, an array per axis
  std::vector<std::uint32_t> ids_;           // ids_[j]: the given index of the point at position j
  std::vector<std::uint32_t> leaves_;        // the leaf nodes, in tree order
  std::vector<Node> nodes_;                  // the root first; children after their parent
  Vec<D> origin_;                            // the bounding cube's low corner
  double side_ = 0.0;                        // and its side
};

template <int D>
template <class Out>
void SupportTree<D>::near_leaf(std::size_t l, double r, Out&& out) const {
  const Node& leaf = nodes_[leaves_[l]];
  const Vec<D> lo = leaf.lo.array() - r, hi = leaf.hi.array() + r;  // the leaf's box grown by r
  // Climb to the first node whose cell holds the grown box strictly inside: no point outside that
  // subtree is within r of the leaf.
  std::uint32_t top = leaves_[l];
  while (nodes_[top].parent != kNone) {
    const Node& n = nodes_[top];
    if ((lo.array() > n.cell_lo.array()).all() && (hi.array() < n.cell_hi.array()).all()) break;
    top = n.parent;
  }
  const double r2 = r * r;
  // Depth-first: at most one sibling waits per level above the one being walked, and a node is at most
  // D kBits bits and 32 halvings (2^32 points) deep.
  std::uint32_t stack[D * kBits + 34];
  int depth = 0;
  stack[depth++] = top;
  while (depth > 0) {
    const Node& n = nodes_[stack[--depth]];
    // Box to box: the gap between the node's box and the leaf's along each axis.
    const double gap2 = (n.lo - leaf.hi).cwiseMax(leaf.lo - n.hi).cwiseMax(0.0).squaredNorm();
    if (gap2 > r2) continue;
    if (n.first_child == 0) {
      out(std::size_t{n.begin}, std::size_t{n.end});
      continue;
    }
    stack[depth++] = n.first_child + 1;
    stack[depth++] = n.first_child;
  }
}

extern template class SupportTree<2>;
extern template class SupportTree<3>;

}  // namespace nodegen::spatial_detail
