// dist("NAME") in a spacing expression, end to end: the output's h is the expression of the distance
// to the part at every node; the same nodes at 1, 2 and 7 threads in 2D and 3D; an unknown name, a
// name not in quotes, an unclosed quote and a stray string are each one error line.
#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "nodegen/io/hdf5_reader.hpp"
#include "support/cli_test_support.hpp"

namespace {

using namespace nodegen::test;

const std::string kPlate = R"({"dim": 2, "spacing": SPACING, "shape": {"type": "difference", "children": [
  {"type": "box", "name": "plate", "min": [0, 0], "max": [2, 1]},
  {"type": "disk", "name": "hole", "center": [0.6, 0.5], "radius": 0.2},
  {"type": "translate", "offset": [1.4, 0.5], "child": {"type": "rotate", "angle": 30, "child":
    {"type": "box", "name": "slot", "min": [-0.1, -0.2], "max": [0.1, 0.2]}}}]}})";

std::string plate(const std::string& spacing) {
  std::string text = kPlate;
  return text.replace(text.find("SPACING"), 7, spacing);
}

std::string fingerprint(const std::string& summary) {
  std::smatch m;
  return std::regex_search(summary, m, std::regex("nodes_sha256 ([0-9a-f]{64})")) ? m[1].str() : "";
}

TEST_F(CliTest, DistSpacingIsTheDistanceAtEveryNode) {
  write("d.json", plate(R"j("0.006 + 0.05*dist(\"hole\")")j"));
  const Result r = run({"run", "d.json", "-o", "out.h5"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto out = nodegen::io::read_hdf5(dir_ / "out.h5").nodes;
  ASSERT_GT(out.node_count(), 3000u);
  for (std::size_t i = 0; i < out.node_count(); ++i) {
    const double d = std::abs(std::hypot(out.coord(i, 0) - 0.6, out.coord(i, 1) - 0.5) - 0.2);
    ASSERT_NEAR(out.h[i], 0.006 + 0.05 * d, 1e-15) << "node " << i;
  }
}

// A disk under an anisotropic scale (its circle tessellated), a rotated box and a box's face in 2D; a
// sphere (an exact round) and a box's face in 3D.
TEST_F(CliTest, DistSpacingGivesTheSameNodesAtOneTwoAndSevenThreads) {
  std::string d2 = plate(R"j("0.006 + 0.04*min(dist(\"hole\"), dist(\"slot\")) + 0.01*dist(\"plate:x-\")")j");
  const std::string disk = R"({"type": "disk", "name": "hole", "center": [0.6, 0.5], "radius": 0.2})";
  d2.replace(d2.find(disk), disk.size(), R"({"type": "translate", "offset": [0.6, 0.5], "child": {"type": "scale",
    "factor": [1, 1.5], "child": {"type": "disk", "name": "hole", "center": [0, 0], "radius": 0.15}}})");
  write("d2.json", d2);
  write("d3.json", R"j({"dim": 3, "spacing": "0.06 + 0.1*min(dist(\"cut\"), dist(\"block:x-\"))", "shape":
      {"type": "difference", "children": [{"type": "box", "name": "block", "min": [-1, -1, -1], "max": [1, 1, 1]},
      {"type": "sphere", "name": "cut", "center": [1, 1, 1], "radius": 0.8}]}})j");
  for (const char* domain : {"d2.json", "d3.json"}) {
    std::string first;
    for (const char* threads : {"1", "2", "7"}) {
      const Result r = run({"run", domain, "-o", "out.h5", "--threads", threads});
      ASSERT_EQ(r.status, 0) << r.err;
      if (first.empty()) first = fingerprint(r.out);
      EXPECT_EQ(fingerprint(r.out), first) << domain << " at " << threads << " threads";
    }
  }
}

TEST_F(CliTest, BadDistancesAreOneErrorLine) {
  auto refused = [&](const std::string& spacing, const std::vector<std::string>& pieces) {
    write("d.json", plate(spacing));
    expect_input_error({"run", "d.json", "-o", "out.h5"}, pieces);
  };
  refused(R"j("0.01 + dist(\"nope\")")j",
          {"d.json: spacing: ", "\"nope\"", "plate:x-", "plate:y+", "hole:surface", "slot:x-"});
  refused(R"j("0.01 + dist(x)")j", {"d.json: spacing: ", "dist takes a boundary part's name in double quotes"});
  refused(R"("0.01 + dist")", {"d.json: spacing: ", "dist takes a boundary part's name in double quotes"});
  refused(R"j("0.01 + dist(\"hole)")j", {"d.json: spacing: ", "no closing quote"});
  refused(R"j("0.01 + dist(\"hole\", 2)")j", {"d.json: spacing: ", "takes one argument"});
  refused(R"("0.01 + \"hole\"")", {"d.json: spacing: ", "a quoted string may only name a part"});
  refused(R"j("0.01 + dist(\"hole\") + \"x\"")j", {"d.json: spacing: ", "a quoted string may only name a part"});
  refused(R"j("dist(\"hole\") = 1")j", {"d.json: spacing: "});
  // A spacing that is dist() alone is 0 on the part it measures to.
  refused(R"j("dist(\"hole\")")j", {"d.json: spacing: ", "h = 0 at", "must be positive"});
}

}  // namespace
