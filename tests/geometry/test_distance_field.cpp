// The distance to boundary parts (geometry/distance_field.hpp, Domain::distance_field): the search
// returns the brute-force least distance to the bit, whatever its hint; each primitive's own measure;
// and, through domains, the distance to a disk's circle, a polygon's rings, a box's faces in 3D and a
// mesh's triangles, by shape name and by part name, under similarities (exact) and an anisotropic scale
// (an ellipse, a spheroid: within a bound of the tessellation), and as a spacing's dist("NAME").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "nodegen/geometry/distance_field.hpp"
#include "support/geometry_test_support.hpp"
#include "support/mesh_test_shapes.hpp"
#include "support/temp_dir.hpp"

namespace nodegen {
namespace {

using Primitive = DistanceField::Primitive;
using V3 = Eigen::Vector3d;

double brute_force(const std::vector<Primitive>& all, const V3& p) {
  double best = std::numeric_limits<double>::infinity();
  for (const Primitive& q : all) best = std::min(best, DistanceField::distance_to(q, p));
  return best;
}

// Segments, triangles and rounds scattered over [-1, 1]^3 at several sizes (small ones in clusters).
std::vector<Primitive> random_primitives(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto point = [&] { return V3(u(rng), u(rng), u(rng)); };
  std::vector<Primitive> out;
  for (int i = 0; i < n; ++i) {
    Primitive q;
    const V3 at = point();
    const double size = std::pow(10.0, -3.0 * (u(rng) + 1.0) / 2.0);  // 1e-3 to 1
    q.kind = static_cast<Primitive::Kind>(i % 3);
    q.a = at;
    q.b = at + size * point();
    q.c = at + size * point();
    q.radius = size * std::abs(u(rng));
    out.push_back(q);
  }
  return out;
}

TEST(DistanceField, TheLeastDistanceToTheBitAsABruteForceFindsIt) {
  for (int n : {1, 5, 3000}) {
    const std::vector<Primitive> all = random_primitives(n, 17u + static_cast<unsigned>(n));
    const DistanceField field(all);
    EXPECT_EQ(field.size(), all.size());
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(-1.5, 1.5);
    DistanceField::Hint walking;  // carried from one query to the next, as an evaluator does
    for (int k = 0; k < 4000; ++k) {
      const double scale = k % 4 == 0 ? 30.0 : 1.0;  // also far from every primitive
      const V3 p = scale * V3(u(rng), u(rng), u(rng));
      DistanceField::Hint fresh;
      const double expected = brute_force(all, p);
      ASSERT_EQ(field.distance(p.x(), p.y(), p.z(), walking), expected) << "n " << n << ", query " << k;
      ASSERT_EQ(field.distance(p.x(), p.y(), p.z(), fresh), expected) << "n " << n << ", query " << k;
    }
  }
}

// Points equidistant, to rounding, from thousands of primitives (the centre of a 4096-gon, of a sphere
// of triangles): the least computed distance is the same from any hint, even one out of range.
TEST(DistanceField, TheHintDoesNotChangeTheResult) {
  std::vector<Primitive> polygon;
  for (int k = 0; k < 4096; ++k) {
    Primitive q;
    const double t0 = 2 * std::numbers::pi * k / 4096, t1 = 2 * std::numbers::pi * (k + 1) / 4096;
    q.a = V3(0.3 + std::cos(t0), -0.2 + std::sin(t0), 0.0);
    q.b = V3(0.3 + std::cos(t1), -0.2 + std::sin(t1), 0.0);
    polygon.push_back(q);
  }
  std::vector<Primitive> sphere;
  const test::TriMesh m = test::icosphere(4);
  for (auto [a, b, c] : m.f) sphere.push_back({Primitive::Kind::triangle, m.v[a], m.v[b], m.v[c], 0.0});
  std::mt19937_64 rng(8);
  for (const auto* all : {&polygon, &sphere}) {
    const DistanceField field(*all);
    const V3 centre = all == &polygon ? V3(0.3, -0.2, 0.0) : V3::Zero();
    std::vector<V3> points = {centre, centre + V3(1e-12, 0, 0), centre + V3(0.01, -0.02, 0), centre + V3(3, 4, 0)};
    std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(all->size() - 1));
    for (const V3& p : points) {
      DistanceField::Hint first;
      const double expected = field.distance(p.x(), p.y(), p.z(), first);
      EXPECT_EQ(expected, brute_force(*all, p));
      for (int k = 0; k < 200; ++k) {
        // Leaves that are not the hierarchy's, and out of range, as well as the ones a query leaves.
        const std::uint32_t at = pick(rng);
        DistanceField::Hint hint{k == 0 ? std::numeric_limits<std::uint32_t>::max() - 1 : at, 1 + at % 5};
        if (k % 2 == 1) field.distance(0.0, 0.0, 0.0, hint);
        ASSERT_EQ(field.distance(p.x(), p.y(), p.z(), hint), expected) << "hint " << hint.first;
        ASSERT_LE(hint.first + hint.count, all->size());
      }
    }
  }
}

// A point on the part, to rounding (a sample on a triangle, a corner), is at 0 from any hint: the search
// stops at the first primitive within 1e-12 of the coordinates' scale.
TEST(DistanceField, OnThePartTheDistanceIsZeroFromAnyHint) {
  std::vector<Primitive> sphere;
  const test::TriMesh m = test::icosphere(4);
  for (auto [a, b, c] : m.f) sphere.push_back({Primitive::Kind::triangle, m.v[a], m.v[b], m.v[c], 0.0});
  const DistanceField field(sphere);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::uniform_int_distribution<std::uint32_t> pick(0, static_cast<std::uint32_t>(sphere.size() - 1));
  for (int k = 0; k < 500; ++k) {
    const Primitive& t = sphere[pick(rng)];
    double s = u(rng), r = u(rng);
    if (s + r > 1) s = 1 - s, r = 1 - r;
    const V3 p = k % 10 == 0 ? t.b : V3(t.a + s * (t.b - t.a) + r * (t.c - t.a));
    ASSERT_LE(brute_force(sphere, p), 1e-15);
    DistanceField::Hint fresh, other{pick(rng), 3};
    EXPECT_EQ(field.distance(p.x(), p.y(), p.z(), fresh), 0.0);
    EXPECT_EQ(field.distance(p.x(), p.y(), p.z(), other), 0.0);
  }
  // Off the part by more than the slack, the distance is the primitives' own.
  const V3 off = 1.0000001 * sphere[7].a;
  DistanceField::Hint hint;
  EXPECT_EQ(field.distance(off.x(), off.y(), off.z(), hint), brute_force(sphere, off));
  EXPECT_GT(brute_force(sphere, off), 0.0);
}

TEST(DistanceField, EachPrimitivesOwnMeasure) {
  const Primitive segment{Primitive::Kind::segment, V3(0, 0, 0), V3(1, 0, 0), V3::Zero(), 0.0};
  EXPECT_EQ(DistanceField::distance_to(segment, V3(0.5, 2, 0)), 2.0);
  EXPECT_EQ(DistanceField::distance_to(segment, V3(-3, 4, 0)), 5.0);
  EXPECT_EQ(DistanceField::distance_to(segment, V3(4, 0, 4)), 5.0);
  const Primitive point{Primitive::Kind::segment, V3(1, 1, 1), V3(1, 1, 1), V3::Zero(), 0.0};  // degenerate
  EXPECT_EQ(DistanceField::distance_to(point, V3(1, 4, 5)), 5.0);
  const Primitive triangle{Primitive::Kind::triangle, V3(0, 0, 0), V3(1, 0, 0), V3(0, 1, 0), 0.0};
  EXPECT_EQ(DistanceField::distance_to(triangle, V3(0.2, 0.2, 3)), 3.0);   // above the face
  EXPECT_EQ(DistanceField::distance_to(triangle, V3(2, 0, 0)), 1.0);       // a vertex's region
  EXPECT_EQ(DistanceField::distance_to(triangle, V3(0.5, -2, 0)), 2.0);    // an edge's region
  EXPECT_NEAR(DistanceField::distance_to(triangle, V3(1, 1, 0)), std::sqrt(0.5), 1e-16);  // the hypotenuse's
  const Primitive round{Primitive::Kind::round, V3(0, 0, 0), V3::Zero(), V3::Zero(), 1.0};
  EXPECT_EQ(DistanceField::distance_to(round, V3(3, 4, 0)), 4.0);
  EXPECT_EQ(DistanceField::distance_to(round, V3(0, 0.25, 0)), 0.75);
  EXPECT_THROW(DistanceField(std::vector<Primitive>{}), std::invalid_argument);
}

// A domain's distance fields by name, each built once; a fresh hint per query.
template <int D>
class PartDistances {
 public:
  explicit PartDistances(const DomainFile& f) : domain_(test::domain_of<D>(f)) {}
  double operator()(const std::string& name, const V3& p) {
    auto it = fields_.find(name);
    if (it == fields_.end()) it = fields_.emplace(name, domain_->distance_field(name)).first;
    DistanceField::Hint hint;
    return it->second->distance(p.x(), p.y(), p.z(), hint);
  }

 private:
  std::shared_ptr<const Domain<D>> domain_;
  std::map<std::string, std::shared_ptr<const DistanceField>> fields_;
};

std::vector<V3> random_points(int n, double lo, double hi, bool planar, unsigned seed = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<V3> out;
  for (int i = 0; i < n; ++i) out.push_back(V3(u(rng), u(rng), planar ? 0.0 : u(rng)));
  return out;
}

TEST(DomainDistance, ToADisksCircleExactlyAndAsASpacing) {
  const DomainFile f = test::parse(R"j({"dim": 2, "spacing": "0.01 + 0.5*dist(\"wheel\")", "shape":
      {"type": "disk", "name": "wheel", "center": [0.3, -0.2], "radius": 0.7}})j");
  PartDistances<2> dist(f);
  EXPECT_EQ(f.spacing.distance_parts(), std::vector<std::string>{"wheel"});
  auto h = f.spacing.evaluator();
  for (const V3& p : random_points(2000, -2, 2, true)) {
    const double expected = std::abs((p - V3(0.3, -0.2, 0)).norm() - 0.7);
    ASSERT_NEAR(dist("wheel", p), expected, 1e-15);
    ASSERT_EQ(dist("wheel:surface", p), dist("wheel", p));
    ASSERT_NEAR(h(p.x(), p.y()), 0.01 + 0.5 * expected, 1e-15);
  }
  EXPECT_EQ(dist("wheel", V3(0.3, -0.2, 0)), 0.7);
  EXPECT_EQ(dist("wheel", V3(1.0, -0.2, 0)), 0.0);
}

double to_segment(const V3& p, const V3& a, const V3& b) {
  const double t = std::clamp((p - a).dot(b - a) / (b - a).squaredNorm(), 0.0, 1.0);
  return (p - (a + t * (b - a))).norm();
}

double to_ring(const V3& p, const std::vector<V3>& ring) {
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < ring.size(); ++i) best = std::min(best, to_segment(p, ring[i], ring[(i + 1) % ring.size()]));
  return best;
}

// A shape's name stands for all its parts, a part's for itself; a name is not a prefix of another's
// ("hole" is not "hole_left").
TEST(DomainDistance, ToAPolygonsRingsByShapeAndByPartName) {
  const DomainFile f = test::parse(R"({"dim": 2, "spacing": 0.05, "shape": {"type": "difference", "children": [
      {"type": "polygon", "name": "L", "points": [[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2]],
       "holes": [[[0.2, 0.2], [0.6, 0.2], [0.4, 0.5]]]},
      {"type": "disk", "name": "hole", "center": [1.5, 0.5], "radius": 0.2},
      {"type": "disk", "name": "hole_left", "center": [0.5, 1.5], "radius": 0.2}]}})");
  PartDistances<2> dist(f);
  const std::vector<V3> outer = {V3(0, 0, 0), V3(2, 0, 0), V3(2, 1, 0), V3(1, 1, 0), V3(1, 2, 0), V3(0, 2, 0)};
  const std::vector<V3> inner = {V3(0.2, 0.2, 0), V3(0.6, 0.2, 0), V3(0.4, 0.5, 0)};
  for (const V3& p : random_points(1500, -0.5, 2.5, true)) {
    ASSERT_NEAR(dist("L:outer", p), to_ring(p, outer), 1e-15);
    ASSERT_NEAR(dist("L:hole1", p), to_ring(p, inner), 1e-15);
    ASSERT_NEAR(dist("L", p), std::min(to_ring(p, outer), to_ring(p, inner)), 1e-15);
    ASSERT_NEAR(dist("hole", p), std::abs((p - V3(1.5, 0.5, 0)).norm() - 0.2), 1e-15);
  }
  try {
    test::domain_of<2>(f)->distance_field("nope");
    ADD_FAILURE() << "an unknown name was accepted";
  } catch (const std::invalid_argument& e) {
    for (const char* piece : {"\"nope\"", "L:outer", "L:hole1", "hole:surface", "hole_left:surface"})
      EXPECT_NE(std::string(e.what()).find(piece), std::string::npos) << e.what();
  }
  EXPECT_THROW(test::domain_of<2>(f)->distance_field("L:"), std::invalid_argument);
  EXPECT_THROW(test::domain_of<2>(f)->distance_field("hol"), std::invalid_argument);
}

TEST(DomainDistance, ToABoxsFacesIn3D) {
  const DomainFile f = test::parse(R"({"dim": 3, "spacing": 0.1, "shape":
      {"type": "box", "name": "b", "min": [0, 0, 0], "max": [1, 2, 3]}})");
  PartDistances<3> dist(f);
  const V3 lo(0, 0, 0), hi(1, 2, 3);
  for (const V3& p : random_points(2000, -1, 4, false)) {
    const V3 outside = (lo - p).cwiseMax(p - hi).cwiseMax(0.0);
    const double inside = std::min({p.x(), 1 - p.x(), p.y(), 2 - p.y(), p.z(), 3 - p.z()});
    ASSERT_NEAR(dist("b", p), outside.squaredNorm() > 0 ? outside.norm() : inside, 1e-14);
    // Face x- is the rectangle x = 0, y in [0, 2], z in [0, 3].
    const V3 on_face(0.0, std::clamp(p.y(), 0.0, 2.0), std::clamp(p.z(), 0.0, 3.0));
    ASSERT_NEAR(dist("b:x-", p), (p - on_face).norm(), 1e-14);
  }
}

// Ericson's closest point on a triangle, written out apart from the field's.
double to_triangle(const V3& p, const V3& a, const V3& b, const V3& c) {
  const V3 n = (b - a).cross(c - a).normalized();
  const V3 q = p - n.dot(p - a) * n;  // onto the plane
  const bool in = (b - a).cross(q - a).dot(n) >= 0 && (c - b).cross(q - b).dot(n) >= 0 && (a - c).cross(q - c).dot(n) >= 0;
  if (in) return std::abs(n.dot(p - a));
  return std::min({to_segment(p, a, b), to_segment(p, b, c), to_segment(p, c, a)});
}

TEST(DomainDistance, ToAMeshsTrianglesToRounding) {
  const test::TempDir dir("distance");
  const test::TriMesh m = test::icosphere(2);
  {
    std::ofstream out(dir / "ball.off");
    out.precision(17);
    out << "OFF\n" << m.v.size() << " " << m.f.size() << " 0\n";
    for (const auto& v : m.v) out << v.transpose() << "\n";
    for (auto [a, b, c] : m.f) out << "3 " << a << " " << b << " " << c << "\n";
  }
  const DomainFile f = test::parse(R"({"dim": 3, "spacing": 0.2, "shape": {"type": "mesh", "name": "ball", "file": "ball.off"}})",
                                   dir / "mesh.json");
  PartDistances<3> dist(f);
  for (const V3& p : random_points(500, -1.5, 1.5, false)) {
    double expected = std::numeric_limits<double>::infinity();
    for (auto [a, b, c] : m.f) expected = std::min(expected, to_triangle(p, m.v[a], m.v[b], m.v[c]));
    ASSERT_NEAR(dist("ball", p), expected, 1e-13);
    ASSERT_EQ(dist("ball:surface", p), dist("ball", p));
  }
}

// A disk under translate, rotate and a uniform scale stays a round: exact.
TEST(DomainDistance, SimilaritiesKeepTheRoundExact) {
  const DomainFile f = test::parse(R"({"dim": 2, "spacing": 0.05, "shape": {"type": "translate", "offset": [1, 2],
      "child": {"type": "rotate", "angle": 30, "child": {"type": "scale", "factor": 1.5,
      "child": {"type": "disk", "name": "d", "center": [0.2, 0.1], "radius": 0.5}}}}})");
  PartDistances<2> dist(f);
  const double t = std::numbers::pi / 6;
  const V3 c = V3(1, 2, 0) + 1.5 * V3(0.2 * std::cos(t) - 0.1 * std::sin(t), 0.2 * std::sin(t) + 0.1 * std::cos(t), 0);
  for (const V3& p : random_points(1000, -1, 4, true))
    ASSERT_NEAR(dist("d", p), std::abs((p - c).norm() - 0.75), 1e-14);
  const DomainFile g = test::parse(R"({"dim": 3, "spacing": 0.1, "shape": {"type": "rotate", "axis": [1, 2, 3],
      "angle": 40, "child": {"type": "scale", "factor": 0.5, "child": {"type": "sphere", "name": "s",
      "center": [0, 0, 0], "radius": 2}}}})");
  PartDistances<3> dist_g(g);
  for (const V3& p : random_points(1000, -2, 2, false)) ASSERT_NEAR(dist_g("s", p), std::abs(p.norm() - 1.0), 1e-14);
}

// The distance from (u, v) to the ellipse x^2/a^2 + y^2/b^2 = 1: the ellipse sampled at 4000 angles,
// then the best angle refined by golden sections between its neighbours.
double to_ellipse(double u, double v, double a, double b) {
  auto d = [&](double t) { return std::hypot(u - a * std::cos(t), v - b * std::sin(t)); };
  constexpr int kSamples = 4000;
  const double step = 2 * std::numbers::pi / kSamples;
  int best = 0;
  double best_d = d(0.0);
  for (int k = 1; k < kSamples; ++k)
    if (const double dk = d(step * k); dk < best_d) best = k, best_d = dk;
  double lo = step * (best - 1), hi = step * (best + 1);
  const double g = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 80; ++i) {
    const double x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo);
    if (d(x1) < d(x2)) hi = x2;
    else lo = x1;
  }
  return std::min(best_d, d(0.5 * (lo + hi)));
}

// Under an anisotropic scale the round is tessellated: a disk becomes a polygon of 4096 sides close
// to the ellipse, within 1e-4 of it. A sphere becomes 6 x 64 x 64 x 2 triangles on a cube's chart,
// whose cells span up to 1/32 rad: a triangle's circumradius is up to sqrt(2)/64 and its face lies
// within (sqrt(2)/64)^2 / 2 = 2.4e-4 of the unit sphere, which the scale stretches by up to its largest
// factor (2 here): a spheroid's distance (the ellipse's in the plane through its axis) within 5e-4.
TEST(DomainDistance, AnAnisotropicScaleIsCloseToTheEllipse) {
  const DomainFile f = test::parse(R"({"dim": 2, "spacing": 0.05, "shape": {"type": "scale", "factor": [2, 0.5],
      "child": {"type": "disk", "name": "e", "center": [0, 0], "radius": 1}}})");
  PartDistances<2> dist(f);
  double worst = 0;
  for (const V3& p : random_points(300, -3, 3, true, 4))
    worst = std::max(worst, std::abs(dist("e", p) - to_ellipse(p.x(), p.y(), 2.0, 0.5)));
  EXPECT_LT(worst, 1e-4);
  const DomainFile g = test::parse(R"({"dim": 3, "spacing": 0.1, "shape": {"type": "scale", "factor": [2, 1, 1],
      "child": {"type": "sphere", "name": "s", "center": [0, 0, 0], "radius": 1}}})");
  PartDistances<3> dist_g(g);
  worst = 0;
  for (const V3& p : random_points(300, -3, 3, false, 5))
    worst = std::max(worst, std::abs(dist_g("s", p) - to_ellipse(p.x(), std::hypot(p.y(), p.z()), 2.0, 1.0)));
  EXPECT_LT(worst, 5e-4);
}

}  // namespace
}  // namespace nodegen
