// Spacings whose models are shared between threads (a sample interpolant, an expression reading the
// distance to a part, the part rules' conditions), evaluated by many threads at once, more threads than
// cores, each with its own evaluator: every value equals the one a single evaluator gives, to the bit
// (the models are immutable once built; an evaluator's walk hint and parser are its own). Run under
// ThreadSanitizer by the tsan preset.
#include <gtest/gtest.h>

#include <random>
#include <thread>
#include <vector>

#include "nodegen/geometry/spacing_samples.hpp"
#include "support/geometry_test_support.hpp"

namespace {

using namespace nodegen;
using namespace nodegen::test;

constexpr int kThreads = 8;

// Points spread over [-0.2, 1.2]^D, in an order of their own for each thread.
std::vector<Vec<3>> points(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-0.2, 1.2);
  std::vector<Vec<3>> out(n);
  for (auto& p : out) p = Vec<3>(u(rng), u(rng), u(rng));
  return out;
}

// Every thread evaluates every point in its own shuffled order; all must agree with one evaluator.
void expect_same_from_every_thread(const Spacing& spacing, int dim) {
  const std::vector<Vec<3>> at = points(2000, 17);
  std::vector<double> expected(at.size());
  auto one = spacing.evaluator();
  for (std::size_t i = 0; i < at.size(); ++i) expected[i] = one(at[i][0], at[i][1], dim == 3 ? at[i][2] : 0.0);
  std::vector<int> mismatches(kThreads, 0);
  std::vector<std::thread> team;
  for (int t = 0; t < kThreads; ++t)
    team.emplace_back([&, t] {
      auto h = spacing.evaluator();
      std::vector<std::size_t> order(at.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::shuffle(order.begin(), order.end(), std::mt19937_64(100 + static_cast<unsigned>(t)));
      for (int round = 0; round < 2; ++round)
        for (std::size_t i : order)
          if (h(at[i][0], at[i][1], dim == 3 ? at[i][2] : 0.0) != expected[i]) ++mismatches[static_cast<std::size_t>(t)];
    });
  for (auto& th : team) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[static_cast<std::size_t>(t)], 0) << "thread " << t;
}

TEST(SpacingConcurrent, SampleInterpolantsFromManyThreads) {
  for (int dim : {2, 3}) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<double> positions, values;
    for (int i = 0; i < 3000; ++i) {
      for (int k = 0; k < dim; ++k) positions.push_back(u(rng));
      values.push_back(0.01 + 0.05 * u(rng));
    }
    SampleSpacingOptions options;
    options.grading = dim == 2 ? 0.2 : 0.0;
    expect_same_from_every_thread(sample_spacing(dim, positions, values, options), dim);
  }
}

TEST(SpacingConcurrent, DistancesToPartsFromManyThreads) {
  const DomainFile plate = parse(R"json({"dim": 2, "spacing": "0.01 + 0.1*dist(\"hole\") + 0.01*dist(\"plate:x-\")",
    "shape": {"type": "difference", "children": [
      {"type": "box", "name": "plate", "min": [0, 0], "max": [1, 1]},
      {"type": "polygon", "name": "hole", "points": [[0.3, 0.3], [0.7, 0.35], [0.6, 0.7], [0.35, 0.6]]}]}})json");
  expect_same_from_every_thread(plate.spacing, 2);
  const DomainFile cube = parse(R"json({"dim": 3, "spacing": "0.05 + 0.1*dist(\"ball\")",
    "shape": {"type": "difference", "children": [
      {"type": "box", "name": "box", "min": [0, 0, 0], "max": [1, 1, 1]},
      {"type": "translate", "offset": [0.1, 0, 0], "child": {"type": "sphere", "name": "ball", "center": [0.33, 0.5, 0.5], "radius": 0.2}}]}})json");
  expect_same_from_every_thread(cube.spacing, 3);
}

// The part rules are applied by the boundary placement's threads: the same parts at 1 and 8 threads.
TEST(SpacingConcurrent, PartRulesAppliedByManyThreads) {
  const DomainFile f = parse(R"json({"dim": 2, "spacing": 0.01,
    "parts": [{"name": "near", "where": "dist(\"hole\") < 0.2"}, {"name": "left", "where": "x < 0.5"}],
    "shape": {"type": "difference", "children": [
      {"type": "box", "name": "plate", "min": [0, 0], "max": [2, 1]},
      {"type": "disk", "name": "hole", "center": [1, 0.5], "radius": 0.2}]}})json");
  const auto& domain = *domain_of<2>(f);
  const auto one = domain.boundary_nodes(f.spacing, 1, 1);
  const auto many = domain.boundary_nodes(f.spacing, 1, kThreads);
  ASSERT_EQ(one.size(), many.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].pos, many[i].pos);
    EXPECT_EQ(one[i].boundary_id, many[i].boundary_id);
  }
}

}  // namespace
