#pragma once
// The part of the boundary nodes that the fill's output still needs once their positions are in the
// node store: the normals (already in Discretization::normals' form) and the boundary ids.
//
// Why: a BoundaryNode<3> is 56 bytes (position, normal, id, padding) and the geometry's vector of
// them stayed alive through the whole fill, next to the store that holds the same positions. Keeping
// only these rows (28 bytes per boundary node in 3D, 20 in 2D) lowers the fill's peak memory
// (bench/RESULTS.md, Fill).
#include <cstdint>
#include <utility>
#include <vector>

#include "nodegen/spatial/point.hpp"

namespace nodegen::fill_detail {

template <int D>
struct BoundaryRows {
  std::vector<Vec<D>> normals;    // row i: the outward unit normal of boundary node i
  std::vector<std::int32_t> ids;  // row i: its boundary id (>= 1)

  std::size_t size() const { return ids.size(); }
};

// Copies the normals and ids out of `boundary` (elements with `normal` and `boundary_id`) into
// exactly-sized arrays, then frees the vector, capacity included.
template <int D, class BoundaryNodeT>
BoundaryRows<D> take_boundary_rows(std::vector<BoundaryNodeT>&& boundary) {
  BoundaryRows<D> rows;
  rows.normals.reserve(boundary.size());
  rows.ids.reserve(boundary.size());
  for (const auto& b : boundary) {
    rows.normals.push_back(b.normal);
    rows.ids.push_back(static_cast<std::int32_t>(b.boundary_id));
  }
  std::vector<BoundaryNodeT>().swap(boundary);
  return rows;
}

}  // namespace nodegen::fill_detail
