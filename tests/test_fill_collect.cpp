// The fill's output copy (collect): with several threads the store is copied into the output in 2 MiB
// blocks shared among the threads, each discarding the store pages it has copied. 3D points are 24
// bytes, so blocks do not end on page boundaries; a thread discarding a page its neighbour still reads
// would hand out zeros. A fill big enough for several blocks, at 2 and 3 threads, must give every
// interior node strictly inside the domain (a zeroed node sits on the cube's corner, outside the open
// box) and no two nodes closer than zeta * h.
#include <gtest/gtest.h>

#include "fill_test_support.hpp"
#include "nodegen/fill/pnp_fill.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {
namespace {

TEST(FillCollect, ParallelBlockCopyKeepsEveryNode) {
  const double h = 0.0135;  // ~3.5e5 nodes: 4 blocks of 87 381 points
  const auto domain = testing::unit_box<3>();
  const Spacing spacing = Spacing::constant(h);
  FillParams params = FillParams::defaults_for(3);
  params.max_nodes = 2'000'000;
  for (int threads : {2, 3}) {
    FillOptions options;
    options.threads = threads;
    const auto d = pnp_fill<3, VmStore>(domain, spacing, testing::box_boundary<3>(domain.box, h), params, options);
    ASSERT_GT(d.positions.size(), 4u * ((std::size_t{2} << 20) / 24));
    for (std::size_t i = d.boundary_count; i < d.positions.size(); ++i)
      ASSERT_TRUE(domain.contains(d.positions[i])) << "node " << i << " at " << d.positions[i].transpose();
    EXPECT_GE(testing::min_pair_ratio<3>(d, [&](const Vec<3>&) { return h; }, h), kZeta - 1e-12);
  }
}

}  // namespace
}  // namespace nodegen
