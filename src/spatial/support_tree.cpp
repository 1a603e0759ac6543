// SupportTree (support_tree.hpp): split level by level, the nodes of a level in parallel; the boxes
// then bottom-up, the same way.
#include "spatial/support_tree.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "nodegen/parallel/thread_team.hpp"

namespace nodegen::spatial_detail {
namespace {

// A point while the tree is built: plain coordinates (Eigen's 2-vector is aligned to 16 bytes, which
// would pad the item to 32 in 2D), moved at every level's selection.
template <int D>
struct Item {
  std::array<double, D> p;
  std::uint32_t id;
};

}  // namespace

template <int D>
SupportTree<D>::SupportTree(std::span<const Vec<D>> points, int threads) {
  const std::size_t n = points.size();
  using Item = spatial_detail::Item<D>;
  std::vector<Item> items(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (int a = 0; a < D; ++a) items[i].p[static_cast<std::size_t>(a)] = points[i][a];
    items[i].id = static_cast<std::uint32_t>(i);
  }
  std::size_t levels = 1;
  for (std::size_t size = n; size > kLeafSize; size = (size + 1) / 2) ++levels;
  nodes_.resize((std::size_t{1} << levels) - 1);
  const double inf = std::numeric_limits<double>::infinity();
  nodes_[0].cell_lo = Vec<D>::Constant(-inf);
  nodes_[0].cell_hi = Vec<D>::Constant(inf);
  nodes_[0].begin = 0;
  nodes_[0].end = static_cast<std::uint32_t>(n);
  std::vector<char> used(nodes_.size(), 0);
  used[0] = n > 0;
  // The split axis is the longest side of a node's cell clipped to the points' box: the tight boxes are
  // then needed only for pruning, and are made bottom-up once the points are in place (a pass over the
  // points, instead of one a level).
  Vec<D> all_lo = Vec<D>::Constant(inf), all_hi = Vec<D>::Constant(-inf);
  for (const Vec<D>& p : points) all_lo = all_lo.cwiseMin(p), all_hi = all_hi.cwiseMax(p);
  for (std::size_t level = 0; level < levels; ++level) {
    const std::size_t first = (std::size_t{1} << level) - 1, count = std::size_t{1} << level;
    parallel_for(count, threads, [&](int, std::size_t k) {
      const std::size_t at = first + k;
      if (!used[at]) return;
      Node& node = nodes_[at];
      if (is_leaf(node)) return;
      int longest = 0;
      (node.cell_hi.cwiseMin(all_hi) - node.cell_lo.cwiseMax(all_lo)).maxCoeff(&longest);
      const auto axis = static_cast<std::size_t>(longest);
      const std::uint32_t mid = node.begin + (node.end - node.begin) / 2;
      // Ties by id: the order, and so the tree, is a function of the points alone.
      std::nth_element(items.begin() + node.begin, items.begin() + mid, items.begin() + node.end,
                       [axis](const Item& a, const Item& b) {
                         return a.p[axis] < b.p[axis] || (a.p[axis] == b.p[axis] && a.id < b.id);
                       });
      const double split = items[mid].p[axis];
      Node& left = nodes_[2 * at + 1];
      Node& right = nodes_[2 * at + 2];
      left.cell_lo = right.cell_lo = node.cell_lo;
      left.cell_hi = right.cell_hi = node.cell_hi;
      left.cell_hi[longest] = split;
      right.cell_lo[longest] = split;
      left.begin = node.begin, left.end = mid;
      right.begin = mid, right.end = node.end;
      used[2 * at + 1] = used[2 * at + 2] = 1;
    });
  }
  // Tight boxes, the deepest level first: a leaf's from its points, a parent's from its children's.
  for (std::size_t level = levels; level-- > 0;) {
    const std::size_t first = (std::size_t{1} << level) - 1, count = std::size_t{1} << level;
    parallel_for(count, threads, [&](int, std::size_t k) {
      const std::size_t at = first + k;
      if (!used[at]) return;
      Node& node = nodes_[at];
      if (is_leaf(node)) {
        node.lo = Vec<D>::Constant(inf);
        node.hi = Vec<D>::Constant(-inf);
        for (std::uint32_t i = node.begin; i < node.end; ++i) {
          const Vec<D> p = Eigen::Map<const Vec<D>>(items[i].p.data());
          node.lo = node.lo.cwiseMin(p);
          node.hi = node.hi.cwiseMax(p);
        }
        return;
      }
      const Node &left = nodes_[2 * at + 1], &right = nodes_[2 * at + 2];
      node.lo = left.lo.cwiseMin(right.lo);
      node.hi = left.hi.cwiseMax(right.hi);
    });
  }
  for (auto& axis : axes_) axis.resize(n);
  ids_.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t a = 0; a < D; ++a) axes_[a][i] = items[i].p[a];
    ids_[i] = items[i].id;
  }
  for (std::size_t at = 0; at < nodes_.size(); ++at)
    if (used[at] && is_leaf(nodes_[at]) && nodes_[at].end > nodes_[at].begin) leaves_.push_back(static_cast<std::uint32_t>(at));
  // Leaves by position: a level's leaves come before a deeper level's in node order, not in space.
  std::sort(leaves_.begin(), leaves_.end(), [&](std::uint32_t a, std::uint32_t b) { return nodes_[a].begin < nodes_[b].begin; });
}

template class SupportTree<2>;
template class SupportTree<3>;

}  // namespace nodegen::spatial_detail
