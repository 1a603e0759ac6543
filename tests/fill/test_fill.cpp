// Single-threaded PNP fill: spacing, coverage, placement inside, output conventions, determinism, cap.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cmath>

#include "support/fill_test_support.hpp"
#include "nodegen/fill/fill.hpp"
#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace nodegen {
namespace {

using testing::box_boundary;
using testing::hole_ratios;
using testing::min_pair_ratio;
using testing::unit_box;

FillParams params(int dim, std::uint64_t seed = 7) { return testing::fill_params(dim, seed, 10'000'000); }

template <int D>
Discretization<D> fill_unit_box(double h, std::uint64_t seed = 7) {
  const auto domain = unit_box<D>();
  const Spacing spacing = Spacing::constant(h);
  return pnp_fill<D, VmStore>(domain, spacing, box_boundary<D>(domain.bounding_box(), h), params(D, seed),
                              FillOptions{});
}

TEST(Fill, SquareRespectsSpacing) {
  const double h = 0.01;
  const auto d = fill_unit_box<2>(h);
  EXPECT_GT(d.positions.size(), 8000u);
  EXPECT_GE(min_pair_ratio<2>(d, [&](const Vec<2>&) { return h; }, h), kZeta - 1e-12);
}

TEST(Fill, SquareHasNoHoles) {
  const double h = 0.01;
  const auto domain = unit_box<2>();
  const auto d = fill_unit_box<2>(h);
  const auto holes = hole_ratios<2>(d, domain, [&](const Vec<2>&) { return h; }, h, 100000, 3);
  // PNP covers the domain: no point is farther than about h from a node (Medusa: p99.9 0.85 h).
  EXPECT_LT(holes[holes.size() * 999 / 1000], 0.88);
  EXPECT_LT(holes.back(), 1.1);
}

TEST(Fill, SquarePackingDensityLikeMedusa) {
  // N * area of a disk of radius h/2 over the domain area: 0.69-0.70 for Medusa's GeneralFill.
  const double h = 0.005;
  const auto d = fill_unit_box<2>(h);
  const double density = d.positions.size() * std::numbers::pi * 0.25 * h * h;
  EXPECT_GT(density, 0.67);
  EXPECT_LT(density, 0.73);
}

TEST(Fill, CubeRespectsSpacingAndCovers) {
  const double h = 0.05;
  const auto domain = unit_box<3>();
  const auto d = fill_unit_box<3>(h);
  EXPECT_GT(d.positions.size(), 5000u);
  auto hf = [&](const Vec<3>&) { return h; };
  EXPECT_GE(min_pair_ratio<3>(d, hf, h), kZeta - 1e-12);
  const auto holes = hole_ratios<3>(d, domain, hf, h, 50000, 4);
  EXPECT_LT(holes[holes.size() * 999 / 1000], 0.95);
  EXPECT_LT(holes.back(), 1.1);
}

// The fill must not depend on where the domain sits. Far from the origin (|x| / h = 1e8 here) the
// rounding of a candidate's coordinates exceeds zeta's margin, and an expanded node that ignores it rejects
// its own candidates: fewer nodes and larger holes than at the origin. Same count, same coverage.
TEST(Fill, SquareFarFromTheOriginFillsLikeAtTheOrigin) {
  const double h = 0.01;
  const Vec<2> offset(1e6, -2e6);
  const auto near = fill_unit_box<2>(h);
  const auto far_box = testing::box_domain<2>(Box<2>{offset, offset + Vec<2>::Ones()});
  const auto far = pnp_fill<2, VmStore>(far_box, Spacing::constant(h), box_boundary<2>(far_box.bounding_box(), h),
                                        params(2), FillOptions{});
  const double ratio = static_cast<double>(far.positions.size()) / static_cast<double>(near.positions.size());
  EXPECT_NEAR(ratio, 1.0, 0.01) << far.positions.size() << " nodes far away, " << near.positions.size() << " near";
  auto hf = [&](const Vec<2>&) { return h; };
  EXPECT_GE(min_pair_ratio<2>(far, hf, h), kZeta - 1e-6);  // the coordinates' own rounding: 1.7e-8 h
  const auto holes = hole_ratios<2>(far, far_box, hf, h, 100000, 3);
  EXPECT_LT(holes[holes.size() * 999 / 1000], 0.88);
}

// Nodes whose h exceeds the domain's box (here h = 1e10 on thin stripes, about one node in ten) propose
// only candidates outside the box; asking the tree for every node first would cost each of them the whole tree
// (a 1e6-node torus mesh with h = 1e10 beyond x = 1.3 ran many times slower). Timed against the same fill with an
// expression of the same cost and no huge h, in one process, so the build and the machine's load
// cancel out.
TEST(Fill, NodesWithHugeSpacingDoNotScanEveryNode) {
  const auto domain = unit_box<2>();
  auto seconds = [&](const Spacing& spacing) {
    const auto start = std::chrono::steady_clock::now();
    const auto d = pnp_fill<2, VmStore>(domain, spacing, box_boundary<2>(domain.bounding_box(), 0.003), params(2),
                                        FillOptions{});
    EXPECT_GT(d.positions.size(), 50000u);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const double plain = seconds(Spacing::expression("0.003 + 0 * (sin(200 * x) > 0.9)"));
  const double huge = seconds(Spacing::expression("0.003 + 1e10 * (sin(200 * x) > 0.9)"));
  EXPECT_LT(huge, 3 * plain + 0.05) << plain;
}

TEST(Fill, AllNodesInsideAndBoundaryFirst) {
  const double h = 0.02;
  const auto domain = unit_box<2>();
  const auto boundary = box_boundary<2>(domain.bounding_box(), h);
  const auto d = fill_unit_box<2>(h);
  ASSERT_EQ(d.boundary_count, boundary.size());
  for (std::size_t i = 0; i < boundary.size(); ++i) {
    EXPECT_EQ(d.positions[i], boundary[i].pos);
    EXPECT_EQ(d.types[i], -boundary[i].boundary_id);
    EXPECT_EQ(d.bmap[i], static_cast<std::int32_t>(i));
    EXPECT_EQ(d.normals[i], boundary[i].normal);
  }
  ASSERT_EQ(d.types.size(), d.positions.size());
  ASSERT_EQ(d.bmap.size(), d.positions.size());
  ASSERT_EQ(d.normals.size(), d.boundary_count);
  for (std::size_t i = d.boundary_count; i < d.positions.size(); ++i) {
    ASSERT_TRUE(testing::strictly_inside(domain.bounding_box(), d.positions[i])) << "node " << i << " outside";
    ASSERT_EQ(d.types[i], 1);
    ASSERT_EQ(d.bmap[i], -1);
  }
}

TEST(Fill, DeterministicForASeed) {
  const auto a = fill_unit_box<2>(0.02, 11), b = fill_unit_box<2>(0.02, 11), c = fill_unit_box<2>(0.02, 12);
  EXPECT_EQ(a.positions, b.positions);
  EXPECT_NE(a.positions, c.positions);
  const auto a3 = fill_unit_box<3>(0.1, 11), b3 = fill_unit_box<3>(0.1, 11);
  EXPECT_EQ(a3.positions, b3.positions);
}

TEST(Fill, SameNodesOnEveryBackend) {
  // The backend is only where nodes live: with one thread the node sequence is identical.
  const double h = 0.02;
  const auto domain = unit_box<2>();
  const auto boundary = box_boundary<2>(domain.bounding_box(), h);
  const Spacing spacing = Spacing::constant(h);
  const auto vm = pnp_fill<2, VmStore>(domain, spacing, boundary, params(2), FillOptions{});
  const auto vec = pnp_fill<2, LockedVectorStore>(domain, spacing, boundary, params(2), FillOptions{});
  EXPECT_EQ(vm.positions, vec.positions);
}

TEST(Fill, VariableSpacingOnDisk) {
  // h grows from 0.01 at the centre to 0.04 on the rim; neighbours respect the local spacing.
  const auto disk = testing::unit_disk();
  const Spacing spacing = Spacing::expression("0.01 + 0.03 * sqrt(x*x + y*y)");
  const auto boundary = testing::unit_disk_boundary(spacing);
  const auto d = pnp_fill<2, VmStore>(disk, spacing, boundary, params(2), FillOptions{});
  auto h = spacing.evaluator();
  auto hf = [&](const Vec<2>& p) { return h(p); };
  // Candidates are spaced by h at their parent, at most h away: with |grad h| = 0.03 the local h differs
  // from the parent's by at most 3 %, so pairs stay above zeta * min(h) * 0.97.
  EXPECT_GE(min_pair_ratio<2>(d, hf, 0.05), 0.97);
  const auto holes = hole_ratios<2>(d, disk, hf, 0.05, 50000, 5);
  EXPECT_LT(holes[holes.size() * 999 / 1000], 0.95);
  for (std::size_t i = d.boundary_count; i < d.positions.size(); ++i) ASSERT_TRUE(disk.contains(d.positions[i]));
}

TEST(Fill, ProgressCountsEveryNode) {
  std::atomic<std::size_t> progress{0};
  FillOptions options;
  options.progress = &progress;
  const auto domain = unit_box<2>();
  const auto d = pnp_fill<2, VmStore>(domain, Spacing::constant(0.01), box_boundary<2>(domain.bounding_box(), 0.01),
                                      params(2), options);
  EXPECT_EQ(progress.load(), d.positions.size());
  EXPECT_GT(d.fill_seconds, 0.0);
}

TEST(Fill, NodeCapThrowsStoreFullWithAClearMessage) {
  const auto domain = unit_box<2>();
  FillParams p = params(2);
  p.max_nodes = 1000;  // the square at h = 0.01 needs ~9000
  try {
    pnp_fill<2, VmStore>(domain, Spacing::constant(0.01), box_boundary<2>(domain.bounding_box(), 0.01), p,
                         FillOptions{});
    FAIL() << "expected StoreFull";
  } catch (const StoreFull& e) {
    EXPECT_NE(std::string(e.what()).find("node cap of 1000"), std::string::npos) << e.what();
  }
  p.max_nodes = 100;  // fewer than the boundary nodes alone
  const auto boundary = box_boundary<2>(domain.bounding_box(), 0.01);
  EXPECT_THROW((pnp_fill<2, VmStore>(domain, Spacing::constant(0.01), boundary, p, FillOptions{})), StoreFull);
}

TEST(Fill, CandidateDirectionsAreUnitAndSpread) {
  for (int n : {15, 65}) {
    if (n == 15) {
      const auto dirs = fill_detail::unit_candidates<2>(n);
      for (const auto& u : dirs) EXPECT_NEAR(u.norm(), 1.0, 1e-12);
    } else {
      const auto dirs = fill_detail::unit_candidates<3>(n);
      Vec<3> sum = Vec<3>::Zero();
      double closest = INFINITY;
      for (std::size_t i = 0; i < dirs.size(); ++i) {
        EXPECT_NEAR(dirs[i].norm(), 1.0, 1e-12);
        sum += dirs[i];
        for (std::size_t j = 0; j < i; ++j) closest = std::min(closest, (dirs[i] - dirs[j]).norm());
      }
      EXPECT_LT(sum.norm(), 0.1 * n);  // spread evenly, not bunched on one side
      EXPECT_GT(closest, 0.3);         // Fibonacci sphere of 65: nearest pairs ~0.43 apart
    }
  }
}

// The 3D candidates, placed from the directions' coordinate arrays, are centre + radius * R * dir for one
// rotation R: each lies at radius from the centre, and every pair lies radius times the pair's directions
// apart (a rotation keeps distances; a mixed-up row or column would not). Two keys give two rotations.
TEST(Fill, CandidatesIn3DAreTheDirectionsTurnedScaledAndMoved) {
  const auto dirs = fill_detail::unit_candidates<3>(65);
  std::array<std::vector<double>, 3> d, out;
  for (int a = 0; a < 3; ++a) {
    for (const auto& u : dirs) d[static_cast<std::size_t>(a)].push_back(u[a]);
    out[static_cast<std::size_t>(a)].resize(dirs.size());
  }
  const Vec<3> centre(0.3, -2.0, 5.0);
  const double radius = 0.01;
  std::vector<Vec<3>> first;
  for (std::uint64_t key : {1u, 2u}) {
    fill_detail::place_candidates_3d(d[0].data(), d[1].data(), d[2].data(), dirs.size(), centre, radius, key,
                                     out[0].data(), out[1].data(), out[2].data());
    std::vector<Vec<3>> c;
    for (std::size_t k = 0; k < dirs.size(); ++k) c.emplace_back(out[0][k], out[1][k], out[2][k]);
    for (std::size_t i = 0; i < c.size(); ++i) {
      EXPECT_NEAR((c[i] - centre).norm(), radius, 1e-15);
      for (std::size_t j = 0; j < i; ++j) EXPECT_NEAR((c[i] - c[j]).norm(), radius * (dirs[i] - dirs[j]).norm(), 1e-15);
    }
    if (first.empty()) first = c;
    else EXPECT_GT((c[0] - first[0]).norm(), 1e-4 * radius);  // another key, another rotation
  }
}

}  // namespace
}  // namespace nodegen
