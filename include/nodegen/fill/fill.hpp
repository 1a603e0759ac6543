#pragma once
// The fill's entry point: the PNP fill on the backend chosen at run time (pnp_fill_on), and the fills
// of a Domain compiled once per dimension and store. (A loaded domain file is filled by fill_domain,
// input/fill_domain.hpp.)
//
// The enum is turned into the store template argument here, once per run, so the hot loop is
// compiled separately for every backend and never dispatches. Throws StoreFull (one line naming the node
// cap) when FillParams::max_nodes would be exceeded.
#include <utility>
#include <vector>

#include "nodegen/fill/backend.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/pnp_fill.hpp"
#include "nodegen/geometry/domain.hpp"
#include "nodegen/geometry/spacing.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {

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

// The fill of a loaded domain (Domain<D> at its Spacing) on one store, both pnp_fill overloads
// (boundary read, boundary consumed), declared (PREFIX extern) or defined (PREFIX empty). The library
// defines them for both dimensions and every store, one file a store (src/fill/domain_fill_<store>.cpp,
// compiled side by side); every other file that fills a Domain (fill_domain, the test suites) compiles
// none of the fill's body, the bulk of their compile time.
#define NODEGEN_DOMAIN_FILL(PREFIX, D, STORE)                                                                   \
  PREFIX template Discretization<D> pnp_fill<D, STORE, Domain<D>, Spacing, BoundaryNode<D>>(                 \
      const Domain<D>&, const Spacing&, const std::vector<BoundaryNode<D>>&, const FillParams&, const FillOptions&); \
  PREFIX template Discretization<D> pnp_fill<D, STORE, Domain<D>, Spacing, BoundaryNode<D>>(                 \
      const Domain<D>&, const Spacing&, std::vector<BoundaryNode<D>>&&, const FillParams&, const FillOptions&);
#define NODEGEN_DOMAIN_FILLS_ON(PREFIX, STORE) \
  NODEGEN_DOMAIN_FILL(PREFIX, 2, STORE)        \
  NODEGEN_DOMAIN_FILL(PREFIX, 3, STORE)

NODEGEN_DOMAIN_FILLS_ON(extern, VmStore)
NODEGEN_DOMAIN_FILLS_ON(extern, LockedVectorStore)
NODEGEN_DOMAIN_FILLS_ON(extern, SuballocStore)

}  // namespace nodegen
