// nearest_supports (spatial/nearest_supports.hpp): a k-d tree of the nodes with ids, built and asked in
// parallel.
#include "nodegen/spatial/nearest_supports.hpp"

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {

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
    std::vector<std::pair<std::uint32_t, double>> nearest;
    nearest.reserve(width);
    for (std::size_t i = begin; i < end; ++i) {
      tree.knn(positions[i], k, nearest);
      for (std::size_t j = 0; j < width; ++j) out[i * width + j] = nearest[j].first;
    }
  });
  return out;
}

template std::vector<std::int64_t> nearest_supports<2>(std::span<const Vec<2>>, int, int);
template std::vector<std::int64_t> nearest_supports<3>(std::span<const Vec<3>>, int, int);

}  // namespace nodegen
