#pragma once
// The fills the suites run, compiled once for the whole test build instead of once in every suite that
// calls them. A fill is most of a fill suite's compile time (about 10 s of the release build's for each
// domain and store), and the suites call pnp_fill on the same few domains (fill_test_support.hpp's box
// and disk) with the same spacing type. So those combinations are declared here as instantiated
// elsewhere (extern template: a suite that includes this header compiles none of their bodies) and
// defined in fill_test_instances_<store>.cpp, one file a store so that the build compiles them side by
// side. In the release build the seven fill suites took 238 s of compile time; now 41 s, and the three
// files 92 s. A suite that calls another combination compiles it itself, as before.
#include <vector>

#include "fill_test_support.hpp"
#include "nodegen/fill/pnp_fill.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/storage/vm_store.hpp"

// Both pnp_fill overloads (boundary read, boundary consumed) of one dimension, store and domain type,
// declared (PREFIX extern) or defined (PREFIX empty).
#define NODEGEN_TEST_FILL(PREFIX, D, STORE, DOMAIN)                                                         \
  PREFIX template Discretization<D> pnp_fill<D, STORE, DOMAIN, Spacing, BoundaryNode<D>>(                \
      const DOMAIN&, const Spacing&, const std::vector<BoundaryNode<D>>&, const FillParams&, const FillOptions&); \
  PREFIX template Discretization<D> pnp_fill<D, STORE, DOMAIN, Spacing, BoundaryNode<D>>(                \
      const DOMAIN&, const Spacing&, std::vector<BoundaryNode<D>>&&, const FillParams&, const FillOptions&);

// Every test domain on one store.
#define NODEGEN_TEST_FILLS_ON(PREFIX, STORE)                   \
  NODEGEN_TEST_FILL(PREFIX, 2, STORE, testing::BoxDomain<2>) \
  NODEGEN_TEST_FILL(PREFIX, 3, STORE, testing::BoxDomain<3>) \
  NODEGEN_TEST_FILL(PREFIX, 2, STORE, testing::DiskDomain)

namespace nodegen {
NODEGEN_TEST_FILLS_ON(extern, VmStore)
NODEGEN_TEST_FILLS_ON(extern, LockedVectorStore)
NODEGEN_TEST_FILLS_ON(extern, SuballocStore)
}  // namespace nodegen
