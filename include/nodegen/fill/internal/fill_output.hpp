#pragma once
// The fill's output: the node store copied into exactly-sized arrays (Discretization), and the
// boundary's rows (types and normals) from the caller's nodes or the rows the fill kept of them.
//
// Memory: the copy runs after the fill has freed its tree and tiles. With the VM store, each copied
// block of the store goes back to the kernel at once (nothing reads the store after this), so the store
// and the positions are not both resident: the copy peaks near max(store, positions) + types/bmap
// instead of their sum. The positions' fresh pages, and types' and bmap's (DefaultInitAllocator: not
// zeroed by resize), are first touched here, block by block, on the fill's threads.
//
// Blocks: 2 MiB of store each, shared among the threads in contiguous runs (parallel_for). A block
// need not end on a page boundary (3D points are 24 bytes), and the neighbouring block may still be
// read by another thread, so a thread discards only the pages lying wholly inside its own block: the
// page a block boundary cuts stays (4 KiB per 2 MiB).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "nodegen/fill/boundary_rows.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/internal/point_list.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/storage/discard_pages.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen::fill_detail {

// The store's first n nodes as positions, bmap (row boundary_first + i for the nb boundary nodes, -1
// after) and types (1; the caller then writes the boundary's), on `threads` threads.
template <int D, template <class> class Store>
Discretization<D> copy_out(Store<StoredPoint<D>>& store, std::size_t n, std::size_t nb, std::size_t boundary_first,
                           int threads) {
  constexpr std::size_t kBlock = (std::size_t{2} << 20) / sizeof(StoredPoint<D>);  // 2 MiB of store
  Discretization<D> out;
  out.boundary_count = nb;
  out.positions.resize(n);
  out.types.resize(n);  // not written yet (DefaultInitAllocator): written below, on the team
  out.bmap.resize(n);
  parallel_for((n + kBlock - 1) / kBlock, threads, [&](int, std::size_t b) {
    const std::size_t first = b * kBlock, end = std::min(n, first + kBlock);
    for (std::size_t i = first; i < end; ++i) {
      out.positions[i] = to_vec<D>(store.get(i));
      out.types[i] = 1;
      out.bmap[i] = i < nb ? static_cast<std::int32_t>(boundary_first + i) : -1;
    }
    if constexpr (std::is_same_v<Store<StoredPoint<D>>, VmStore<StoredPoint<D>>>)
      discard_pages_within(store.data() + first, store.data() + end);
  });
  return out;
}

// The nb boundary rows from boundary_first on: types and normals from the caller's boundary nodes...
template <int D, class BoundaryNodeT>
void write_boundary_rows(Discretization<D>& out, const std::vector<BoundaryNodeT>& boundary, std::size_t boundary_first,
                         std::size_t nb) {
  out.normals.resize(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    out.types[i] = -static_cast<std::int32_t>(boundary[boundary_first + i].boundary_id);
    out.normals[i] = boundary[boundary_first + i].normal;
  }
}
// ... or from the rows kept when the fill owned the boundary (the normals are moved, not copied).
template <int D>
void write_boundary_rows(Discretization<D>& out, BoundaryRows<D>&& rows, std::size_t boundary_first, std::size_t nb) {
  for (std::size_t i = 0; i < nb; ++i) out.types[i] = -rows.ids[boundary_first + i];
  if (nb == rows.size()) out.normals = std::move(rows.normals);
  else out.normals.assign(rows.normals.begin() + static_cast<std::ptrdiff_t>(boundary_first),
                          rows.normals.begin() + static_cast<std::ptrdiff_t>(boundary_first + nb));
}

}  // namespace nodegen::fill_detail
