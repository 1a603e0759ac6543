// Inside / outside of every primitive, CSG operation and transform against analytic truth, on random
// points of a box around the shape (points within 1e-9 of a boundary are skipped: either answer is right).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/geometry_test_support.hpp"
#include "support/temp_dir.hpp"

namespace nodegen {
namespace {

using test::domain_of;
using test::parse;

// Signed-distance-like truth: negative inside, positive outside; |value| < 1e-9 is "on the boundary".
template <int D>
void expect_matches(const Domain<D>& domain, const std::function<double(const Vec<D>&)>& truth, const Vec<D>& lo,
                    const Vec<D>& hi, int samples = 200000) {
  std::mt19937_64 rng(42);
  int checked = 0, inside = 0;
  for (int k = 0; k < samples; ++k) {
    Vec<D> p;
    for (int i = 0; i < D; ++i) p[i] = std::uniform_real_distribution<double>(lo[i], hi[i])(rng);
    const double t = truth(p);
    if (std::abs(t) < 1e-9) continue;
    ++checked;
    inside += t < 0;
    ASSERT_EQ(domain.contains(p), t < 0) << "at " << p.transpose() << " truth " << t;
  }
  EXPECT_GT(checked, samples * 9 / 10);
  EXPECT_GT(inside, samples / 50);  // the test must see both answers
  EXPECT_LT(inside, checked - samples / 50);
}

double box_sd(const Vec<2>& p, const Vec<2>& lo, const Vec<2>& hi) {
  return std::max({lo[0] - p[0], p[0] - hi[0], lo[1] - p[1], p[1] - hi[1]});
}
double box_sd3(const Vec<3>& p, const Vec<3>& lo, const Vec<3>& hi) {
  return std::max({lo[0] - p[0], p[0] - hi[0], lo[1] - p[1], p[1] - hi[1], lo[2] - p[2], p[2] - hi[2]});
}

TEST(Shapes, Box2DAnd3D) {
  auto f2 = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"box","min":[-1,0.5],"max":[2,3]}})");
  expect_matches<2>(*domain_of<2>(f2), [](const Vec<2>& p) { return box_sd(p, {-1, 0.5}, {2, 3}); }, {-2, 0}, {3, 4});
  auto f3 = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"box","min":[0,0,0],"max":[1,2,3]}})");
  expect_matches<3>(*domain_of<3>(f3), [](const Vec<3>& p) { return box_sd3(p, {0, 0, 0}, {1, 2, 3}); },
                    {-0.5, -0.5, -0.5}, {1.5, 2.5, 3.5});
  EXPECT_NEAR(domain_of<3>(f3)->measure(), 6.0, 1e-9);
  EXPECT_TRUE(domain_of<3>(f3)->bounding_box().hi.isApprox(Vec<3>(1, 2, 3)));
}

TEST(Shapes, DiskAndSphere) {
  auto f2 = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"disk","center":[1,2],"radius":0.5}})");
  expect_matches<2>(*domain_of<2>(f2), [](const Vec<2>& p) { return (p - Vec<2>(1, 2)).norm() - 0.5; }, {0, 1}, {2, 3});
  EXPECT_NEAR(domain_of<2>(f2)->measure(), std::numbers::pi * 0.25, 2e-3);
  auto f3 = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"ball","center":[0,0,1],"radius":2}})");
  expect_matches<3>(*domain_of<3>(f3), [](const Vec<3>& p) { return (p - Vec<3>(0, 0, 1)).norm() - 2; },
                    {-2.5, -2.5, -1.5}, {2.5, 2.5, 3.5});
}

TEST(Shapes, PolygonWithReflexCornerAndHoles) {
  // L shape = [0,2]x[0,2] minus [1,2]x[1,2], with a square hole [0.2,0.6]^2 given clockwise.
  auto f = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon",
      "points":[[0,0],[2,0],[2,1],[1,1],[1,2],[0,2]],
      "holes":[[[0.2,0.2],[0.2,0.6],[0.6,0.6],[0.6,0.2]]]}})");
  auto truth = [](const Vec<2>& p) {
    const double l = std::max(box_sd(p, {0, 0}, {2, 2}), -box_sd(p, {1, 1}, {2, 2}));
    return std::max(l, -box_sd(p, {0.2, 0.2}, {0.6, 0.6}));
  };
  expect_matches<2>(*domain_of<2>(f), truth, {-0.5, -0.5}, {2.5, 2.5});
  EXPECT_NEAR(domain_of<2>(f)->measure(), 3.0 - 0.16, 0.01);
}

TEST(Shapes, PolygonFromPointFile) {
  const test::TempDir dir("shapes");
  std::ofstream(dir / "triangle.txt") << "# a triangle\n0 0\n1, 0\n\n0 1  # last point\n";
  auto f = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":"triangle.txt"}})",
                 dir / "inline.json");
  expect_matches<2>(*domain_of<2>(f), [](const Vec<2>& p) { return std::max({-p[0], -p[1], p[0] + p[1] - 1}); },
                    {-0.2, -0.2}, {1.2, 1.2});
  // As editors write them: a UTF-8 byte order mark, CRLF lines, CR-only lines (classic Mac OS).
  std::ofstream(dir / "bom.txt") << "\xEF\xBB\xBF" << "0 0\r\n1 0\r\n0 1\r\n";
  std::ofstream(dir / "cr.txt") << "0 0\r1 0\r0 1\r";
  for (const char* file : {"bom.txt", "cr.txt"}) {
    auto g = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":")" + std::string(file) + R"("}})",
                   dir / "inline.json");
    EXPECT_NEAR(domain_of<2>(g)->measure(), 0.5, 0.01) << file;
  }
}

TEST(Shapes, UnionIntersectionDifference2D) {
  const std::string a = R"({"type":"disk","center":[0,0],"radius":1})";
  const std::string b = R"({"type":"box","min":[0,-0.5],"max":[2,0.5]})";
  auto sd_a = [](const Vec<2>& p) { return p.norm() - 1; };
  auto sd_b = [](const Vec<2>& p) { return box_sd(p, {0, -0.5}, {2, 0.5}); };
  auto make = [&](const std::string& op) {
    return parse(R"({"dim":2,"spacing":0.1,"shape":{"type":")" + op + R"(","children":[)" + a + "," + b + "]}}");
  };
  const Vec<2> lo(-1.5, -1.5), hi(2.5, 1.5);
  expect_matches<2>(*domain_of<2>(make("union")), [&](const Vec<2>& p) { return std::min(sd_a(p), sd_b(p)); }, lo, hi);
  expect_matches<2>(*domain_of<2>(make("intersection")), [&](const Vec<2>& p) { return std::max(sd_a(p), sd_b(p)); },
                    lo, hi);
  expect_matches<2>(*domain_of<2>(make("difference")), [&](const Vec<2>& p) { return std::max(sd_a(p), -sd_b(p)); },
                    lo, hi);
}

TEST(Shapes, DifferenceWithSeveralSubtrahends3D) {
  auto f = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"difference","children":[
      {"type":"box","min":[-1,-1,-1],"max":[1,1,1]},
      {"type":"sphere","center":[1,1,1],"radius":0.8},
      {"type":"ball","center":[-1,-1,-1],"radius":0.5}]}})");
  auto truth = [](const Vec<3>& p) {
    return std::max({box_sd3(p, {-1, -1, -1}, {1, 1, 1}), 0.8 - (p - Vec<3>(1, 1, 1)).norm(),
                     0.5 - (p - Vec<3>(-1, -1, -1)).norm()});
  };
  expect_matches<3>(*domain_of<3>(f), truth, {-1.2, -1.2, -1.2}, {1.2, 1.2, 1.2});
}

TEST(Shapes, TransformsCompose) {
  // A box [0,2]x[0,1], scaled by (1, 0.5), rotated 90 degrees, then translated by (5, 0):
  // points p with q = R^-1 (p - t) / s in the box.
  auto f = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"translate","offset":[5,0],"child":
      {"type":"rotate","angle":90,"child":{"type":"scale","factor":[1,0.5],"child":
      {"type":"box","min":[0,0],"max":[2,1]}}}}})");
  auto truth = [](const Vec<2>& p) {
    const Vec<2> r(p[1], -(p[0] - 5));  // rotate back by -90 degrees
    return box_sd(Vec<2>(r[0], r[1] / 0.5), {0, 0}, {2, 1});
  };
  expect_matches<2>(*domain_of<2>(f), truth, {3.5, -0.5}, {5.5, 2.5});

  auto f3 = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"rotate","axis":[0,0,2],"angle":45,"child":
      {"type":"box","min":[-1,-0.2,-0.3],"max":[1,0.2,0.3]}}})");
  auto truth3 = [](const Vec<3>& p) {
    const double c = std::cos(std::numbers::pi / 4), s = std::sin(std::numbers::pi / 4);
    const Vec<3> q(c * p[0] + s * p[1], -s * p[0] + c * p[1], p[2]);
    return box_sd3(q, {-1, -0.2, -0.3}, {1, 0.2, 0.3});
  };
  expect_matches<3>(*domain_of<3>(f3), truth3, {-1, -1, -0.5}, {1, 1, 0.5});
}

// Bounding boxes are taken of the leaf under the whole chain of transforms, not of boxes of boxes: 250
// nested 7-degree turns of a 1 x 0.01 box gave a box about 1e11 times too large (its grid then saw no
// inside point and the shape was refused as empty). A turned disk keeps its own box.
TEST(Shapes, NestedTransformsBoundTheLeafItself) {
  std::string shape = R"({"type":"box","min":[0,0],"max":[1,0.01]})";
  for (int i = 0; i < 250; ++i) shape = R"({"type":"rotate","angle":7,"child":)" + shape + "}";
  const auto f = parse(R"({"dim":2,"spacing":0.002,"shape":)" + shape + "}");
  const Box<2> box = domain_of<2>(f)->bounding_box();
  // The box turned by 1750 degrees (310): its corners' box.
  const double a = 1750.0 * std::numbers::pi / 180.0, c = std::cos(a), s = std::sin(a);
  Box<2> truth{Vec<2>::Constant(1e9), Vec<2>::Constant(-1e9)};
  for (const Vec<2>& q : {Vec<2>(0, 0), Vec<2>(1, 0), Vec<2>(0, 0.01), Vec<2>(1, 0.01)}) {
    const Vec<2> w(c * q[0] - s * q[1], s * q[0] + c * q[1]);
    truth.lo = truth.lo.cwiseMin(w);
    truth.hi = truth.hi.cwiseMax(w);
  }
  EXPECT_TRUE(box.lo.isApprox(truth.lo, 1e-9) && box.hi.isApprox(truth.hi, 1e-9))
      << box.lo.transpose() << " " << box.hi.transpose() << " vs " << truth.lo.transpose() << " " << truth.hi.transpose();
  EXPECT_NEAR(domain_of<2>(f)->measure(), 0.01, 0.002);

  const auto disk = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"rotate","angle":30,"child":
      {"type":"disk","center":[0,0],"radius":1}}})");
  EXPECT_TRUE(domain_of<2>(disk)->bounding_box().hi.isApprox(Vec<2>(1, 1), 1e-12));
  // A scale of 1e200 of a scale of 1e-200 is the unit box: Eigen's cofactor inverse of the outer
  // matrix overflowed (its determinant, 1e400) and mapped every point to the origin.
  const auto scales = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"scale","factor":[1e200,1e200],"child":
      {"type":"scale","factor":[1e-200,1e-200],"child":{"type":"box","min":[0,0],"max":[1,1]}}}})");
  EXPECT_NEAR(domain_of<2>(scales)->measure(), 1.0, 1e-9);
  EXPECT_TRUE(domain_of<2>(scales)->contains(Vec<2>(0.5, 0.5)));
  // An axis whose norm underflows is still an axis (refused as zero before).
  const auto tiny = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"rotate","angle":90,"axis":[1e-300,0,0],"child":
      {"type":"box","min":[0,0,0],"max":[1,2,3]}}})");
  EXPECT_TRUE(domain_of<3>(tiny)->bounding_box().lo.isApprox(Vec<3>(0, -3, 0), 1e-12))
      << domain_of<3>(tiny)->bounding_box().lo.transpose();
}

// Shapes that fill a sliver of their bounding box, missed by the grid over that box, are measured over
// their leaves' boxes instead (they were refused as empty).
TEST(Shapes, ShapesMuchSmallerThanTheirBoxAreMeasured) {
  const auto disks = parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"union","children":[
      {"type":"disk","center":[0,0],"radius":1},{"type":"disk","center":[10000,0],"radius":1}]}})");
  EXPECT_NEAR(domain_of<2>(disks)->measure(), 2 * std::numbers::pi, 0.05);
  const auto needle = parse(R"({"dim":2,"spacing":0.05,"shape":{"type":"union","children":[
      {"type":"box","min":[0,0],"max":[1,1]},{"type":"box","min":[0.5,0.4905],"max":[10000,0.4935]}]}})");
  EXPECT_NEAR(domain_of<2>(needle)->measure(), 1 + 0.003 * 9999.5, 0.1);  // between the grid's rows
  const auto balls = parse(R"({"dim":3,"spacing":0.1,"shape":{"type":"union","children":[
      {"type":"ball","center":[0,0,0],"radius":1},{"type":"ball","center":[0,0,5000],"radius":1}]}})");
  EXPECT_NEAR(domain_of<3>(balls)->measure(), 8 * std::numbers::pi / 3, 0.1);
}

// Unions and differences of more than 16 children answer through a box hierarchy over the children:
// 200 disks (some transformed, some overlapping) in a union, and subtracted from a box, against the
// answer of asking every disk.
TEST(Shapes, ManyChildrenAnswerLikeAskingEachOne) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> at(-1.0, 1.0), size(0.02, 0.15);
  std::vector<std::pair<Vec<2>, double>> disks;
  std::string kids;
  for (int i = 0; i < 200; ++i) {
    const Vec<2> c(at(rng), at(rng));
    const double r = size(rng);
    disks.emplace_back(c, r);
    const std::string disk = R"({"type": "disk", "center": [0, 0], "radius": )" + std::to_string(r) + "}";
    kids += (i ? ", " : "") + std::string(R"({"type": "translate", "offset": [)") + std::to_string(c[0]) + ", " +
            std::to_string(c[1]) + "], \"child\": " + disk + "}";
    disks.back().first = Vec<2>(std::stod(std::to_string(c[0])), std::stod(std::to_string(c[1])));
    disks.back().second = std::stod(std::to_string(r));
  }
  auto in_some = [&](const Vec<2>& p) {
    double d = 1e9;
    for (const auto& [c, r] : disks) d = std::min(d, (p - c).norm() - r);
    return d;
  };
  const DomainFile u = parse(R"({"dim": 2, "spacing": 0.05, "shape": {"type": "union", "children": [)" + kids + "]}}");
  expect_matches<2>(*domain_of<2>(u), in_some, {-1.2, -1.2}, {1.2, 1.2}, 100000);
  const DomainFile d = parse(R"({"dim": 2, "spacing": 0.05, "shape": {"type": "difference", "children": [)"
                             R"({"type": "box", "min": [-1, -1], "max": [1, 1]}, )" + kids + "]}}");
  expect_matches<2>(*domain_of<2>(d), [&](const Vec<2>& p) { return std::max(box_sd(p, {-1, -1}, {1, 1}), -in_some(p)); },
                    {-1.2, -1.2}, {1.2, 1.2}, 100000);
}

}  // namespace
}  // namespace nodegen
