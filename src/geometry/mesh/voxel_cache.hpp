#pragma once
// A voxel grid over a closed triangle mesh that makes most inside tests a table lookup:
//  - cells no triangle touches store their side (inside / outside), found with one exact query per
//    connected group of such cells (face-adjacent free cells cannot be separated by the surface);
//  - cells the surface touches store the triangles touching them (exact triangle-box overlap, padded),
//    so a point there is decided by counting the triangles crossed by a short axis-parallel segment to
//    the nearest cell of known side, looking only at the triangles of the cells the segment passes.
// Built once at load; all queries are const and thread-safe.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <nodegen/geometry/box.hpp>
#include <nodegen/spatial/point.hpp>

namespace nodegen::geometry_detail {

struct MeshTriangle {
  Vec<3> a, b, c;
};

class VoxelCache {
 public:
  enum class Side : std::uint8_t { unknown, outside, inside, surface };

  // At most kMaxCells cells (32 MiB), or `max_cells` when lower.
  static constexpr std::size_t kMaxCells = std::size_t{1} << 23;

  // inside(p): an exact inside test, called once per group of free cells. Cells meeting an `uncertain`
  // box count as surface cells (with no triangles): their points always go to the caller's own test.
  VoxelCache(const std::vector<MeshTriangle>& triangles, const Box<3>& box,
             const std::function<bool(const Vec<3>&)>& inside, const std::vector<Box<3>>& uncertain = {},
             std::size_t max_cells = kMaxCells);

  // The side of p's cell (p must be within the box); `surface` when the cell touches the surface.
  Side at(const Vec<3>& p) const {
    const std::uint32_t v = cells_[index(cell_of(p))];
    return v >= surface_base ? Side::surface : static_cast<Side>(v);
  }

  // The rank-th shortest (0..5) axis-parallel way out of p's cell to a cell of known side: the target
  // point q (centre of that cell in the walking axis, p's coordinates in the others) with its side, and
  // the triangles of every surface cell on the way (sorted, unique). False when rank is out of range.
  // uncertain, when given, says whether the way (or p's cell) meets an uncertain cell.
  bool escape(const Vec<3>& p, int rank, Vec<3>& q, Side& side, std::vector<std::uint32_t>& triangles,
              bool* uncertain = nullptr) const;

  double surface_fraction() const;
  std::size_t triangle_cell_pairs() const { return triangle_ids_.size(); }
  std::size_t cell_count() const { return cells_.size(); }

 private:
  static constexpr std::uint32_t surface_base = 3;  // cells_ value >= 3: surface cell, slot = value - 3
  // The (cell, triangle) pairs held: kPairsPerTriangle per triangle, at least kMinPairs.
  static constexpr std::size_t kPairsPerTriangle = 32;
  static constexpr std::size_t kMinPairs = std::size_t{1} << 22;

  struct Cell {
    int i[3];
  };
  Cell cell_of(const Vec<3>& p) const {
    Cell c;
    for (int k = 0; k < 3; ++k) {
      const int v = static_cast<int>((p[k] - box_.lo[k]) * inv_[k]);
      c.i[k] = v < 0 ? 0 : (v >= n_[k] ? n_[k] - 1 : v);
    }
    return c;
  }
  std::size_t index(const Cell& c) const {
    return (static_cast<std::size_t>(c.i[2]) * n_[1] + c.i[1]) * n_[0] + c.i[0];
  }
  // The (cell, triangle) pairs of every cell a triangle touches; false once there would be more than
  // `budget`.
  bool surface_pairs(const std::vector<MeshTriangle>& triangles, std::size_t budget,
                     std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs) const;
  void mark_surface(std::vector<std::pair<std::uint32_t, std::uint32_t>>& pairs, const std::vector<Box<3>>& uncertain);
  void classify_rest(const std::function<bool(const Vec<3>&)>& inside);

  Box<3> box_;
  int n_[3] = {1, 1, 1};
  double inv_[3] = {1, 1, 1};
  std::vector<std::uint32_t> cells_;
  std::vector<std::uint32_t> offsets_;    // per surface slot, into triangle_ids_ (size slots + 1)
  std::vector<std::uint32_t> triangle_ids_;
  std::vector<std::uint8_t> uncertain_;  // per cell, 1 where an uncertain box meets it; empty when none
};

}  // namespace nodegen::geometry_detail
