// SupportTree (support_tree.hpp): the points sorted by Morton code with a stable radix sort, the nodes
// split off the sorted codes depth first, then the leaves' boxes in parallel and the others bottom-up.
#include "spatial/support_tree.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cfloat>
#include <limits>
#include <utility>

#include "nodegen/parallel/thread_team.hpp"

namespace nodegen::spatial_detail {
namespace {

// The bits of v (below 2^bits) spread to every D-th bit.
template <int D>
std::uint64_t spread(std::uint64_t v) {
  if constexpr (D == 2) {
    v &= 0xFFFF'FFFFull;
    v = (v | v << 16) & 0x0000'FFFF'0000'FFFFull;
    v = (v | v << 8) & 0x00FF'00FF'00FF'00FFull;
    v = (v | v << 4) & 0x0F0F'0F0F'0F0F'0F0Full;
    v = (v | v << 2) & 0x3333'3333'3333'3333ull;
    v = (v | v << 1) & 0x5555'5555'5555'5555ull;
  } else {
    v &= 0x1F'FFFFull;
    v = (v | v << 32) & 0x001F'0000'0000'FFFFull;
    v = (v | v << 16) & 0x001F'0000'FF00'00FFull;
    v = (v | v << 8) & 0x100F'00F0'0F00'F00Full;
    v = (v | v << 4) & 0x10C3'0C30'C30C'30C3ull;
    v = (v | v << 2) & 0x1249'2492'4924'9249ull;
  }
  return v;
}

// Sorts keys by their high 32 bits, stably: three passes of 11 bits (a pass's 2048 destinations stay
// in the cache, where 16-bit digits scatter across 65536); a pass whose digit is the same for every key
// is skipped.
void radix_sort_high(std::vector<std::uint64_t>& keys) {
  const std::size_t n = keys.size();
  std::vector<std::uint64_t> sorted(n);
  std::vector<std::uint32_t> count(std::size_t{1} << 11);
  for (int shift = 32; shift < 64; shift += 11) {
    std::fill(count.begin(), count.end(), 0u);
    for (const std::uint64_t k : keys) ++count[(k >> shift) & 0x7FF];
    if (n == 0 || count[(keys[0] >> shift) & 0x7FF] == n) continue;
    std::uint32_t sum = 0;
    for (std::uint32_t& c : count) sum += std::exchange(c, sum);
    for (const std::uint64_t k : keys) sorted[count[(k >> shift) & 0x7FF]++] = k;
    keys.swap(sorted);
  }
}

// v[first + j] = old v[order[j]] for j below order's size (order: positions from `first` on).
template <class T>
void permute(const std::vector<std::uint32_t>& order, std::vector<T>& v, std::size_t first) {
  std::vector<T> old(v.begin() + static_cast<std::ptrdiff_t>(first), v.begin() + static_cast<std::ptrdiff_t>(first + order.size()));
  for (std::size_t j = 0; j < order.size(); ++j) v[first + j] = old[order[j] - first];
}

}  // namespace

template <int D>
SupportTree<D>::SupportTree(std::span<const Vec<D>> points, const Vec<D>& lo, const Vec<D>& hi, int threads) {
  const std::size_t n = points.size();
  origin_ = n > 0 ? lo : Vec<D>::Zero();
  side_ = n > 0 ? (hi - lo).maxCoeff() : 0.0;
  Codes codes;
  sort_by_code(points, codes, threads);
  nodes_.reserve(n / kLeafSize * 2 + 1);
  nodes_.emplace_back();
  const double inf = std::numeric_limits<double>::infinity();
  nodes_[0].cell_lo = Vec<D>::Constant(-inf);
  nodes_[0].cell_hi = Vec<D>::Constant(inf);
  nodes_[0].end = static_cast<std::uint32_t>(n);
  Steps end;
  end.fill(std::uint64_t{1} << kBits);
  if (n > 0) split(0, codes, 0, Steps{}, end);
  make_boxes(threads);
}

// The points' order by code, ties in id order (sorted by the codes' high 32 bits
// with the id below them, then the rare runs of one high part by the whole code), and their
// coordinates and codes in that order.
template <int D>
void SupportTree<D>::sort_by_code(std::span<const Vec<D>> points, Codes& codes, int threads) {
  const std::size_t n = points.size();
  const double steps = std::ldexp(1.0, kBits);
  // Finite even for a span of a few hundred ulps of 0 (steps / side would overflow), so no step is
  // 0 * infinity.
  const double scale = side_ > 0 ? std::min(steps / side_, std::numeric_limits<double>::max()) : 0.0;
  const auto code_of = [&](const Vec<D>& p) {
    std::uint64_t code = 0;
    for (int a = 0; a < D; ++a) {
      const double t = (p[a] - origin_[a]) * scale;
      const double q = t > 0 ? std::min(std::floor(t), steps - 1) : 0.0;
      code |= spread<D>(static_cast<std::uint64_t>(q)) << a;
    }
    return code;
  };
  constexpr int kLow = D * kBits - 32;  // the code's bits below its high 32
  constexpr std::size_t kPrefetch = 16;
  std::vector<std::uint64_t> keys(n);
  parallel_ranges(n, threads, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) keys[i] = (code_of(points[i]) >> kLow) << 32 | i;
  });
  radix_sort_high(keys);
  codes.resize(n);
  ids_.resize(n);
  for (auto& axis : axes_) axis.resize(n);
  parallel_ranges(n, threads, [&](int, std::size_t begin, std::size_t end) {
    for (std::size_t j = begin; j < end; ++j) {
      // The points are read in code order, far from their own order: the read kPrefetch ahead is
      // asked for now, so the cache misses overlap.
      if (j + kPrefetch < end) __builtin_prefetch(points.data() + static_cast<std::uint32_t>(keys[j + kPrefetch]));
      ids_[j] = static_cast<std::uint32_t>(keys[j]);
      const Vec<D>& p = points[ids_[j]];
      codes[j] = code_of(p);
      for (int a = 0; a < D; ++a) axes_[static_cast<std::size_t>(a)][j] = p[a];
    }
  });
  // Runs of one high part, in id order: by the whole code, ids keeping their order among equal codes.
  std::vector<std::uint32_t> order;
  for (std::size_t b = 0, e; b < n; b = e) {
    for (e = b + 1; e < n && keys[e] >> 32 == keys[b] >> 32;) ++e;
    if (e - b < 2 || std::is_sorted(codes.begin() + b, codes.begin() + e)) continue;
    order.resize(e - b);
    for (std::size_t j = 0; j < order.size(); ++j) order[j] = static_cast<std::uint32_t>(b + j);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return codes[x] < codes[y]; });
    permute(order, codes, b);
    permute(order, ids_, b);
    for (auto& axis : axes_) permute(order, axis, b);
  }
}

// Node `at` (its range and cell set) gets its children: the ranges of the next bit of the codes, or
// halves of a range of one code. `bit`: the bits of the codes its points share; its cell runs from
// `lo` to `hi` steps (hi excluded) along each axis.
template <int D>
void SupportTree<D>::split(std::uint32_t at, const Codes& codes, int bit, Steps lo, Steps hi) {
  const std::uint32_t begin = nodes_[at].begin, end = nodes_[at].end;
  if (end - begin <= kLeafSize) {
    leaves_.push_back(at);
    return;
  }
  const auto first = codes.begin() + begin, last = codes.begin() + end;
  for (; bit < D * kBits; ++bit) {
    const int shift = D * kBits - 1 - bit;  // bit shift / D of axis shift % D
    const auto axis = static_cast<std::size_t>(shift % D);
    const std::uint64_t mid = lo[axis] + (hi[axis] - lo[axis]) / 2;
    const auto upper = std::partition_point(first, last, [shift](std::uint64_t c) { return !((c >> shift) & 1); });
    if (upper == first || upper == last) {  // one half holds them all: go on inside it
      (upper == first ? lo : hi)[axis] = mid;
      continue;
    }
    const std::uint32_t children = add_children(at);
    const auto split_at = static_cast<std::uint32_t>(upper - codes.begin());
    Steps lower_hi = hi, upper_lo = lo;
    lower_hi[axis] = upper_lo[axis] = mid;
    nodes_[children].begin = begin, nodes_[children].end = split_at;
    nodes_[children + 1].begin = split_at, nodes_[children + 1].end = end;
    set_cell(nodes_[children], lo, lower_hi);
    set_cell(nodes_[children + 1], upper_lo, hi);
    split(children, codes, bit + 1, lo, lower_hi);
    split(children + 1, codes, bit + 1, upper_lo, hi);
    return;
  }
  // One code: halves by position. The other half lies in the same cell, so a half has no cell of its
  // own (an empty one, which holds no ball): the query climbs past it.
  const std::uint32_t children = add_children(at);
  const std::uint32_t mid = begin + (end - begin) / 2;
  const double inf = std::numeric_limits<double>::infinity();
  for (std::uint32_t c = 0; c < 2; ++c) {
    Node& child = nodes_[children + c];
    child.begin = c == 0 ? begin : mid;
    child.end = c == 0 ? mid : end;
    child.cell_lo = Vec<D>::Constant(inf);
    child.cell_hi = Vec<D>::Constant(-inf);
    split(children + c, codes, bit, lo, hi);
  }
}

template <int D>
std::uint32_t SupportTree<D>::add_children(std::uint32_t parent) {
  const auto first = static_cast<std::uint32_t>(nodes_.size());
  nodes_.resize(nodes_.size() + 2);
  nodes_[parent].first_child = first;
  nodes_[first].parent = nodes_[first + 1].parent = parent;
  return first;
}

// The cell from `lo` to `hi` steps, in coordinates, shrunk by a margin above the rounding of a point's
// steps and of the cell's bounds (a few ulps of the coordinates' magnitude): 2^-40 of the cube, below
// its least cell (2^-kBits of it), or more far from the origin. A cell the margin empties holds no ball,
// and the query climbs past it: never a wrong answer.
template <int D>
void SupportTree<D>::set_cell(Node& node, const Steps& lo, const Steps& hi) const {
  const double reach = origin_.cwiseAbs().maxCoeff() + side_;
  const double margin = std::max(std::ldexp(side_, -40), 8 * DBL_EPSILON * reach);
  for (int a = 0; a < D; ++a) {
    const auto at = static_cast<std::size_t>(a);
    node.cell_lo[a] = origin_[a] + side_ * std::ldexp(static_cast<double>(lo[at]), -kBits) + margin;
    node.cell_hi[a] = origin_[a] + side_ * std::ldexp(static_cast<double>(hi[at]), -kBits) - margin;
  }
}

// Tight boxes: the leaves' from their points, in parallel; then every other node's from its children,
// which follow it in the array.
template <int D>
void SupportTree<D>::make_boxes(int threads) {
  const double inf = std::numeric_limits<double>::infinity();
  parallel_for(leaves_.size(), threads, [&](int, std::size_t l) {
    Node& node = nodes_[leaves_[l]];
    node.lo = Vec<D>::Constant(inf);
    node.hi = Vec<D>::Constant(-inf);
    for (std::uint32_t j = node.begin; j < node.end; ++j) {
      const Vec<D> p = point_at(j);
      node.lo = node.lo.cwiseMin(p);
      node.hi = node.hi.cwiseMax(p);
    }
  });
  for (std::size_t at = nodes_.size(); at-- > 0;) {
    Node& node = nodes_[at];
    if (node.first_child == 0) continue;
    assert(node.first_child > at);
    const Node &left = nodes_[node.first_child], &right = nodes_[node.first_child + 1];
    node.lo = left.lo.cwiseMin(right.lo);
    node.hi = left.hi.cwiseMax(right.hi);
  }
}

template class SupportTree<2>;
template class SupportTree<3>;

}  // namespace nodegen::spatial_detail
