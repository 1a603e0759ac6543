#pragma once
// The fill's entry point for the CLI: a loaded domain file in, the discretization out.
//
// fill_domain places the boundary nodes (geometry), then runs the PNP fill on the backend chosen at run
// time. The enum is turned into the store template argument here, once per run, so the hot loop is
// compiled separately for every backend and never dispatches. Throws StoreFull (one line naming the node
// cap) when FillParams::max_nodes would be exceeded.
#include <chrono>
#include <memory>
#include <type_traits>
#include <utility>
#include <variant>

#include "nodegen/fill/backend.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/pnp_fill.hpp"
#include "nodegen/fill/release_free_heap.hpp"
#include "nodegen/geometry/domain_file.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {

namespace fill_detail {
template <int D>
constexpr int dimension_of(const Domain<D>*) {
  return D;
}
}  // namespace fill_detail

// Runs pnp_fill<D, Store> for the backend named by `backend`. `boundary` is a std::vector of boundary
// nodes: read if an lvalue, consumed (cut down to what the output needs once seeded) if an rvalue.
template <int D, class DomainT, class SpacingT, class BoundaryVector>
Discretization<D> pnp_fill_on(Backend backend, const DomainT& domain, const SpacingT& spacing,
                              BoundaryVector&& boundary, const FillParams& params, const FillOptions& options) {
  switch (backend) {
    case Backend::vector:
      return pnp_fill<D, LockedVectorStore>(domain, spacing, std::forward<BoundaryVector>(boundary), params, options);
    case Backend::suballoc:
      return pnp_fill<D, SuballocStore>(domain, spacing, std::forward<BoundaryVector>(boundary), params, options);
    case Backend::vm: break;
  }
  return pnp_fill<D, VmStore>(domain, spacing, std::forward<BoundaryVector>(boundary), params, options);
}

// fill_seconds covers boundary placement and the interior fill (not the output copy's caller).
inline AnyDiscretization fill_domain(const DomainFile& file, const FillOptions& options) {
  return std::visit(
      [&](const auto& domain_ptr) -> AnyDiscretization {
        const auto& domain = *domain_ptr;
        constexpr int D = fill_detail::dimension_of(static_cast<decltype(&domain)>(nullptr));
        const auto start = std::chrono::steady_clock::now();
        auto boundary = domain.boundary_nodes(file.spacing, file.fill.seed, options.threads, file.fill.max_nodes);
        const double boundary_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        // The boundary placement's scratch is freed but stays resident unless trimmed, and the fill
        // never reuses it (its store and tree are mmap'd): 7 B/node of peak RSS on a 1e6-node cube.
        release_free_heap();
        // Moved in: the fill keeps only the boundary's normals and ids once the nodes are seeded.
        auto out = pnp_fill_on<D>(options.backend, domain, file.spacing, std::move(boundary), file.fill, options);
        out.fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out.boundary_seconds = boundary_seconds;
        return out;
      },
      file.domain);
}

}  // namespace nodegen
