// nearest_supports (spatial/nearest_supports.hpp): a static k-d tree of the nodes (support_tree.hpp),
// built and asked in parallel.
#include "nodegen/spatial/nearest_supports.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "nodegen/parallel/thread_team.hpp"
#include "spatial/support_tree.hpp"

namespace nodegen {

namespace {

// One thread's k-nearest queries, a leaf of the tree at a time and the leaves in the tree's order
// (neighbouring leaves hold nodes of nearly the same spacing). One walk gathers the points within r of
// the leaf's box, whose radius is the last leaf's largest k-th distance grown by a tenth; each of the
// leaf's points keeps, of those within r of itself, the k nearest by (squared distance, id). The radius
// is doubled until every k-th nearest lies clearly inside it: every point outside is then farther than
// all k, so the answer is the exact k nearest whatever radius found it, the same on any thread. The
// first leaf of a run starts from its own diagonal.
template <int D>
class LeafQueries {
 public:
  LeafQueries(const spatial_detail::SupportTree<D>& tree, int k) : tree_(tree), k_(static_cast<std::size_t>(k)) {}

  void answer(std::size_t leaf, std::int64_t* out) {
    const std::size_t begin = tree_.leaf_begin(leaf), end = tree_.leaf_end(leaf);
    if (!(radius2_ > 0)) radius2_ = std::max(tree_.leaf_diagonal2(leaf), std::numeric_limits<double>::min());
    for (double r2 = radius2_ * 1.21;; r2 *= 4) {
      gather(leaf, r2);
      if (near_.size() < k_) continue;
      rows_.clear();
      double largest = 0.0;
      bool inside = true;
      for (std::size_t j = begin; j < end && inside; ++j) {
        const double kth2 = select(tree_.point_at(j), r2);
        inside = kth2 < r2 * (1.0 - 1e-9);  // a point the pruning's rounding left out lies beyond
        largest = std::max(largest, kth2);
      }
      if (!inside) continue;
      for (std::size_t j = begin; j < end; ++j)
        std::copy_n(rows_.begin() + static_cast<std::ptrdiff_t>((j - begin) * k_), k_, out + tree_.id_at(j) * k_);
      radius2_ = largest;
      return;
    }
  }

 private:
  void gather(std::size_t leaf, double r2) {
    near_.clear();
    for (auto& axis : coords_) axis.clear();
    tree_.near_leaf(leaf, std::sqrt(r2), [&](std::size_t j) {
      near_.push_back(tree_.id_at(j));
      for (int i = 0; i < D; ++i) coords_[static_cast<std::size_t>(i)].push_back(tree_.point_at(j)[i]);
    });
  }

  // Appends q's k nearest of the gathered points (all of them if fewer are within r) to rows_; returns
  // the k-th's squared distance, or infinity when fewer than k are within r.
  double select(const Vec<D>& q, double r2) {
    const std::size_t m = near_.size();
    d2_.resize(m);
    for (std::size_t c = 0; c < m; ++c) {
      double sum = 0.0;
      for (int i = 0; i < D; ++i) {
        const double d = coords_[static_cast<std::size_t>(i)][c] - q[i];
        sum += d * d;
      }
      d2_[c] = sum;
    }
    found_.resize(m);
    std::size_t kept = 0;
    for (std::size_t c = 0; c < m; ++c) {
      found_[kept] = {d2_[c], near_[c]};
      kept += d2_[c] <= r2;
    }
    if (kept < k_) {
      rows_.resize(rows_.size() + k_);
      return std::numeric_limits<double>::infinity();
    }
    const auto kth = found_.begin() + static_cast<std::ptrdiff_t>(k_ - 1);
    std::nth_element(found_.begin(), kth, found_.begin() + static_cast<std::ptrdiff_t>(kept));
    std::sort(found_.begin(), kth);
    for (std::size_t i = 0; i < k_; ++i) rows_.push_back(found_[i].second);
    return found_[k_ - 1].first;
  }

  const spatial_detail::SupportTree<D>& tree_;
  std::size_t k_;
  double radius2_ = 0.0;
  std::vector<std::uint32_t> near_;                  // ids of the gathered points
  std::array<std::vector<double>, D> coords_;        // their coordinates, an array per axis
  std::vector<double> d2_;                           // their squared distances to one query
  std::vector<std::pair<double, std::uint32_t>> found_;
  std::vector<std::int64_t> rows_;                   // the leaf's rows, in tree order
};

}  // namespace

template <int D>
std::vector<std::int64_t> nearest_supports(std::span<const Vec<D>> positions, int k, int threads) {
  const std::size_t n = positions.size();
  if (n > 0x7FFF'FFFFu)
    throw std::invalid_argument("supports: " + std::to_string(n) + " nodes, beyond the 2^31 - 1 rows they index");
  if (k < 1 || static_cast<std::size_t>(k) > n)
    throw std::invalid_argument("supports: k = " + std::to_string(k) + " must be from 1 to the node count, " +
                                std::to_string(n));
  const spatial_detail::SupportTree<D> tree(positions, threads);
  const auto width = static_cast<std::size_t>(k);
  std::vector<std::int64_t> out(n * width);
  parallel_ranges(tree.leaves(), threads, [&](int, std::size_t begin, std::size_t end) {
    LeafQueries<D> queries(tree, k);
    for (std::size_t leaf = begin; leaf < end; ++leaf) queries.answer(leaf, out.data());
  });
  return out;
}

template std::vector<std::int64_t> nearest_supports<2>(std::span<const Vec<2>>, int, int);
template std::vector<std::int64_t> nearest_supports<3>(std::span<const Vec<3>>, int, int);

}  // namespace nodegen
