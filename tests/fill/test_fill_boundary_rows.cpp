// The fill consuming its boundary vector (pnp_fill / pnp_fill_on with an rvalue): after seeding, only
// the normals and ids are kept (boundary_rows.hpp), and the output must be exactly what the fill gives
// when it only reads the vector.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "support/fill_test_support.hpp"
#include "nodegen/fill/boundary_rows.hpp"
#include "nodegen/fill/fill.hpp"
#include "nodegen/fill/fill.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {
namespace {

using testing::box_boundary;
using testing::min_pair_ratio;
using testing::unit_box;

using testing::threads;

FillParams params(int dim) { return testing::fill_params(dim, 11); }

template <int D>
void expect_same(const Discretization<D>& a, const Discretization<D>& b) {
  ASSERT_EQ(a.positions.size(), b.positions.size());
  ASSERT_EQ(a.boundary_count, b.boundary_count);
  EXPECT_EQ(a.types, b.types);
  EXPECT_EQ(a.bmap, b.bmap);
  ASSERT_EQ(a.normals.size(), b.normals.size());
  for (std::size_t i = 0; i < a.positions.size(); ++i) ASSERT_EQ(a.positions[i], b.positions[i]) << "node " << i;
  for (std::size_t i = 0; i < a.normals.size(); ++i) ASSERT_EQ(a.normals[i], b.normals[i]) << "normal " << i;
}

// Boundary rows and positions as the geometry gave them: boundary first, in order, with their ids.
template <int D>
void expect_boundary_rows(const Discretization<D>& d, const std::vector<BoundaryNode<D>>& boundary) {
  ASSERT_EQ(d.boundary_count, boundary.size());
  ASSERT_EQ(d.normals.size(), boundary.size());
  for (std::size_t i = 0; i < boundary.size(); ++i) {
    ASSERT_EQ(d.positions[i], boundary[i].pos) << i;
    ASSERT_EQ(d.normals[i], boundary[i].normal) << i;
    ASSERT_EQ(d.types[i], -boundary[i].boundary_id) << i;
    ASSERT_EQ(d.bmap[i], static_cast<std::int32_t>(i)) << i;
  }
  for (std::size_t i = boundary.size(); i < d.positions.size(); ++i) {
    ASSERT_EQ(d.types[i], 1) << i;
    ASSERT_EQ(d.bmap[i], -1) << i;
  }
}

TEST(BoundaryRows, TakesNormalsAndIdsAndFreesTheVector) {
  auto boundary = box_boundary<3>(unit_box<3>().bounding_box(), 0.1);
  const auto copy = boundary;
  const auto rows = fill_detail::take_boundary_rows<3>(std::move(boundary));
  EXPECT_TRUE(boundary.empty());  // NOLINT(bugprone-use-after-move): taking it is the point
  EXPECT_EQ(boundary.capacity(), 0u);
  ASSERT_EQ(rows.size(), copy.size());
  ASSERT_EQ(rows.normals.size(), copy.size());
  for (std::size_t i = 0; i < copy.size(); ++i) {
    EXPECT_EQ(rows.normals[i], copy[i].normal);
    EXPECT_EQ(rows.ids[i], copy[i].boundary_id);
  }
}

TEST(FillConsumingBoundary, SameNodesAsReadingIt2D) {
  const auto domain = unit_box<2>();
  const Spacing spacing = Spacing::constant(0.01);
  const auto boundary = box_boundary<2>(domain.bounding_box(), 0.01);
  const auto read = pnp_fill<2, VmStore>(domain, spacing, boundary, params(2), threads(1));
  auto owned = boundary;
  const auto consumed = pnp_fill<2, VmStore>(domain, spacing, std::move(owned), params(2), threads(1));
  EXPECT_TRUE(owned.empty());  // NOLINT(bugprone-use-after-move)
  expect_same(read, consumed);
  expect_boundary_rows(consumed, boundary);
}

TEST(FillConsumingBoundary, SameNodesAsReadingItOnADiskWithVariableSpacing) {
  const auto disk = testing::unit_disk();
  const Spacing spacing = Spacing::expression("0.01 + 0.02*sqrt(x^2+y^2)");
  const auto boundary = testing::unit_disk_boundary(spacing);
  const auto read = pnp_fill<2, LockedVectorStore>(disk, spacing, boundary, params(2), threads(1));
  const auto consumed = pnp_fill<2, LockedVectorStore>(disk, spacing, std::vector(boundary), params(2), threads(1));
  expect_same(read, consumed);
  expect_boundary_rows(consumed, boundary);
}

TEST(FillConsumingBoundary, SameNodesAsReadingIt3DThroughTheBackendDispatch) {
  const auto domain = unit_box<3>();
  const Spacing spacing = Spacing::constant(0.06);
  const auto boundary = box_boundary<3>(domain.bounding_box(), 0.06);
  for (Backend backend : {Backend::vm, Backend::vector, Backend::suballoc}) {
    SCOPED_TRACE(backend_name(backend));
    const auto read = pnp_fill_on<3>(backend, domain, spacing, boundary, params(3), threads(1));
    const auto consumed = pnp_fill_on<3>(backend, domain, spacing, std::vector(boundary), params(3), threads(1));
    expect_same(read, consumed);
    expect_boundary_rows(consumed, boundary);
  }
}

// The parallel path sizes its lock grid and publishes the boundary segment from the seeded store,
// after the vector is gone: the boundary must still be expanded (the domain gets filled) and the
// spacing kept.
TEST(FillConsumingBoundary, ParallelFillWithEightThreads) {
  const auto domain = unit_box<2>();
  const double h = 0.01;
  const Spacing spacing = Spacing::constant(h);
  const auto boundary = box_boundary<2>(domain.bounding_box(), h);
  const auto serial = pnp_fill<2, VmStore>(domain, spacing, boundary, params(2), threads(1));
  const auto d = pnp_fill<2, VmStore>(domain, spacing, std::vector(boundary), params(2), threads(8));
  expect_boundary_rows(d, boundary);
  EXPECT_NEAR(static_cast<double>(d.positions.size()), static_cast<double>(serial.positions.size()),
              0.02 * static_cast<double>(serial.positions.size()));
  EXPECT_GE(min_pair_ratio<2>(d, [&](const Vec<2>&) { return h; }, h), kZeta - 1e-12);
}

TEST(FillConsumingBoundary, CapSmallerThanTheBoundaryStillThrows) {
  const auto domain = unit_box<2>();
  FillParams p = params(2);
  p.max_nodes = 10;
  EXPECT_THROW((pnp_fill<2, VmStore>(domain, Spacing::constant(0.01), box_boundary<2>(domain.bounding_box(), 0.01), p,
                                     threads(2))),
               StoreFull);
}

}  // namespace
}  // namespace nodegen
