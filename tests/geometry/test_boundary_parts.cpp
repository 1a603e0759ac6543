// Polygon edges named apart ("edge_names"): the parts they make and their order in boundary_names, the
// part of every node on a named edge, corners owned by the edge leaving them, names mapped through the
// merging of repeated points, holes named likewise, CSG, and the distance to a named part.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/geometry_test_support.hpp"

namespace nodegen {
namespace {

using test::domain_of;
using test::parse;

std::vector<BoundaryNode<2>> nodes_of(const DomainFile& f) { return domain_of<2>(f)->boundary_nodes(f.spacing, 1); }

// The rectangle [0, 3] x [0, 1]: the part of each node from where it lies. `corner(x, y)` gives a
// corner's part, `side(x, y)` an edge node's.
template <class Corner, class Side>
void expect_parts(const std::vector<BoundaryNode<2>>& nodes, Corner corner, Side side) {
  int corners = 0;
  for (const auto& n : nodes) {
    const double x = n.pos[0], y = n.pos[1];
    const bool on_x = x == 0 || x == 3, on_y = y == 0 || y == 1;
    if (!on_x && !on_y) continue;  // a node of another shape
    if (on_x && on_y) {
      ++corners;
      EXPECT_EQ(n.boundary_id, corner(x, y)) << "corner " << n.pos.transpose();
    } else {
      EXPECT_EQ(n.boundary_id, side(x, y)) << "node " << n.pos.transpose();
    }
  }
  EXPECT_EQ(corners, 4);
}

// The left edge named "inlet" (edge 3, from (0, 1) to (0, 0)): every node with x = 0 is on the inlet but
// the corner (0, 0), which belongs to edge 0 leaving it; the ring's other edges stay "outer".
TEST(BoundaryParts, NamedEdgeOfARectangle) {
  const auto f = parse(R"({"dim":2,"spacing":0.05,"shape":{"type":"polygon","name":"P",
      "points":[[0,0],[3,0],[3,1],[0,1]],"edge_names":{"3":"inlet"}}})");
  const auto& d = *domain_of<2>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"P:outer", "P:inlet"}));
  const auto nodes = nodes_of(f);
  int inlet = 0;
  for (const auto& n : nodes) inlet += n.boundary_id == 2;
  EXPECT_EQ(inlet, 20);  // (0, 1) and the 19 between the corners
  expect_parts(
      nodes, [](double x, double y) { return x == 0 && y == 1 ? 2 : 1; },
      [](double x, double) { return x == 0 ? 2 : 1; });
}

// Every edge named: no "outer" part; the parts in the order their names first come, and each corner
// with the edge leaving it ((0, 0) starts the bottom wall, (3, 1) the top wall).
TEST(BoundaryParts, EveryEdgeNamedInTheirOrder) {
  const auto f = parse(R"({"dim":2,"spacing":0.05,"shape":{"type":"polygon","name":"channel",
      "points":[[0,1],[0,0],[3,0],[3,1]],"edge_names":["inlet","wall","outlet","wall"]}})");
  const auto& d = *domain_of<2>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"channel:inlet", "channel:wall", "channel:outlet"}));
  expect_parts(
      nodes_of(f),
      [](double x, double y) { return x == 0 ? (y == 1 ? 1 : 2) : (y == 0 ? 3 : 2); },
      [](double x, double) { return x == 0 ? 1 : x == 3 ? 3 : 2; });
}

// Names index the ring as written: a doubled vertex and a closing repeat of the first point are edges
// of no length, named "" (or null), or as an edge beside them.
TEST(BoundaryParts, NamesFollowTheRingAsWritten) {
  const auto f = parse(R"({"dim":2,"spacing":0.05,"shape":{"type":"polygon","name":"P",
      "points":[[0,0],[3,0],[3,0],[3,1],[0,1],[0,0]],
      "edge_names":["wall","outlet","outlet","wall","inlet",null]}})");
  const auto& d = *domain_of<2>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"P:wall", "P:outlet", "P:inlet"}));
  expect_parts(
      nodes_of(f), [](double x, double y) { return x == 3 && y == 0 ? 2 : x == 0 && y == 1 ? 3 : 1; },
      [](double x, double) { return x == 0 ? 3 : x == 3 ? 2 : 1; });
}

// Holes: as objects with edge names, or as plain rings as before. Each ring registers its own part if
// an edge of it is unnamed, then its names new to the polygon: one name is one part across the rings.
TEST(BoundaryParts, HolesNamedLikeTheOutline) {
  const auto f = parse(R"({"dim":2,"spacing":0.02,"shape":{"type":"polygon","name":"P",
      "points":[[0,0],[3,0],[3,1],[0,1]],"edge_names":{"0":"a"},
      "holes":[{"points":[[0.2,0.2],[0.6,0.2],[0.6,0.6],[0.2,0.6]],"edge_names":["a","","b",null]},
               [[1.2,0.2],[1.6,0.2],[1.6,0.6]]]}})");
  const auto& d = *domain_of<2>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"P:outer", "P:a", "P:hole1", "P:b", "P:hole2"}));
  auto near = [](double v, double w) { return std::abs(v - w) < 1e-12; };
  for (const auto& n : nodes_of(f)) {
    const double x = n.pos[0], y = n.pos[1];
    int want = 0;
    if (x >= 1.1 && x < 2 && y > 0.1 && y < 0.7) want = 5;                   // the triangle hole
    else if (y == 0 && x < 3) want = 2;                                      // outer edge 0 ("a")
    else if (x == 0 || x == 3 || y == 1) want = 1;                           // outer, unnamed
    else if (near(y, 0.2) && x < 0.6) want = 2;                              // hole edge 0 ("a")
    else if (near(x, 0.6) && y < 0.6) want = 3;                              // hole edge 1 (unnamed)
    else if (near(y, 0.6) && x > 0.2) want = 4;                              // hole edge 2 ("b")
    else if (near(x, 0.2)) want = 3;                                         // hole edge 3 (null)
    EXPECT_EQ(n.boundary_id, want) << n.pos.transpose();
  }
}

// Under CSG (the example channel minus a disk) the named edges keep their parts where they stay on the
// boundary, corners included; the distance to a named part measures to its edges alone.
TEST(BoundaryParts, NamedEdgesUnderCsgAndTheirDistance) {
  const DomainFile f = load_domain_file(test::source_dir() / "domains" / "channel_parts.json");
  const auto& d = *domain_of<2>(f);
  ASSERT_EQ(d.boundary_names(),
            (std::vector<std::string>{"channel:inlet", "channel:wall", "channel:outlet", "cylinder:surface"}));
  const auto nodes = nodes_of(f);
  expect_parts(
      nodes, [](double x, double y) { return x == 0 ? (y == 1 ? 1 : 2) : (y == 0 ? 3 : 2); },
      [](double x, double) { return x == 0 ? 1 : x == 3 ? 3 : 2; });
  int cylinder = 0;
  for (const auto& n : nodes)
    if (n.boundary_id == 4) {
      ++cylinder;
      EXPECT_NEAR((n.pos - Vec<2>(0.75, 0.5)).norm(), 0.15, 1e-9);
    }
  EXPECT_GT(cylinder, 100);
  DistanceField::Hint hint;
  EXPECT_NEAR(d.distance_field("channel:inlet")->distance(1.5, 0.5, 0, hint), 1.5, 1e-12);
  EXPECT_NEAR(d.distance_field("channel:outlet")->distance(1.5, 0.5, 0, hint), 1.5, 1e-12);
  EXPECT_NEAR(d.distance_field("channel:wall")->distance(1.5, 0.3, 0, hint), 0.3, 1e-12);
  EXPECT_NEAR(d.distance_field("channel")->distance(0.1, 0.5, 0, hint), 0.1, 1e-12);
  EXPECT_NEAR(d.distance_field("cylinder")->distance(0.75, 0.9, 0, hint), 0.25, 1e-12);
}

}  // namespace
}  // namespace nodegen
