// Boundary nodes: on the boundary, spacing within tolerance of h (constant and variable), no holes,
// normals unit and outward (analytic where known), boundary ids, CSG junctions (nodes only on the
// combined boundary, one node at each junction, nothing closer than the spacing allows), determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <numbers>
#include <sstream>
#include <random>

#include "geometry/boundary/junction_chains.hpp"
#include "support/geometry_test_support.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "support/temp_dir.hpp"

namespace nodegen {
namespace {

using test::domain_of;
using test::mean;
using test::nearest_over_h;
using test::parse;

template <int D>
void expect_unit_outward_normals(const Domain<D>& d, const std::vector<BoundaryNode<D>>& nodes, const Spacing& s) {
  auto h = s.evaluator();
  for (const auto& n : nodes) {
    ASSERT_NEAR(n.normal.norm(), 1.0, 1e-12) << n.pos.transpose();
    const double eps = 1e-5 * h(n.pos);
    ASSERT_TRUE(d.contains(n.pos - eps * n.normal)) << "inward step leaves the domain at " << n.pos.transpose();
    ASSERT_FALSE(d.contains(n.pos + eps * n.normal)) << "outward step stays inside at " << n.pos.transpose();
    ASSERT_GE(n.boundary_id, 1);
    ASSERT_LE(n.boundary_id, static_cast<int>(d.boundary_names().size()));
  }
}

TEST(Boundary, UnitSquareHasExactSpacingFaceNormalsAndIds) {
  auto f = parse(R"({"dim":2,"spacing":0.01,"shape":{"type":"box","name":"sq","min":[0,0],"max":[1,1]}})");
  const auto& d = *domain_of<2>(f);
  const auto nodes = d.boundary_nodes(f.spacing, 1);
  EXPECT_EQ(nodes.size(), 400u);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"sq:x-", "sq:x+", "sq:y-", "sq:y+"}));
  for (const auto& n : nodes) {
    const double sd = std::max({-n.pos[0], n.pos[0] - 1, -n.pos[1], n.pos[1] - 1});
    ASSERT_NEAR(sd, 0.0, 1e-12);
    const bool corner = (n.pos[0] < 1e-12 || n.pos[0] > 1 - 1e-12) && (n.pos[1] < 1e-12 || n.pos[1] > 1 - 1e-12);
    if (corner) continue;
    // Face nodes: the normal is the face's, the id names that face.
    const int axis = (n.pos[0] < 1e-12 || n.pos[0] > 1 - 1e-12) ? 0 : 1;
    const int side = n.pos[axis] > 0.5;
    ASSERT_EQ(n.boundary_id, 1 + 2 * axis + side);
    ASSERT_NEAR(n.normal[axis], side ? 1.0 : -1.0, 1e-12);
  }
  const auto r = nearest_over_h(nodes, f.spacing);
  EXPECT_NEAR(*std::min_element(r.begin(), r.end()), 1.0, 1e-9);
  EXPECT_NEAR(*std::max_element(r.begin(), r.end()), 1.0, 1e-9);
  expect_unit_outward_normals(d, nodes, f.spacing);
}

TEST(Boundary, DenseSmoothPolygonIsSpacedByArcLengthNotByVertices) {
  // An ellipse outline with 2000 vertices (much denser than h) and a triangle hole with sharp corners.
  const test::TempDir dir("boundary");
  {
    std::ofstream out(dir / "ellipse.txt");
    out.precision(17);
    for (int i = 0; i < 2000; ++i) {
      const double t = 2 * std::numbers::pi * i / 2000;
      out << 2 * std::cos(t) << " " << std::sin(t) << "\n";
    }
  }
  auto f = parse(R"({"dim":2,"spacing":0.05,"shape":{"type":"polygon","points":"ellipse.txt",
      "holes":[[[-0.5,-0.3],[0.5,-0.3],[0,0.4]]]}})",
                 dir / "inline.json");
  const auto& d = *domain_of<2>(f);
  const auto nodes = d.boundary_nodes(f.spacing, 1);
  const auto r = nearest_over_h(nodes, f.spacing);
  // 0.92 h at the triangle's 54.5 degree corners: the first nodes on the two edges are h from the
  // corner and 2 h sin(27 deg) from each other.
  EXPECT_GE(*std::min_element(r.begin(), r.end()), 0.9);
  EXPECT_LE(*std::max_element(r.begin(), r.end()), 1.03);
  int outer = 0;
  for (const auto& n : nodes) {
    if (n.boundary_id != 1) continue;
    ++outer;
    // The polyline's normal is within the polygon's turning angle of the ellipse's analytic normal.
    const Vec<2> analytic = Vec<2>(n.pos[0] / 4, n.pos[1]).normalized();
    ASSERT_GT(n.normal.dot(analytic), std::cos(0.01)) << n.pos.transpose();
  }
  EXPECT_NEAR(outer, 9.688448 / 0.05, 1.0);  // perimeter of the 2 x 1 ellipse over h
  for (const Vec<2>& corner : {Vec<2>(-0.5, -0.3), Vec<2>(0.5, -0.3), Vec<2>(0, 0.4)}) {
    double best = 1e9;
    for (const auto& n : nodes) best = std::min(best, (n.pos - corner).norm());
    EXPECT_LT(best, 1e-12) << "sharp corner " << corner.transpose();
  }
  expect_unit_outward_normals(d, nodes, f.spacing);
}

TEST(Boundary, PolygonRingNormalsFollowTheNestingDepthNotTheRingIndex) {
  // Even-odd solid of nested squares (each ring given counter-clockwise, as a user would): an island
  // (depth 2) in a hole, a hole (depth 3) in that island, and a "hole" lying outside the outline
  // (depth 0, so solid). The normals of every ring must point away from the solid.
  auto square = [](double lo, double hi) {
    return "[[" + std::to_string(lo) + "," + std::to_string(lo) + "],[" + std::to_string(hi) + "," +
           std::to_string(lo) + "],[" + std::to_string(hi) + "," + std::to_string(hi) + "],[" +
           std::to_string(lo) + "," + std::to_string(hi) + "]]";
  };
  auto f = parse(R"({"dim":2,"spacing":0.05,"shape":{"type":"polygon","points":)" + square(0, 4) +
                 R"(,"holes":[)" + square(1, 3) + "," + square(1.5, 2.5) + "," + square(1.8, 2.2) + "," +
                 square(5, 6) + "]}}");
  const auto& d = *domain_of<2>(f);
  const auto nodes = d.boundary_nodes(f.spacing, 1);
  // Ring k (id k + 1) is solid inside for depths 0, 2 and the outside square, hole-like for 1 and 3.
  const double solid_inside[5] = {1, -1, 1, -1, 1};
  const Vec<2> centre[5] = {{2, 2}, {2, 2}, {2, 2}, {2, 2}, {5.5, 5.5}};
  int counted[5] = {};
  for (const auto& n : nodes) {
    const int ring = n.boundary_id - 1;
    ASSERT_GT(solid_inside[ring] * n.normal.dot(n.pos - centre[ring]), 0.0)
        << "ring " << ring << " at " << n.pos.transpose() << " normal " << n.normal.transpose();
    ++counted[ring];
  }
  for (int ring = 0; ring < 5; ++ring) EXPECT_GT(counted[ring], 0) << "ring " << ring;
  expect_unit_outward_normals(d, nodes, f.spacing);
}

TEST(Boundary, DiskNodesAreOnTheCircleWithRadialNormals) {
  auto f = parse(R"({"dim":2,"spacing":0.02,"shape":{"type":"disk","center":[1,1],"radius":0.5}})");
  const auto nodes = domain_of<2>(f)->boundary_nodes(f.spacing, 1);
  EXPECT_EQ(nodes.size(), static_cast<std::size_t>(std::lround(std::numbers::pi / 0.02)));
  for (const auto& n : nodes) {
    const Vec<2> r = n.pos - Vec<2>(1, 1);
    ASSERT_NEAR(r.norm(), 0.5, 1e-12);
    ASSERT_NEAR(n.normal.dot(r.normalized()), 1.0, 1e-12);
  }
  const auto ratio = nearest_over_h(nodes, f.spacing);
  EXPECT_NEAR(*std::min_element(ratio.begin(), ratio.end()), 1.0, 0.01);
  EXPECT_NEAR(*std::max_element(ratio.begin(), ratio.end()), 1.0, 0.01);
}

TEST(Boundary, VariableSpacingIsFollowedAlongEdges) {
  auto f = parse(R"({"dim":2,"spacing":"0.004 + 0.05*x","shape":{"type":"box","min":[0,0],"max":[1,1]}})");
  const auto nodes = domain_of<2>(f)->boundary_nodes(f.spacing, 1);
  auto h = f.spacing.evaluator();
  // Consecutive nodes along the bottom edge: their distance matches h at their midpoint within 5%.
  std::vector<Vec<2>> bottom;
  for (const auto& n : nodes)
    if (n.pos[1] < 1e-12) bottom.push_back(n.pos);
  std::sort(bottom.begin(), bottom.end(), [](const auto& a, const auto& b) { return a[0] < b[0]; });
  ASSERT_GT(bottom.size(), 20u);
  for (std::size_t i = 0; i + 1 < bottom.size(); ++i) {
    const double d = (bottom[i + 1] - bottom[i]).norm();
    ASSERT_NEAR(d / h(Vec<2>(0.5 * (bottom[i] + bottom[i + 1]))), 1.0, 0.05) << "at x = " << bottom[i][0];
  }
}

TEST(Boundary, SphereIsCoveredEvenlyWithoutHoles) {
  auto f = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"sphere","center":[0,0,0],"radius":1}})");
  const auto& d = *domain_of<3>(f);
  const auto nodes = d.boundary_nodes(f.spacing, 1);
  for (const auto& n : nodes) {
    ASSERT_NEAR(n.pos.norm(), 1.0, 1e-12);
    ASSERT_NEAR(n.normal.dot(n.pos), 1.0, 1e-9);
  }
  const auto r = nearest_over_h(nodes, f.spacing);
  EXPECT_GE(*std::min_element(r.begin(), r.end()), 0.95);
  EXPECT_LE(mean(r), 1.1);
  // Area 4 pi over between a hexagonal packing (0.87 h^2 per node) and a loose one (1.3 h^2 per node).
  EXPECT_GT(nodes.size(), 4 * std::numbers::pi / (1.3 * 0.01));
  EXPECT_LT(nodes.size(), 4 * std::numbers::pi / (0.8 * 0.01));
  std::vector<Vec<3>> probes;
  std::mt19937_64 rng(3);
  std::normal_distribution<double> g;
  for (int k = 0; k < 2000; ++k) probes.push_back(Vec<3>(g(rng), g(rng), g(rng)).normalized());
  EXPECT_LT(test::largest_gap_over_h(nodes, probes, f.spacing), 1.5);
  expect_unit_outward_normals(d, nodes, f.spacing);
}

TEST(Boundary, CubeHasCornersEdgesAndFaces) {
  auto f = parse(R"({"dim":3,"spacing":0.05,"shape":{"type":"box","min":[0,0,0],"max":[1,1,1]}})");
  const auto& d = *domain_of<3>(f);
  const auto nodes = d.boundary_nodes(f.spacing, 2);
  int on_edges = 0, corners = 0;
  for (const auto& n : nodes) {
    int at_bound = 0;
    for (int i = 0; i < 3; ++i) at_bound += n.pos[i] < 1e-12 || n.pos[i] > 1 - 1e-12;
    ASSERT_GE(at_bound, 1) << n.pos.transpose();
    on_edges += at_bound == 2;
    corners += at_bound == 3;
    if (at_bound == 1) {
      for (int i = 0; i < 3; ++i)
        if (n.pos[i] < 1e-12 || n.pos[i] > 1 - 1e-12) {
          ASSERT_NEAR(std::abs(n.normal[i]), 1.0, 1e-12);
        }
    }
  }
  EXPECT_EQ(corners, 8);
  EXPECT_EQ(on_edges, 12 * 19);  // 1 / 0.05 = 20 steps per edge
  const auto r = nearest_over_h(nodes, f.spacing);
  EXPECT_GE(*std::min_element(r.begin(), r.end()), 0.98);
  std::vector<Vec<3>> probes;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(0, 1);
  for (int k = 0; k < 1500; ++k) {
    Vec<3> p(u(rng), u(rng), u(rng));
    p[k % 3] = (k / 3) % 2;  // on a face
    probes.push_back(p);
  }
  EXPECT_LT(test::largest_gap_over_h(nodes, probes, f.spacing), 1.5);
  expect_unit_outward_normals(d, nodes, f.spacing);
}

TEST(Boundary, Csg2DKeepsOnlyTheCombinedBoundaryAndMarksJunctions) {
  auto f = parse(R"({"dim":2,"spacing":0.02,"shape":{"type":"difference","children":[
      {"type":"disk","center":[0,0],"radius":1},{"type":"box","min":[0.5,-0.3],"max":[1.5,0.3]}]}})");
  const auto& d = *domain_of<2>(f);
  const auto nodes = d.boundary_nodes(f.spacing, 1);
  auto sd = [](const Vec<2>& p) {
    const double box = std::max({0.5 - p[0], p[0] - 1.5, -0.3 - p[1], p[1] - 0.3});
    return std::max(p.norm() - 1, -box);
  };
  for (const auto& n : nodes) ASSERT_NEAR(sd(n.pos), 0.0, 1e-9) << n.pos.transpose();
  expect_unit_outward_normals(d, nodes, f.spacing);
  // The circle meets the notch at (sqrt(0.91), +-0.3): a node sits on each junction.
  for (double y : {-0.3, 0.3}) {
    const Vec<2> junction(std::sqrt(0.91), y);
    double best = 1e9;
    for (const auto& n : nodes) best = std::min(best, (n.pos - junction).norm());
    // 1e-6: the on-boundary probe steps 1e-7 of the domain's diagonal across the junction.
    EXPECT_LT(best, 1e-6) << "junction " << junction.transpose();
  }
  const auto r = nearest_over_h(nodes, f.spacing);
  EXPECT_GE(*std::min_element(r.begin(), r.end()), 0.7);  // nothing closer than the spacing allows
  EXPECT_LE(*std::max_element(r.begin(), r.end()), 1.05);  // kept stretches are re-spaced up to the junction
}

TEST(Boundary, UnionDropsTheSharedFaceAndDuplicates) {
  auto f = parse(R"({"dim":2,"spacing":0.05,"shape":{"type":"union","children":[
      {"type":"box","min":[0,0],"max":[1,1]},{"type":"box","min":[1,0],"max":[2,1]}]}})");
  const auto& d = *domain_of<2>(f);
  const auto nodes = d.boundary_nodes(f.spacing, 1);
  for (const auto& n : nodes) {
    const bool inner_face = std::abs(n.pos[0] - 1) < 1e-12 && n.pos[1] > 1e-9 && n.pos[1] < 1 - 1e-9;
    ASSERT_FALSE(inner_face) << n.pos.transpose();
  }
  EXPECT_EQ(nodes.size(), 120u);  // perimeter 6 at spacing 0.05
  const auto r = nearest_over_h(nodes, f.spacing);
  EXPECT_NEAR(*std::min_element(r.begin(), r.end()), 1.0, 1e-9);
  expect_unit_outward_normals(d, nodes, f.spacing);
}

// The domain file `{"dim":D,"spacing":h,"shape":SHAPE}` with every `@v@` in SHAPE written as at + v.
DomainFile shifted_domain(int dim, double h, std::string shape, double at) {
  for (std::size_t k; (k = shape.find('@')) != std::string::npos;) {
    const std::size_t end = shape.find('@', k + 1);
    std::ostringstream value;
    value << std::setprecision(17) << at + std::stod(shape.substr(k + 1, end - k - 1));
    shape.replace(k, end - k + 1, value.str());
  }
  std::ostringstream json;
  json << std::setprecision(17) << R"({"dim":)" << dim << R"(,"spacing":)" << h << R"(,"shape":)" << shape << "}";
  return parse(json.str());
}

// The domain moved to 3e6 has as many boundary nodes as at the origin, with outward normals (probed at
// 1e-2 h: 1e-5 h is below a unit in the last place there).
template <int D>
void expect_same_boundary_far_away(double h, const std::string& shape) {
  const auto origin = shifted_domain(D, h, shape, 0.0), far = shifted_domain(D, h, shape, 3e6);
  const auto& d = *domain_of<D>(far);
  const auto nodes = d.boundary_nodes(far.spacing, 1);
  EXPECT_EQ(nodes.size(), domain_of<D>(origin)->boundary_nodes(origin.spacing, 1).size()) << shape;
  for (const auto& n : nodes) {
    ASSERT_TRUE(d.contains(n.pos - 1e-2 * h * n.normal)) << shape << " at " << n.pos.transpose();
    ASSERT_FALSE(d.contains(n.pos + 1e-2 * h * n.normal)) << shape << " at " << n.pos.transpose();
  }
}

TEST(Boundary, SmallDomainsFarFromTheOriginKeepTheirBoundary) {
  // 1e-3 wide domains at 3e6, where a unit in the last place (4.7e-10) exceeds 1e-7 of the diagonal:
  // with that as the on-boundary probe offset every CSG node was dropped, and a 3D face's parameter
  // step of 1e-7 of its range moved no coordinate (a zero metric: the faces were left half empty).
  expect_same_boundary_far_away<2>(1e-5, R"({"type":"union","children":[
      {"type":"box","min":[@0@,@0@],"max":[@0.001@,@0.001@]}]})");
  expect_same_boundary_far_away<2>(2e-5, R"({"type":"difference","children":[
      {"type":"disk","center":[@0@,@0@],"radius":0.001},
      {"type":"box","min":[@0.0005@,@-0.0003@],"max":[@0.0015@,@0.0003@]}]})");
  expect_same_boundary_far_away<3>(1e-4, R"({"type":"box","min":[@0@,@0@,@0@],"max":[@0.001@,@0.001@,@0.001@]})");
}

// The outward normal of the box [lo, hi] at a point of its surface: the normalised sum of the normals of
// the faces it lies on (a face normal, an edge's or a corner's bisector).
template <int D>
Vec<D> box_normal(const Vec<D>& p, const Vec<D>& lo, const Vec<D>& hi) {
  Vec<D> n = Vec<D>::Zero();
  for (int a = 0; a < D; ++a) n[a] = (std::abs(p[a] - hi[a]) < 1e-9) - (std::abs(p[a] - lo[a]) < 1e-9);
  return n.normalized();
}

TEST(Boundary, UnionCornersAndEdgesOnTheCombinedBoundaryGetItsNormalAndAVisibleFacesId) {
  // L-shape [0,2]x[0,1] U [0,1]x[1,2]: the children's corner (0,1) lies on the straight edge x = 0.
  auto l = parse(R"({"dim":2,"spacing":0.05,"shape":{"type":"union","children":[
      {"type":"box","name":"bottom","min":[0,0],"max":[2,1]},{"type":"box","name":"top","min":[0,1],"max":[1,2]}]}})");
  const auto l_nodes = domain_of<2>(l)->boundary_nodes(l.spacing, 1);
  int found = 0;
  for (const auto& n : l_nodes) {
    if ((n.pos - Vec<2>(0, 1)).norm() > 1e-12) continue;
    ++found;
    EXPECT_NEAR(n.normal[0], -1.0, 1e-12) << n.normal.transpose();
    EXPECT_NEAR(n.normal[1], 0.0, 1e-12) << n.normal.transpose();
  }
  EXPECT_EQ(found, 1);
  // Two unit cubes sharing the face x = 1 make the box [0,2]x[0,1]x[0,1]: the first cube's edges and
  // corners on x = 1 lie on its faces or edges, and no node may bear the id of a buried face (the first
  // cube's x+, 2, or the second's x-, 7).
  auto u = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"union","children":[
      {"type":"box","min":[0,0,0],"max":[1,1,1]},{"type":"box","min":[1,0,0],"max":[2,1,1]}]}})");
  const auto& d = *domain_of<3>(u);
  ASSERT_EQ(d.boundary_names()[1], "shape.children[0]:x+");
  const auto nodes = d.boundary_nodes(u.spacing, 1);
  for (const auto& n : nodes) {
    ASSERT_NE(n.boundary_id, 2) << n.pos.transpose();
    ASSERT_NE(n.boundary_id, 7) << n.pos.transpose();
    const Vec<3> analytic = box_normal<3>(n.pos, Vec<3>(0, 0, 0), Vec<3>(2, 1, 1));
    ASSERT_GT(n.normal.dot(analytic), std::cos(1.0 * std::numbers::pi / 180))
        << n.pos.transpose() << " normal " << n.normal.transpose();
  }
  expect_unit_outward_normals(d, nodes, u.spacing);
}

TEST(Boundary, Csg3DBoxMinusBallHasSharpJunctionArcs) {
  auto f = parse(R"({"dim":3,"spacing":0.08,"shape":{"type":"difference","children":[
      {"type":"box","min":[-1,-1,-1],"max":[1,1,1]},{"type":"sphere","center":[1,1,1],"radius":0.8}]}})");
  const auto& d = *domain_of<3>(f);
  const auto nodes = d.boundary_nodes(f.spacing, 1);
  auto sd = [](const Vec<3>& p) {
    const double box = std::max({-1 - p.minCoeff(), p.maxCoeff() - 1});
    return std::max(box, 0.8 - (p - Vec<3>(1, 1, 1)).norm());
  };
  for (const auto& n : nodes) ASSERT_NEAR(sd(n.pos), 0.0, 1e-9) << n.pos.transpose();
  expect_unit_outward_normals(d, nodes, f.spacing);
  const auto r = nearest_over_h(nodes, f.spacing);
  EXPECT_GE(*std::min_element(r.begin(), r.end()), 0.7);
  // The junction arc on the face z = 1: (1 - 0.8 cos t, 1 - 0.8 sin t, 1). Every point of it has a node
  // within 0.75 h (junction nodes come from front steps crossing it, thinned to ~h).
  double worst = 0;
  for (int k = 0; k <= 50; ++k) {
    const double t = 0.5 * std::numbers::pi * k / 50;
    const Vec<3> q(1 - 0.8 * std::cos(t), 1 - 0.8 * std::sin(t), 1);
    double best = 1e9;
    for (const auto& n : nodes) best = std::min(best, (n.pos - q).norm());
    worst = std::max(worst, best);
  }
  EXPECT_LT(worst, 0.75 * 0.08) << "farthest arc point from a node: " << worst / 0.08 << " h";
}

TEST(Boundary, TransformedShapesKeepUnitOutwardNormals) {
  auto f = parse(R"({"dim":3,"spacing":0.06,"shape":{"type":"rotate","axis":[1,2,3],"angle":33,"child":
      {"type":"scale","factor":[1,0.5,2],"child":{"type":"sphere","center":[0,0,0],"radius":0.5}}}})");
  const auto& d = *domain_of<3>(f);
  const auto nodes = d.boundary_nodes(f.spacing, 1);
  EXPECT_GT(nodes.size(), 300u);
  expect_unit_outward_normals(d, nodes, f.spacing);
  const auto r = nearest_over_h(nodes, f.spacing);
  EXPECT_GE(*std::min_element(r.begin(), r.end()), 0.95);  // the fill measures the ellipsoid's own metric
}

TEST(Boundary, DeterministicForASeed) {
  auto f = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"sphere","center":[0,0,0],"radius":1}})");
  const auto& d = *domain_of<3>(f);
  const auto a = d.boundary_nodes(f.spacing, 5), b = d.boundary_nodes(f.spacing, 5), c = d.boundary_nodes(f.spacing, 6);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(a[i].pos, b[i].pos);
  bool differs = a.size() != c.size();
  for (std::size_t i = 0; !differs && i < a.size(); ++i) differs = a[i].pos != c[i].pos;
  EXPECT_TRUE(differs);
}

// The six faces of a cube chart are filled on up to six threads, each without the others' nodes: the
// nodes must not depend on the thread count, and two faces must still keep the spacing across an edge.
TEST(Boundary, CubeChartFacesDoNotDependOnThreadsAndKeepTheSpacingAcrossEdges) {
  for (const char* shape : {R"({"type":"box","min":[0,0,0],"max":[1,1,1]})",
                            R"({"type":"sphere","center":[0,0,0],"radius":1})"}) {
    auto f = parse(std::string(R"({"dim":3,"spacing":0.06,"shape":)") + shape + "}");
    const auto& d = *domain_of<3>(f);
    const auto one = d.boundary_nodes(f.spacing, 3, 1);
    for (int threads : {2, 3, 6}) {
      const auto many = d.boundary_nodes(f.spacing, 3, threads);
      ASSERT_EQ(many.size(), one.size()) << shape << " threads " << threads;
      for (std::size_t i = 0; i < one.size(); ++i) ASSERT_EQ(many[i].pos, one[i].pos) << shape << " node " << i;
    }
    const auto r = nearest_over_h(one, f.spacing);
    EXPECT_GE(*std::min_element(r.begin(), r.end()), 0.95) << shape;
  }
}

// The node cap bounds the placement itself: an edge that needs more nodes than the cap is refused
// before its nodes are allocated (a thin domain's edge asked for 2e12), and the nodes placed never
// exceed twice the cap. Without the bound this placed all 4e6 nodes and returned them.
TEST(Boundary, PlacementStopsAtTheNodeCap) {
  auto f = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"box","min":[0,0],"max":[1,1]}})");
  const auto& d = *domain_of<2>(f);
  EXPECT_THROW(d.boundary_nodes(Spacing::constant(1e-6), 1, 1, 1000), StoreFull);
  EXPECT_EQ(d.boundary_nodes(Spacing::constant(0.01), 1, 1, 400).size(), 400u);  // at the cap: placed
  auto f3 = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"ball","center":[0,0,0],"radius":1}})");
  EXPECT_THROW(domain_of<3>(f3)->boundary_nodes(Spacing::constant(1e-3), 1, 2, 1000), StoreFull);
}

// Points found many times over along two circles (as a CSG junction curve's crossings come, in no order
// along it): the kept ones follow each circle just beyond 0.9 h, so no point of the circle is more than
// about half a spacing from one, and no two are closer than 0.9 h; the same for the same points.
TEST(JunctionChains, KeptPointsFollowTheCurveJustBeyondTheirSpacing) {
  const double h = 0.05;
  std::vector<Vec<3>> points;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> angle(0.0, 2 * std::numbers::pi);
  for (int k = 0; k < 6000; ++k) {
    const double a = angle(rng);
    points.push_back(k % 2 ? Vec<3>(std::cos(a), std::sin(a), 0.0) : Vec<3>(3 + 0.5 * std::cos(a), 0.0, 0.5 * std::sin(a)));
  }
  const auto kept = geometry_detail::space_along_chains<3>(points, h, [&](const Vec<3>&) { return h; });
  EXPECT_EQ(kept, (geometry_detail::space_along_chains<3>(points, h, [&](const Vec<3>&) { return h; })));
  for (std::size_t i = 0; i < kept.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) ASSERT_GE((points[kept[i]] - points[kept[j]]).norm(), 0.9 * h);
  std::vector<double> gap;  // from points along the circles to the nearest kept one
  for (int k = 0; k < 4000; ++k) {
    const double a = 2 * std::numbers::pi * k / 4000;
    for (const Vec<3>& p : {Vec<3>(std::cos(a), std::sin(a), 0.0), Vec<3>(3 + 0.5 * std::cos(a), 0.0, 0.5 * std::sin(a))}) {
      double nearest = 1e300;
      for (const std::size_t i : kept) nearest = std::min(nearest, (points[i] - p).norm());
      gap.push_back(nearest);
    }
  }
  std::sort(gap.begin(), gap.end());
  EXPECT_LT(gap[gap.size() * 99 / 100], 0.5 * h);
  EXPECT_LT(gap.back(), 0.95 * h);                  // where a circle's chain closes
  // Circumferences 2 pi and pi: about one point per 0.9 h and a little more.
  EXPECT_GT(kept.size(), static_cast<std::size_t>(3 * std::numbers::pi / h));
  EXPECT_LT(kept.size(), static_cast<std::size_t>(3 * std::numbers::pi / (0.9 * h)) + 3);
}

}  // namespace
}  // namespace nodegen
