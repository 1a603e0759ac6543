#pragma once
// A static bounding-box hierarchy over the children of a CSG node, so that the inside test of a union
// (or of the subtracted part of a difference) of many children visits only the children whose box
// holds the point: without it a union of 1e5 disks takes more than a minute to load and place, every
// inside test asking all of them. Built once (median splits, O(n log n)); queries walk it with a fixed stack.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include <nodegen/geometry/box.hpp>

namespace nodegen::geometry_detail {

template <int D>
class BoxHierarchy {
 public:
  static constexpr std::size_t kLeafSize = 4;

  // boxes[i] bounds item i. Each box is widened by a few units in the last place, so the hierarchy
  // never skips an item whose own inside test would round the other way on its box's surface.
  explicit BoxHierarchy(std::vector<Box<D>> boxes) : boxes_(std::move(boxes)), order_(boxes_.size()) {
    for (Box<D>& b : boxes_) {
      const double pad = 8 * std::numeric_limits<double>::epsilon() * b.reach();
      b.lo.array() -= pad;
      b.hi.array() += pad;
    }
    std::iota(order_.begin(), order_.end(), std::uint32_t{0});
    if (boxes_.empty()) return;
    nodes_.resize(1);
    build(0, 0, boxes_.size());
  }

  // The number of pairs of items whose boxes overlap (touching counts), counted up to a little past
  // `limit` and no further: a load-time bound on how many children a boundary node of one child is
  // tested against, whose cost stays near min(pairs, limit) + n log n.
  std::size_t overlapping_pairs(std::size_t limit) const {
    std::size_t pairs = 0;
    for (std::uint32_t i = 0; i < boxes_.size() && pairs <= limit; ++i) {
      const Box<D>& b = boxes_[i];
      std::uint32_t stack[kMaxDepth];
      int top = 0;
      stack[top++] = 0;
      while (top > 0 && pairs <= limit) {
        const Node& n = nodes_[stack[--top]];
        if (!overlap(n.box, b)) continue;
        if (n.count > 0) {
          for (std::uint32_t k = n.first; k < n.first + n.count; ++k)
            pairs += order_[k] > i && overlap(boxes_[order_[k]], b);
        } else {
          stack[top++] = n.first;
          stack[top++] = n.first + 1;
        }
      }
    }
    return pairs;
  }

  // Calls visit(i) for every item whose box holds p, until visit returns true; true if one did.
  template <class Visit>
  bool any(const Vec<D>& p, Visit&& visit) const {
    if (nodes_.empty()) return false;
    std::uint32_t stack[kMaxDepth];
    int top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const Node& n = nodes_[stack[--top]];
      if (!n.box.contains(p)) continue;
      if (n.count > 0) {
        for (std::uint32_t k = n.first; k < n.first + n.count; ++k) {
          const std::uint32_t item = order_[k];
          if (boxes_[item].contains(p) && visit(item)) return true;
        }
      } else {
        stack[top++] = n.first;
        stack[top++] = n.first + 1;
      }
    }
    return false;
  }

 private:
  static bool overlap(const Box<D>& a, const Box<D>& b) {
    return (a.lo.array() <= b.hi.array()).all() && (b.lo.array() <= a.hi.array()).all();
  }
  // Median splits halve the items at each level: 2 * 64 entries cover any count of items.
  static constexpr int kMaxDepth = 130;

  struct Node {
    Box<D> box;
    std::uint32_t first = 0;  // leaf: first index into order_; inner: index of the left child node
    std::uint32_t count = 0;  // leaf: number of items; inner: 0
  };

  // Builds the subtree over order_[begin, end) into node `index` (recursion depth: log2 of the count).
  void build(std::uint32_t index, std::size_t begin, std::size_t end) {
    Box<D> box = boxes_[order_[begin]];
    for (std::size_t k = begin + 1; k < end; ++k) {
      box.lo = box.lo.cwiseMin(boxes_[order_[k]].lo);
      box.hi = box.hi.cwiseMax(boxes_[order_[k]].hi);
    }
    nodes_[index].box = box;
    if (end - begin <= kLeafSize) {
      nodes_[index].first = static_cast<std::uint32_t>(begin);
      nodes_[index].count = static_cast<std::uint32_t>(end - begin);
      return;
    }
    int axis = 0;
    box.size().maxCoeff(&axis);
    const std::size_t mid = begin + (end - begin) / 2;
    std::nth_element(order_.begin() + static_cast<std::ptrdiff_t>(begin), order_.begin() + static_cast<std::ptrdiff_t>(mid),
                     order_.begin() + static_cast<std::ptrdiff_t>(end), [&](std::uint32_t a, std::uint32_t b) {
                       return boxes_[a].lo[axis] + boxes_[a].hi[axis] < boxes_[b].lo[axis] + boxes_[b].hi[axis];
                     });
    // The two children sit next to each other: the left one's index says where both are.
    const auto left = static_cast<std::uint32_t>(nodes_.size());
    nodes_.resize(nodes_.size() + 2);
    nodes_[index].first = left;
    build(left, begin, mid);
    build(left + 1, mid, end);
  }

  std::vector<Box<D>> boxes_;
  std::vector<std::uint32_t> order_;
  std::vector<Node> nodes_;
};

}  // namespace nodegen::geometry_detail
