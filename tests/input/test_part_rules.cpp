// Boundary parts by rule (the domain file's "parts"): each boundary node takes the part of the first
// rule whose "of" covers its shape's part and whose "where" holds at it; the rules' parts are named
// after the shapes'; normals and positions stay the geometry's; bad rules are one InputError each.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nodegen/geometry/input_error.hpp"
#include "support/geometry_test_support.hpp"

namespace {

using namespace nodegen;
using namespace nodegen::test;

// A 3 x 1 channel minus a disk, with the rules given.
std::string channel(const std::string& parts) {
  return R"({"dim": 2, "spacing": 0.05, "parts": )" + parts + R"(,
    "shape": {"type": "difference", "children": [
      {"type": "box", "name": "channel", "min": [0, 0], "max": [3, 1]},
      {"type": "disk", "name": "cyl", "center": [1, 0.5], "radius": 0.2}]}})";
}

template <int D>
std::vector<BoundaryNode<D>> boundary_of(const DomainFile& f, int threads = 1) {
  return domain_of<D>(f)->boundary_nodes(f.spacing, f.fill.seed, threads);
}

int id_of(const DomainFile& f, const std::string& name) {
  const auto& names = std::visit([](const auto& d) -> const std::vector<std::string>& { return d->boundary_names(); }, f.domain);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i) + 1;
  return -1;
}

TEST(PartRules, RulesPartsFollowTheShapesAndTheFirstMatchWins) {
  const DomainFile f = parse(channel(R"([{"name": "corner", "where": "x < 1e-9 && y < 1e-9"},
      {"name": "inlet", "where": "x < 1e-9"}, {"name": "outlet", "where": "x > 3 - 1e-9"}, {"name": "wall", "of": "channel"}])"));
  const auto& names = domain_of<2>(f)->boundary_names();
  EXPECT_EQ(names, (std::vector<std::string>{"channel:x-", "channel:x+", "channel:y-", "channel:y+", "cyl:surface", "corner",
                                             "inlet", "outlet", "wall"}));
  const auto nodes = boundary_of<2>(f);
  std::vector<int> count(names.size() + 1, 0);
  for (const auto& n : nodes) {
    ++count[static_cast<std::size_t>(n.boundary_id)];
    const double x = n.pos[0], y = n.pos[1];
    if (std::abs(x) < 1e-9 && std::abs(y) < 1e-9) EXPECT_EQ(n.boundary_id, id_of(f, "corner"));
    else if (std::abs(x) < 1e-9) EXPECT_EQ(n.boundary_id, id_of(f, "inlet")) << x << " " << y;
    else if (std::abs(x - 3) < 1e-9) EXPECT_EQ(n.boundary_id, id_of(f, "outlet")) << x << " " << y;
    else if (std::abs(y) < 1e-9 || std::abs(y - 1) < 1e-9) EXPECT_EQ(n.boundary_id, id_of(f, "wall")) << x << " " << y;
    else EXPECT_EQ(n.boundary_id, id_of(f, "cyl:surface")) << x << " " << y;  // no rule covers the disk
  }
  for (int shape_part = 1; shape_part <= 4; ++shape_part) EXPECT_EQ(count[static_cast<std::size_t>(shape_part)], 0);
  EXPECT_EQ(count[static_cast<std::size_t>(id_of(f, "corner"))], 1);
  EXPECT_GT(count[static_cast<std::size_t>(id_of(f, "inlet"))], 10);
  EXPECT_GT(count[static_cast<std::size_t>(id_of(f, "wall"))], 100);
  // Sorted by part, as boundary_nodes promises.
  for (std::size_t i = 1; i < nodes.size(); ++i) EXPECT_LE(nodes[i - 1].boundary_id, nodes[i].boundary_id);
}

// A condition that is NaN (a square root of a negative, 0/0) holds nowhere: it matched every node.
TEST(PartRules, AConditionThatIsNotANumberHoldsNowhere) {
  const DomainFile f = parse(channel(R"x([{"name": "nan", "where": "sqrt(x - 10)"}, {"name": "left", "where": "x < 1e-9"}])x"));
  const auto nodes = boundary_of<2>(f);
  int left = 0;
  for (const auto& n : nodes) {
    EXPECT_NE(n.boundary_id, id_of(f, "nan")) << n.pos.transpose();
    if (n.boundary_id == id_of(f, "left")) ++left;
  }
  EXPECT_GT(left, 10);
}

TEST(PartRules, PositionsAndNormalsStayTheGeometrysAtAnyThreadCount) {
  const DomainFile plain = parse(channel("[]"));
  const DomainFile ruled = parse(channel(R"([{"name": "near", "where": "dist(\"cyl\") < 0.5"}, {"name": "rest", "of": "channel"}])"));
  auto sorted = [](std::vector<BoundaryNode<2>> v) {
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return std::lexicographical_compare(a.pos.data(), a.pos.data() + 2, b.pos.data(), b.pos.data() + 2);
    });
    return v;
  };
  const auto a = sorted(boundary_of<2>(plain)), b = sorted(boundary_of<2>(ruled, 1));
  ASSERT_EQ(a.size(), b.size());
  int near = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].pos, b[i].pos);
    EXPECT_EQ(a[i].normal, b[i].normal);
    near += b[i].boundary_id == id_of(ruled, "near");
  }
  EXPECT_GT(near, 20);  // the disk's nodes and the nearest stretches of the walls
  const auto one = boundary_of<2>(ruled, 1);
  for (int threads : {2, 7}) {
    const auto other = boundary_of<2>(ruled, threads);
    ASSERT_EQ(other.size(), one.size());
    for (std::size_t i = 0; i < one.size(); ++i) {
      EXPECT_EQ(other[i].pos, one[i].pos);
      EXPECT_EQ(other[i].boundary_id, one[i].boundary_id);
    }
  }
}

TEST(PartRules, ThreeDimensionalFacesByPositionAndByShape) {
  const DomainFile f = parse(R"({"dim": 3, "spacing": 0.1,
    "parts": [{"name": "lid", "where": "z > 1 - 1e-9", "of": "box"}, {"name": "ball", "of": "hole:surface"}],
    "shape": {"type": "difference", "children": [
      {"type": "box", "name": "box", "min": [0, 0, 0], "max": [1, 1, 1]},
      {"type": "sphere", "name": "hole", "center": [0.5, 0.5, 0.5], "radius": 0.25}]}})");
  for (const auto& n : boundary_of<3>(f)) {
    if (std::abs(n.pos[2] - 1) < 1e-9) EXPECT_EQ(n.boundary_id, id_of(f, "lid"));
    else if ((n.pos - Vec<3>::Constant(0.5)).norm() < 0.26) EXPECT_EQ(n.boundary_id, id_of(f, "ball"));
    else EXPECT_LE(n.boundary_id, 6);  // the box's other faces keep theirs
  }
}

TEST(PartRules, BadRulesAreOneErrorNamingTheRule) {
  auto error_of = [](const std::string& parts) {
    try {
      parse(channel(parts));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of(R"({"name": "a"})"), "inline.json: parts: expected an array of rules, got an object");
  EXPECT_EQ(error_of(R"([3])"), "inline.json: parts[0]: expected a rule {\"name\", \"where\"}, got a number");
  EXPECT_EQ(error_of(R"([{"where": "x < 1"}])"), "inline.json: parts[0].name: missing");
  EXPECT_EQ(error_of(R"([{"name": "a"}])"),
            "inline.json: parts[0]: a rule needs \"where\" (a condition on x, y, z) or \"of\" (a part or shape), or both");
  EXPECT_NE(error_of(R"([{"name": "a", "where": "x <"}])").find("inline.json: parts[0].where: cannot parse"), std::string::npos);
  EXPECT_NE(error_of(R"([{"name": "a", "where": "dist(\"nope\") < 1"}])")
                .find("inline.json: parts[0].where: dist(\"nope\"): no boundary part or shape is named \"nope\""),
            std::string::npos);
  EXPECT_NE(error_of(R"([{"name": "a", "of": "nope"}])").find("inline.json: parts: no boundary part or shape is named \"nope\""),
            std::string::npos);
  EXPECT_EQ(error_of(R"([{"name": "cyl:surface", "where": "1"}])"),
            "inline.json: parts: the part name \"cyl:surface\" is taken (each part is named once)");
  EXPECT_EQ(error_of(R"([{"name": "a", "where": "1"}, {"name": "a", "where": "1"}])"),
            "inline.json: parts: the part name \"a\" is taken (each part is named once)");
  EXPECT_NE(error_of(R"([{"name": "a", "where": "1", "colour": 3}])").find("inline.json: parts[0].colour: unknown field"),
            std::string::npos);
  // Built with append: GCC 12 reports a false -Warray-bounds on chains of "literal" + std::string.
  std::string long_name(R"([{"name": ")");
  long_name.append(300, 'n').append(R"(", "where": "1"}])");
  EXPECT_NE(error_of(long_name).find("longer than the 256"), std::string::npos);
}

}  // namespace
