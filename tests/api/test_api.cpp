// The in-process C++ API (include/nodegen/nodegen.hpp) through libnodegen.so: the command's nodes for
// every kind of spacing, the same at any thread count, the arrays' conventions, supports against a
// brute-force search, the write/read round trip, and errors as nodegen::Error.
#include <gtest/gtest.h>

#include <nodegen/nodegen.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kDomains = fs::path(NODEGEN_SOURCE_DIR) / "domains";

std::string golden(const std::string& example) {
  std::ifstream in(fs::path(NODEGEN_SOURCE_DIR) / "tests/data/example_fingerprints.json");
  return nlohmann::json::parse(in).at(example).get<std::string>();
}

// A 2D unit square with a hole, its spacing given in the text.
std::string holed_square(const std::string& spacing) {
  return R"({"dim": 2, "spacing": )" + spacing + R"(, "shape": {"type": "difference", "children": [
      {"type": "box", "min": [0, 0], "max": [1, 1]},
      {"type": "ball", "name": "hole", "center": [0.5, 0.5], "radius": 0.2}]}})";
}

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const nodegen::Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Api, ExampleDomainsGiveTheCommandsNodes) {
  const auto square = nodegen::discretize<2>(nodegen::load_domain(kDomains / "square.json"));
  EXPECT_EQ(square.nodes_sha256(), golden("square"));
  const auto cube = nodegen::discretize<3>(nodegen::load_domain(kDomains / "cube.json"));
  EXPECT_EQ(cube.nodes_sha256(), golden("cube"));
}

TEST(Api, SpacingArgumentsFillAsTheDomainFileWouldSayThem) {
  const auto constant = nodegen::discretize<2>(nodegen::parse_domain(holed_square("1")), 0.03);
  EXPECT_EQ(constant.nodes_sha256(), nodegen::discretize<2>(nodegen::parse_domain(holed_square("0.03"))).nodes_sha256());
  const std::string expression = "0.01 + 0.05 * dist(\"hole\")";
  const auto from_text =
      nodegen::discretize<2>(nodegen::parse_domain(holed_square("1")), std::string(expression));
  EXPECT_EQ(from_text.nodes_sha256(),
            nodegen::discretize<2>(nodegen::parse_domain(holed_square(nlohmann::json(expression).dump()))).nodes_sha256());
  EXPECT_GT(from_text.size(), constant.size());
}

TEST(Api, AFunctionGivesTheSameNodesAtAnyThreadCount) {
  const auto domain = nodegen::parse_domain(holed_square("1"));
  const auto h = [](const nodegen::Point<2>& x) { return 0.008 + 0.04 * x.norm(); };
  std::vector<std::string> fingerprints;
  for (int threads : {1, 2, 7}) {
    nodegen::Options options;
    options.threads = threads;
    const auto nodes = nodegen::discretize<2>(domain, h, options);
    EXPECT_GT(nodes.size(), 500u);
    for (std::size_t i = 0; i < nodes.size(); i += 97) EXPECT_DOUBLE_EQ(nodes.h()[i], h(nodes.positions()[i]));
    fingerprints.push_back(nodes.nodes_sha256());
  }
  EXPECT_EQ(fingerprints[0], fingerprints[1]);
  EXPECT_EQ(fingerprints[0], fingerprints[2]);
}

TEST(Api, AFunctionOfManyPointsGivesThePointFunctionsNodes) {
  const auto domain = nodegen::parse_domain(holed_square("1"));
  const auto h = [](const nodegen::Point<2>& x) { return 0.008 + 0.04 * x.norm(); };
  // Calls of more than one point and fewer than all the nodes: the fill's, a tile's placed nodes each.
  std::atomic<std::size_t> fill_calls{0}, fill_points{0};
  const nodegen::BatchSpacing<2> batches{[&](std::span<const nodegen::Point<2>> x, std::span<double> out) {
    if (x.size() > 1 && x.size() < 500) fill_calls.fetch_add(1), fill_points.fetch_add(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) out[i] = h(x[i]);
  }};
  nodegen::Options options;
  options.threads = 3;
  const auto batched = nodegen::discretize<2>(domain, batches, options);
  EXPECT_EQ(batched.nodes_sha256(), nodegen::discretize<2>(domain, h).nodes_sha256());
  EXPECT_GT(fill_points.load(), batched.size() / 2);
  EXPECT_GT(fill_points.load(), 4 * fill_calls.load());  // many points a call, not one
}

TEST(Api, ArraysFollowMedusasConventions) {
  const auto nodes = nodegen::discretize<2>(nodegen::parse_domain(holed_square("0.04")));
  ASSERT_GT(nodes.boundary_count(), 0u);
  ASSERT_EQ(nodes.types().size(), nodes.size());
  ASSERT_EQ(nodes.boundary_normals().size(), nodes.boundary_count());
  const auto names = nodes.part_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "hole:surface"), names.end());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const bool boundary = i < nodes.boundary_count();
    EXPECT_EQ(nodes.types()[i] < 0, boundary);
    EXPECT_EQ(nodes.bmap()[i] >= 0, boundary);
    EXPECT_NEAR(nodes.normal(i).norm(), boundary ? 1.0 : 0.0, 1e-12);
    EXPECT_EQ(nodes.part_name(i).empty(), !boundary);
    if (boundary && nodes.part_name(i) == "hole:surface") {  // the hole's normals point into it
      const nodegen::Point<2> toward_centre = nodegen::Point<2>(0.5, 0.5) - nodes.positions()[i];
      EXPECT_GT(nodes.normal(i).dot(toward_centre), 0.0);
    }
    EXPECT_DOUBLE_EQ(nodes.h()[i], 0.04);
  }
}

TEST(Api, SamplesSpacingRefinesWhereItsValuesAreSmall) {
  nodegen::Samples samples;
  samples.dim = 2;
  for (double x : {0.0, 0.5, 1.0})
    for (double y : {0.0, 0.5, 1.0}) {
      samples.positions.insert(samples.positions.end(), {x, y});
      samples.values.push_back(x < 0.25 ? 0.01 : 0.05);
    }
  const auto nodes = nodegen::discretize<2>(nodegen::parse_domain(holed_square("1")), samples);
  std::size_t left = 0, right = 0;
  for (const auto& p : nodes.positions()) {
    if (p.x() < 0.25) ++left;
    if (p.x() > 0.75) ++right;
  }
  EXPECT_GT(left, 4 * right);
  samples.values.pop_back();
  EXPECT_NE(error_of([&] { nodegen::discretize<2>(nodegen::parse_domain(holed_square("1")), samples); })
                .find("spacing: the samples have 18 coordinates for 8 values"),
            std::string::npos);
}

TEST(Api, ANodeTargetLandsWithinTwoPercent) {
  nodegen::Options options;
  options.nodes = 4000;
  const auto nodes = nodegen::discretize<2>(nodegen::parse_domain(holed_square("\"0.01 + 0.02 * x\"")), options);
  EXPECT_NEAR(static_cast<double>(nodes.size()), 4000.0, 80.0);
  EXPECT_NE(nodes.spacing_factor(), 1.0);
}

TEST(Api, SupportsAreTheNearestNodesItselfFirst) {
  nodegen::Options options;
  options.supports = 9;
  options.threads = 3;
  const auto nodes = nodegen::discretize<2>(nodegen::parse_domain(holed_square("0.05")), options);
  ASSERT_EQ(nodes.support_size(), 9);
  ASSERT_EQ(nodes.supports().size(), nodes.size() * 9);
  const auto positions = nodes.positions();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    std::vector<std::int64_t> all(nodes.size());
    std::iota(all.begin(), all.end(), 0);
    auto d2 = [&](std::int64_t j) { return (positions[static_cast<std::size_t>(j)] - positions[i]).squaredNorm(); };
    std::partial_sort(all.begin(), all.begin() + 9, all.end(),
                      [&](std::int64_t a, std::int64_t b) { return d2(a) < d2(b) || (d2(a) == d2(b) && a < b); });
    for (int j = 0; j < 9; ++j) ASSERT_EQ(nodes.supports()[i * 9 + static_cast<std::size_t>(j)], all[static_cast<std::size_t>(j)]) << i;
  }
  options.threads = 1;
  EXPECT_TRUE(std::ranges::equal(nodegen::discretize<2>(nodegen::parse_domain(holed_square("0.05")), options).supports(),
                                 nodes.supports()));
}

TEST(Api, WrittenNodesReadBackTheSame) {
  const nodegen::test::TempDir dir("api");
  const auto nodes = nodegen::discretize<3>(nodegen::load_domain(kDomains / "cube.json"), 0.1);
  nodes.write(dir.path() / "cube.h5");
  EXPECT_TRUE(fs::exists(dir.path() / "cube.xdmf"));
  const auto back = nodegen::read_nodes<3>(dir.path() / "cube.h5");
  EXPECT_EQ(back.nodes_sha256(), nodes.nodes_sha256());
  EXPECT_EQ(back.part_names(), nodes.part_names());
  EXPECT_EQ(back.size(), nodes.size());
  EXPECT_NE(error_of([&] { nodegen::read_nodes<2>(dir.path() / "cube.h5"); }).find("holds 3D nodes"), std::string::npos);
  EXPECT_NE(error_of([&] { nodes.write(dir.path() / "missing" / "folder" / "x.h5"); }).find("x.h5"), std::string::npos);
}

TEST(Api, BadInputIsAnErrorNamingTheField) {
  const auto domain = nodegen::parse_domain(holed_square("0.05"), "holed.json");
  EXPECT_NE(error_of([&] { nodegen::discretize<3>(domain); }).find("holed.json: dim: the domain is 2D"), std::string::npos);
  EXPECT_NE(error_of([&] { nodegen::discretize<2>(domain, -0.1); }).find("holed.json: spacing:"), std::string::npos);
  EXPECT_NE(error_of([&] { nodegen::discretize<2>(domain, std::string("0.1 + y*")); }).find("holed.json: spacing:"),
            std::string::npos);
  EXPECT_NE(error_of([&] { nodegen::discretize<2>(domain, std::string("dist(\"nowhere\")")); }).find("nowhere"),
            std::string::npos);
  nodegen::Options options;
  options.threads = -1;
  EXPECT_NE(error_of([&] { nodegen::discretize<2>(domain, options); }).find("holed.json: threads:"), std::string::npos);
  options = {};
  options.backend = "disk";
  EXPECT_NE(error_of([&] { nodegen::discretize<2>(domain, options); }).find("holed.json: backend:"), std::string::npos);
  options = {};
  options.max_nodes = 100;
  EXPECT_NE(error_of([&] { nodegen::discretize<2>(domain, 0.001, options); }).find("holed.json: spacing:"), std::string::npos);
  options.nodes = 99;
  EXPECT_NE(error_of([&] { nodegen::discretize<2>(domain, options); }).find("holed.json: fill.nodes:"), std::string::npos);
  options = {};
  options.supports = 1'000'000;
  EXPECT_NE(error_of([&] { nodegen::discretize<2>(domain, options); }).find("holed.json: supports:"), std::string::npos);
  EXPECT_NE(error_of([] { nodegen::load_domain("no/such/domain.json"); }).find("no/such/domain.json"), std::string::npos);
  EXPECT_NE(error_of([] { nodegen::parse_domain("{\"dim\": 4}", "d.json"); }).find("d.json: dim:"), std::string::npos);
}

TEST(Api, AFunctionsOwnErrorReachesTheCaller) {
  const auto domain = nodegen::parse_domain(holed_square("1"));
  struct Mine : std::runtime_error {
    using std::runtime_error::runtime_error;
  };
  nodegen::Options options;
  options.threads = 3;
  EXPECT_THROW(nodegen::discretize<2>(domain, [](const nodegen::Point<2>& x) -> double {
    if (x.x() > 0.9) throw Mine("too far right");
    return 0.05;
  }, options),
               Mine);
  // A function that returns a spacing the fill cannot take is the spacing's error, with the point.
  EXPECT_NE(error_of([&] {
              nodegen::discretize<2>(domain, [](const nodegen::Point<2>& x) { return x.x() > 0.9 ? -1.0 : 0.05; });
            }).find("spacing"),
            std::string::npos);
}

}  // namespace
