// Quality of the 2D fill against Medusa's GeneralFill (the target: packing density within 0.01 of Medusa's
// 0.69-0.70, holes no worse than its p99.9 of 0.85 h). A faithful re-implementation of GeneralFill's
// loop measures about those figures on the unit square (bench/RESULTS.md, Fill); the fill's ring order
// (fill/ring_selection.hpp) brings the holes well below that at Medusa's density.
#include <gtest/gtest.h>

#include <numbers>

#include "support/fill_test_support.hpp"
#include "nodegen/fill/fill.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {
namespace {

using testing::box_boundary;
using testing::hole_ratios;
using testing::unit_box;

TEST(FillQuality, SquareHolesBelowMedusaAtMedusasDensity) {
  const double h = 0.005;  // ~35 000 nodes
  const auto domain = unit_box<2>();
  const Spacing spacing = Spacing::constant(h);
  for (std::uint64_t seed : {1, 2, 3}) {
    const auto d = pnp_fill<2, VmStore>(domain, spacing, box_boundary<2>(domain.bounding_box(), h),
                                        testing::fill_params(2, seed), FillOptions{});
    const double density = static_cast<double>(d.positions.size()) * std::numbers::pi * 0.25 * h * h;
    EXPECT_GT(density, 0.68) << "seed " << seed;
    EXPECT_LT(density, 0.71) << "seed " << seed;
    const auto holes = hole_ratios<2>(d, domain, [&](const Vec<2>&) { return h; }, h, 400000, seed);
    // Medusa's order gives about its 0.85 here; the ring order well below (bench/RESULTS.md, Fill).
    EXPECT_LT(holes[holes.size() * 999 / 1000], 0.82) << "seed " << seed;
  }
}

}  // namespace
}  // namespace nodegen
