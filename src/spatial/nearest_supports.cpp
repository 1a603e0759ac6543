// nearest_supports (spatial/nearest_supports.hpp): a k-d tree of the nodes with ids, built and asked in
// parallel.
#include "nodegen/spatial/nearest_supports.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {

namespace {

// One thread's k-nearest queries, in row order. A query asks the tree for the points of a ball around
// the node whose radius is the last query's k-th distance, grown by a tenth (neighbouring rows are
// neighbouring nodes, of nearly the same spacing), and keeps the k nearest by (squared distance, row),
// the squared distances computed here from the tree's exact copies of the positions. The ball is
// enlarged until its k-th nearest lies clearly inside it: every point outside is then farther than all
// k, so the answer is the exact k nearest whatever radius found it, the same on any thread. The first
// query of a run starts from the tree's own k-nearest search.
template <int D>
class Nearest {
 public:
  Nearest(std::span<const Vec<D>> positions, int k) : positions_(positions), k_(static_cast<std::size_t>(k)) {}

  template <class TreeT>
  void find(const TreeT& tree, std::size_t i, std::int64_t* row) {
    const Vec<D>& q = positions_[i];
    if (!(radius_ > 0)) {
      tree.knn(q, static_cast<int>(k_), first_);
      radius_ = first_.back().second;
    }
    for (double r = radius_ * 1.1 + 1e-300;; r *= 2) {
      found_.clear();
      // The tree keeps the positions as given (doubles, not a grid), so its copy is the node's.
      tree.for_each_within(q, r, [&](std::uint32_t id, const Vec<D>& p) { found_.push_back({(p - q).squaredNorm(), id}); });
      if (found_.size() < k_) continue;
      std::partial_sort(found_.begin(), found_.begin() + static_cast<std::ptrdiff_t>(k_), found_.end());
      // The k-th clearly inside the ball: a point the tree's own rounding left out lies beyond it.
      if (found_[k_ - 1].first < r * r * (1.0 - 1e-9)) break;
    }
    for (std::size_t j = 0; j < k_; ++j) row[j] = found_[j].second;
    radius_ = std::sqrt(found_[k_ - 1].first);
  }

 private:
  std::span<const Vec<D>> positions_;
  std::size_t k_;
  double radius_ = 0.0;
  std::vector<std::pair<double, std::uint32_t>> found_;
  std::vector<std::pair<std::uint32_t, double>> first_;
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
  using Tree = KdTree<D, VmStore>;
  Tree tree(n);
  parallel_ranges(n, threads, [&](int, std::size_t begin, std::size_t end) {
    auto finger = std::make_unique<typename Tree::Finger>();
    for (std::size_t i = begin; i < end; ++i) tree.insert(positions[i], static_cast<std::uint32_t>(i), *finger);
  });
  const auto width = static_cast<std::size_t>(k);
  std::vector<std::int64_t> out(n * width);
  parallel_ranges(n, threads, [&](int, std::size_t begin, std::size_t end) {
    Nearest<D> nearest(positions, k);
    for (std::size_t i = begin; i < end; ++i) nearest.find(tree, i, &out[i * width]);
  });
  return out;
}

template std::vector<std::int64_t> nearest_supports<2>(std::span<const Vec<2>>, int, int);
template std::vector<std::int64_t> nearest_supports<3>(std::span<const Vec<3>>, int, int);

}  // namespace nodegen
