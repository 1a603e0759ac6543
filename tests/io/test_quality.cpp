// The quality report on node sets whose answers are known in closed form (lattices), so every figure
// that `nodegen stats` prints is checked against geometry, not against itself.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "nodegen/io/quality.hpp"
#include "support/sanitized_build.hpp"

namespace {

using nodegen::Vec;
using nodegen::io::NodeArrays;
using nodegen::io::QualityDomain;
using nodegen::io::QualityOptions;
using nodegen::io::quality_report;

// Cubic lattice of spacing a filling [0,1]^D, h = a everywhere; nodes on the box faces are boundary.
template <int D>
NodeArrays lattice(int per_side) {
  const double a = 1.0 / per_side;
  NodeArrays nodes;
  nodes.dim = D;
  const int m = per_side + 1;
  const int total = D == 2 ? m * m : m * m * m;
  for (int idx = 0; idx < total; ++idx) {
    int rest = idx;
    bool on_face = false;
    for (int k = 0; k < D; ++k) {
      const int c = rest % m;
      rest /= m;
      nodes.positions.push_back(c * a);
      on_face = on_face || c == 0 || c == per_side;
    }
    nodes.types.push_back(on_face ? -1 : 1);
    nodes.bmap.push_back(on_face ? static_cast<std::int32_t>(nodes.normals.size() / D) : -1);
    if (on_face)
      for (int k = 0; k < D; ++k) nodes.normals.push_back(k == 0 ? 1.0 : 0.0);  // direction irrelevant here
    nodes.h.push_back(a);
  }
  return nodes;
}

template <int D>
QualityDomain<D> unit_box() {
  QualityDomain<D> d;
  d.box.lo = Vec<D>::Zero();
  d.box.hi = Vec<D>::Ones();
  d.contains = [](const Vec<D>& p) { return (p.array() >= 0.0).all() && (p.array() <= 1.0).all(); };
  return d;
}

TEST(Quality, SquareLattice) {
  const auto nodes = lattice<2>(100);  // 101 x 101 nodes, a = h = 0.01
  const auto domain = unit_box<2>();
  const auto r = quality_report<2>(nodes, &domain, QualityOptions{200'000, 5, 2});
  EXPECT_EQ(r.nodes, 101u * 101u);
  EXPECT_EQ(r.boundary_nodes, 400u);
  EXPECT_EQ(r.interior_nodes, 99u * 99u);
  EXPECT_NEAR(r.nn_over_h.min, 1.0, 1e-9);
  EXPECT_NEAR(r.nn_over_h.mean, 1.0, 1e-9);
  EXPECT_NEAR(r.nn_over_h.max, 1.0, 1e-9);
  EXPECT_NEAR(r.measure, 1.0, 1e-12);  // every sample of the box is inside
  EXPECT_NEAR(r.packing_density, 101.0 * 101.0 * std::numbers::pi / 4 * 1e-4, 1e-9);
  // Distance from a uniform point of a unit cell to its nearest corner: mean (sqrt2 + ln(1+sqrt2))/6,
  // 99.9th percentile 0.6914, supremum 1/sqrt2.
  EXPECT_NEAR(r.holes.mean, (std::sqrt(2.0) + std::log(1 + std::sqrt(2.0))) / 6, 2e-3);
  EXPECT_NEAR(r.holes.p999, 0.6914, 3e-3);
  EXPECT_LE(r.holes.max, std::sqrt(0.5) + 1e-9);
  EXPECT_GT(r.holes.max, 0.69);
  EXPECT_EQ(r.holes.samples, 200'000u);
}

TEST(Quality, ThinRotatedDomainStillGetsItsSamples) {
  // A bar 0.02 wide along the diagonal of [0, 50]^2 fills 1/1768 of its bounding box: a fixed number
  // of draws in the box left a few samples inside it, and a measure tens of percent off. Nodes every
  // 0.01 along its axis, h = 0.01.
  const Vec<2> u = Vec<2>(1, 1).normalized(), n(-u[1], u[0]);
  const double length = 50 * std::sqrt(2.0), half_width = 0.01;
  NodeArrays nodes;
  nodes.dim = 2;
  for (double t = 0; t <= length; t += 0.01) {
    const Vec<2> p = t * u;
    nodes.positions.insert(nodes.positions.end(), {p[0], p[1]});
    nodes.types.push_back(1);
    nodes.bmap.push_back(-1);
    nodes.h.push_back(0.01);
  }
  QualityDomain<2> bar;
  bar.box.lo = Vec<2>(-0.01, -0.01);
  bar.box.hi = Vec<2>(50.01, 50.01);
  bar.contains = [&](const Vec<2>& p) {
    const double t = p.dot(u);
    return t >= 0 && t <= length && std::abs(p.dot(n)) <= half_width;
  };
  const auto r = quality_report<2>(nodes, &bar, QualityOptions{20'000, 3, 2});
  EXPECT_GE(r.holes.samples, 20'000u);
  EXPECT_GT(r.holes.drawn, 20'000'000u);  // the share inside is 1/1768
  EXPECT_NEAR(r.measure, length * 2 * half_width, 0.03 * length * 2 * half_width);
  // Farthest point of the bar from the axis nodes: half the node step along it and half the width across.
  EXPECT_LE(r.holes.max, std::hypot(0.5, 1.0) + 1e-9);
}

TEST(Quality, DrawsInTheBoxAreBoundedInAll) {
  // A sliver filling 1e-6 of its box: 1e7 samples would take 1e13 draws (hours of inside tests). The
  // draws stop at kMaxDraws in all; the samples found are reported as fewer than asked. Its point is
  // the count of draws (slow under AddressSanitizer): the release run checks it.
  if (nodegen::test::kSanitized) GTEST_SKIP() << "the draws' bound is checked by the release run";
  const auto nodes = lattice<2>(10);
  QualityDomain<2> sliver = unit_box<2>();
  sliver.contains = [](const Vec<2>& p) { return p[0] < 1e-6; };
  const auto r = quality_report<2>(nodes, &sliver, QualityOptions{10'000'000, 3, 2});
  EXPECT_EQ(r.holes.drawn, QualityOptions::kMaxDraws);
  EXPECT_LT(r.holes.samples, 1'000u);
  EXPECT_GT(r.holes.samples, 100u);  // about 250
}

// An inside test that costs many shapes' tests (a sliver cut by 100 of them kept `stats` busy for over
// a minute for kMaxDraws draws) gets that many times fewer.
TEST(Quality, DrawsAreBoundedByTheCostOfATest) {
  const auto nodes = lattice<2>(10);
  QualityDomain<2> sliver = unit_box<2>();
  sliver.contains = [](const Vec<2>& p) { return p[0] < 1e-3; };
  sliver.test_cost = 100;
  const auto r = quality_report<2>(nodes, &sliver, QualityOptions{100'000, 3, 2});
  EXPECT_EQ(r.holes.drawn, QualityOptions::kMaxDraws / 100);
  EXPECT_NEAR(static_cast<double>(r.holes.samples), 2500.0, 250.0);
}

TEST(Quality, CubicLattice) {
  const auto nodes = lattice<3>(20);  // a = h = 0.05
  const auto domain = unit_box<3>();
  const auto r = quality_report<3>(nodes, &domain, QualityOptions{200'000, 9, 3});
  EXPECT_EQ(r.nodes, 21u * 21u * 21u);
  EXPECT_EQ(r.interior_nodes, 19u * 19u * 19u);
  EXPECT_NEAR(r.nn_over_h.min, 1.0, 1e-9);
  EXPECT_NEAR(r.nn_over_h.max, 1.0, 1e-9);
  EXPECT_NEAR(r.packing_density, 21.0 * 21 * 21 * std::numbers::pi / 6 * 0.05 * 0.05 * 0.05, 1e-9);
  EXPECT_NEAR(r.holes.mean, 0.48028, 2e-3);
  EXPECT_NEAR(r.holes.p999, 0.8145, 6e-3);
  EXPECT_LE(r.holes.max, std::sqrt(3.0) / 2 + 1e-9);
}

TEST(Quality, HexagonalLatticePacksAtPiOverSqrt12) {
  // Rows of spacing a, every other row shifted by a/2, rows sqrt(3)/2 a apart: the densest disk
  // packing, pi / sqrt(12) = 0.9069 up to the edge effect of an O(a) strip.
  const double a = 0.004;
  NodeArrays nodes;
  nodes.dim = 2;
  const double dy = std::sqrt(3.0) / 2 * a;
  for (int row = 0; row * dy <= 1.0; ++row)
    for (double x = (row % 2) * a / 2; x <= 1.0; x += a) {
      nodes.positions.insert(nodes.positions.end(), {x, row * dy});
      nodes.types.push_back(1);
      nodes.bmap.push_back(-1);
      nodes.h.push_back(a);
    }
  const auto domain = unit_box<2>();
  const auto r = quality_report<2>(nodes, &domain, QualityOptions{100'000, 1, 2});
  EXPECT_NEAR(r.packing_density, std::numbers::pi / std::sqrt(12.0), 0.01);
  EXPECT_NEAR(r.nn_over_h.min, 1.0, 1e-9);
  // Away from the edges (the top row may stop up to sqrt(3)/2 a below y = 1) the largest hole is the
  // circumradius of the lattice triangle, a / sqrt(3).
  QualityDomain<2> inner;
  inner.box.lo = Vec<2>(0.05, 0.05);
  inner.box.hi = Vec<2>(0.95, 0.95);
  inner.contains = [](const Vec<2>&) { return true; };
  const auto ri = quality_report<2>(nodes, &inner, QualityOptions{100'000, 1, 2});
  EXPECT_LE(ri.holes.max, 1 / std::sqrt(3.0) + 1e-9);
  EXPECT_GT(ri.holes.max, 0.56);
}

TEST(Quality, DiskDomainMeasureAndVariableSpacing) {
  // Lattice points inside the unit disk only, h = a: the measure estimate must find pi, and the
  // nearest-neighbour ratio follows a per-node h (halved h doubles the ratio).
  const double a = 0.02;
  NodeArrays nodes;
  nodes.dim = 2;
  for (double x = -1; x <= 1; x += a)
    for (double y = -1; y <= 1; y += a)
      if (x * x + y * y <= 1) {
        nodes.positions.insert(nodes.positions.end(), {x, y});
        nodes.types.push_back(1);
        nodes.bmap.push_back(-1);
        nodes.h.push_back(nodes.h.size() % 2 ? a : a / 2);
      }
  QualityDomain<2> disk;
  disk.box.lo = Vec<2>(-1, -1);
  disk.box.hi = Vec<2>(1, 1);
  disk.contains = [](const Vec<2>& p) { return p.squaredNorm() <= 1; };
  const auto r = quality_report<2>(nodes, &disk, QualityOptions{400'000, 2, 2});
  EXPECT_NEAR(r.measure, std::numbers::pi, 0.01);
  EXPECT_NEAR(r.nn_over_h.min, 1.0, 1e-6);
  EXPECT_NEAR(r.nn_over_h.max, 2.0, 1e-6);
  EXPECT_NEAR(r.nn_over_h.mean, 1.5, 1e-3);
}

TEST(Quality, WithoutADomainOnlyCountsAndNeighbours) {
  const auto nodes = lattice<2>(10);
  const auto r = quality_report<2>(nodes, nullptr, QualityOptions{});
  EXPECT_EQ(r.nodes, 121u);
  EXPECT_NEAR(r.nn_over_h.mean, 1.0, 1e-9);
  EXPECT_TRUE(std::isnan(r.packing_density));
  EXPECT_TRUE(std::isnan(r.holes.p999));
}

TEST(Quality, ReportDoesNotDependOnThreadCount) {
  const auto nodes = lattice<2>(60);
  const auto domain = unit_box<2>();
  const auto one = quality_report<2>(nodes, &domain, QualityOptions{50'000, 3, 1});
  const auto five = quality_report<2>(nodes, &domain, QualityOptions{50'000, 3, 5});
  EXPECT_EQ(one.holes.mean, five.holes.mean);
  EXPECT_EQ(one.holes.p999, five.holes.p999);
  EXPECT_EQ(one.packing_density, five.packing_density);
  EXPECT_NEAR(one.nn_over_h.mean, five.nn_over_h.mean, 1e-12);  // summation order differs
}

// Three interior 2D nodes at `positions` (x0, y0, x1, y1, x2, y2), h = 0.1 at each.
NodeArrays three_nodes(std::vector<double> positions) {
  NodeArrays nodes;
  nodes.dim = 2;
  nodes.positions = std::move(positions);
  nodes.types = {1, 1, 1};
  nodes.bmap = {-1, -1, -1};
  nodes.h = {0.1, 0.1, 0.1};
  return nodes;
}

TEST(Quality, CoincidentNodesGiveZeroDistance) {
  const auto r = quality_report<2>(three_nodes({0.5, 0.5, 0.5, 0.5, 0.9, 0.9}), nullptr, QualityOptions{});
  EXPECT_EQ(r.nn_over_h.min, 0.0);
}

// More threads than nodes: the team is cut to one thread per node, and the threads that do not run
// must not count in the summary (an unwritten per-thread entry, NaN by default, would make the mean NaN).
TEST(Quality, MoreThreadsThanNodes) {
  const auto r = quality_report<2>(three_nodes({0.1, 0.1, 0.3, 0.1, 0.1, 0.5}), nullptr, QualityOptions{0, 1, 8});
  EXPECT_NEAR(r.nn_over_h.min, 2.0, 1e-12);
  EXPECT_NEAR(r.nn_over_h.max, 4.0, 1e-12);
  EXPECT_NEAR(r.nn_over_h.mean, 8.0 / 3.0, 1e-12);
}

}  // namespace
