// The blocked Poisson-disk thinning of surface samples (src/geometry/poisson_thinning.hpp): kept samples
// keep their distance, every dropped sample has a kept one within its radius (a maximal set), and the
// kept set does not depend on the number of threads.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

#include "geometry/boundary/poisson_thinning.hpp"

namespace nodegen::geometry_detail {
namespace {

constexpr double kFactor = 0.92;

// Uniform samples on the unit sphere scaled by `radius`, about `per_h2` per h^2 of area at h = h0.
std::vector<Vec<3>> sphere_samples(double radius, double h0, double per_h2, std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(per_h2 * 4.0 * std::numbers::pi * radius * radius / (h0 * h0));
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<Vec<3>> out(n);
  for (auto& p : out) p = radius * Vec<3>(g(rng), g(rng), g(rng)).normalized();
  return out;
}

// A fixed list of points as a sample source: one item, one piece per point.
class PointSamples final : public SampleSource {
 public:
  PointSamples(const std::vector<Vec<3>>& points, const Spacing& spacing) : points_(points) {
    auto h = spacing.evaluator();
    range_ = {1e300, 0.0};
    for (const auto& p : points) range_ = {std::min(range_.first, h(p)), std::max(range_.second, h(p))};
  }
  std::size_t items() const override { return points_.size(); }
  std::pair<double, double> spacing_range() const override { return range_; }
  void set_piece_size(double size) override { piece_size = size; }
  void pieces(std::size_t item, const std::function<void(const Box<3>&)>& box) const override {
    box({points_[item], points_[item]});
  }
  void samples(std::size_t item, const Box<3>&, int, std::vector<SurfaceSample>& out) const override {
    out.push_back({points_[item], static_cast<std::uint32_t>(item)});
  }
  double piece_size = 0.0;

 private:
  const std::vector<Vec<3>>& points_;
  std::pair<double, double> range_;
};

// The kept samples' items (indices into the points), checked to be the points themselves.
std::vector<std::uint32_t> thin_points(const std::vector<Vec<3>>& points, const Spacing& spacing, double cell,
                                       std::uint64_t seed, int threads) {
  PointSamples source(points, spacing);
  std::vector<std::uint32_t> out;
  for (const SurfaceSample& s : thin_samples(source, spacing, kFactor, cell, seed, threads)) {
    EXPECT_EQ(s.pos, points[s.item]);
    out.push_back(s.item);
  }
  return out;
}

// The thinning radius of every sample.
std::vector<double> radii(const std::vector<Vec<3>>& samples, const Spacing& spacing) {
  auto h = spacing.evaluator();
  std::vector<double> r(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) r[i] = kFactor * h(samples[i]);
  return r;
}

// Brute force over a grid of buckets: pairs of kept samples closer than the smaller radius, and
// dropped samples with no kept sample within their radius.
void expect_maximal_disk_set(const std::vector<Vec<3>>& samples, const std::vector<double>& r,
                             const std::vector<std::uint32_t>& kept) {
  std::vector<char> is_kept(samples.size(), 0);
  for (auto k : kept) {
    ASSERT_LT(k, samples.size());
    ASSERT_FALSE(is_kept[k]) << "sample " << k << " kept twice";
    is_kept[k] = 1;
  }
  int too_close = 0, uncovered = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    bool covered = false;
    for (auto k : kept) {
      if (k == i) continue;
      const double d = (samples[i] - samples[k]).norm();
      if (is_kept[i] && d < std::min(r[i], r[k]) * (1 - 1e-12)) ++too_close;
      if (!is_kept[i] && d < r[i]) covered = true;
    }
    if (!is_kept[i] && !covered) ++uncovered;
  }
  EXPECT_EQ(too_close, 0);
  EXPECT_EQ(uncovered, 0);
}

TEST(PoissonThinning, ConstantSpacingGivesAMaximalDiskSet) {
  const double h = 0.05;
  const auto samples = sphere_samples(0.5, h, 24, 1);
  const auto kept = thin_points(samples, Spacing::constant(h), h, 7, 1);
  expect_maximal_disk_set(samples, std::vector<double>(samples.size(), kFactor * h), kept);
  // A maximal set of radius 0.92 h on the sphere: between the densest packing and half of it.
  const double area_per_node = 4 * std::numbers::pi * 0.25 / static_cast<double>(kept.size());
  EXPECT_GT(area_per_node, 0.5 * h * h);
  EXPECT_LT(area_per_node, 1.5 * h * h);
}

TEST(PoissonThinning, GradedSpacingGivesAMaximalDiskSet) {
  // h grows 8x across the sphere, so radii span many cells and blocks are sized by the largest.
  const auto spacing = Spacing::expression("0.02 + 0.07 * (z + 0.5)");
  const auto samples = sphere_samples(0.5, 0.05, 30, 2);
  const auto kept = thin_points(samples, spacing, 0.02, 3, 2);
  expect_maximal_disk_set(samples, radii(samples, spacing), kept);
}

TEST(PoissonThinning, KeptSetDoesNotDependOnThreads) {
  const double h = 0.02;
  const auto samples = sphere_samples(0.5, h, 24, 3);
  const auto one = thin_points(samples, Spacing::constant(h), h, 11, 1);
  for (int threads : {2, 3, 8}) EXPECT_EQ(thin_points(samples, Spacing::constant(h), h, 11, threads), one) << threads;
  EXPECT_NE(thin_points(samples, Spacing::constant(h), h, 12, 1), one);  // the seed does matter
}

TEST(PoissonThinning, RejectsANonPositiveSpacing) {
  const auto samples = sphere_samples(0.5, 0.05, 4, 4);
  EXPECT_THROW(thin_points(samples, Spacing::expression("z"), 0.05, 1, 2), std::runtime_error);
}

TEST(PoissonThinning, NoSamplesNoNodes) { EXPECT_TRUE(thin_points({}, Spacing::constant(0.1), 0.1, 1, 4).empty()); }

// h 1e11 times larger on a cap of the sphere, with the cell of the geometric mean of the extremes (what
// a domain's boundary placement passes): blocks sized by the largest radius asked for 1e33 cells each.
// Now the cell follows the smallest h, blocks stay small, and the cap's samples are thinned apart (last):
// the set is still maximal and the same for any thread count.
TEST(PoissonThinning, AbsurdSpacingRatioStillGivesAMaximalSet) {
  const auto spacing = Spacing::expression("0.05 + 5e9 * (z > 0.4)");
  const auto samples = sphere_samples(0.5, 0.05, 12, 5);
  PointSamples source(samples, spacing);
  const double cell = std::sqrt(0.05 * 5e9);
  const auto kept = thin_samples(source, spacing, kFactor, cell, 9, 2);
  EXPECT_LE(source.piece_size, 32 * 4 * 0.05);  // the block edge was capped
  std::vector<std::uint32_t> items;
  int on_cap = 0;
  for (const auto& s : kept) {
    items.push_back(s.item);
    on_cap += samples[s.item][2] > 0.4;
  }
  expect_maximal_disk_set(samples, radii(samples, spacing), items);
  EXPECT_EQ(on_cap, 0);  // a cap sample would need no kept sample within 4.6e9 of it
  EXPECT_EQ(thin_points(samples, spacing, cell, 9, 1), items);
  EXPECT_EQ(thin_points(samples, spacing, cell, 9, 3), items);
}

}  // namespace
}  // namespace nodegen::geometry_detail
