#pragma once
// Supports: the k nearest nodes of every node (itself first, then by distance, ties by the lower row),
// the stencils an RBF-FD solver builds its weights on.
//
// Method: the nodes go into a static k-d tree (src/spatial/support_tree.hpp: the nodes sorted by
// Morton code, cut at the middles of the boxes, leaves of at most 24); then the leaves, in the tree's
// order, are cut into equal runs, one per thread, and each leaf's nodes are answered together from one
// gathering of the points near the leaf. The answer of a k-nearest query is
// a function of the point set and the query (ties broken by id), whatever tree or radius found it, so
// the supports are the same at any thread count.
//
// Limits: k from 1 to the node count; at most 2^31 - 1 nodes (32-bit ids, int32 rows in the output).
#include <cstdint>
#include <span>
#include <vector>

#include "nodegen/spatial/point.hpp"

namespace nodegen {

// Row-major: out[i * k + j] is node i's j-th nearest. Throws std::invalid_argument for a k outside
// [1, positions.size()], more than 2^31 - 1 nodes, or a coordinate that is not finite.
template <int D>
std::vector<std::int64_t> nearest_supports(std::span<const Vec<D>> positions, int k, int threads);

extern template std::vector<std::int64_t> nearest_supports<2>(std::span<const Vec<2>>, int, int);
extern template std::vector<std::int64_t> nearest_supports<3>(std::span<const Vec<3>>, int, int);

}  // namespace nodegen
