// Spacing from samples (geometry/spacing_samples.hpp): exact at every sample; linear functions
// reproduced inside the samples' hull in 2D and 3D (inside cells, on their edges and faces, and over
// a degenerate hull); outside the hull within the range of the 2d nearest samples' values; one sample
// per position with the least value; the options' scale, min and max; a value that depends on the
// point alone, whichever walk found it; bad samples refused naming the first bad one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "nodegen/geometry/spacing_samples.hpp"
#include "support/sample_file_support.hpp"

namespace nodegen {
namespace {

using test::SampleSet;

// Random samples in [0, 1]^dim (the corners of the cube included, so the hull is the cube), each value
// f at its position.
SampleSet random_samples(int dim, int n, unsigned seed, double (*f)(double, double, double)) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  SampleSet s;
  s.dim = dim;
  for (int c = 0; c < (1 << dim); ++c)
    for (int k = 0; k < dim; ++k) s.positions.push_back((c >> k) & 1 ? 1.0 : 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < dim; ++k) s.positions.push_back(u(rng));
  const std::size_t count = s.positions.size() / static_cast<std::size_t>(dim);
  for (std::size_t i = 0; i < count; ++i) {
    const double* p = &s.positions[i * static_cast<std::size_t>(dim)];
    s.values.push_back(f(p[0], p[1], dim == 3 ? p[2] : 0.0));
  }
  return s;
}

Spacing spacing_of(const SampleSet& s, const SampleSpacingOptions& options = {}) {
  return sample_spacing(s.dim, s.positions, s.values, options);
}

double h_at(Spacing::Evaluator& h, const SampleSet& s, std::size_t i) {
  const double* p = &s.positions[i * static_cast<std::size_t>(s.dim)];
  return h(p[0], p[1], s.dim == 3 ? p[2] : 0.0);
}

double linear2(double x, double y, double) { return 0.3 + 0.7 * x - 0.2 * y; }
double linear3(double x, double y, double z) { return 0.5 + 0.3 * x - 0.1 * y + 0.25 * z; }
double wavy(double x, double y, double z) { return 0.02 + 0.01 * std::sin(9 * x) * std::cos(7 * y) + 0.005 * z; }

TEST(SpacingSamples, ExactAtEverySampleIn2DAnd3D) {
  for (int dim : {2, 3}) {
    SCOPED_TRACE(dim);
    const SampleSet s = random_samples(dim, 500, 11u + static_cast<unsigned>(dim), wavy);
    auto h = spacing_of(s).evaluator();
    for (std::size_t i = 0; i < s.size(); ++i) ASSERT_EQ(h_at(h, s, i), s.values[i]) << "sample " << i;
    // A second pass in reverse order: the walk starts elsewhere, the values do not change.
    for (std::size_t i = s.size(); i-- > 0;) ASSERT_EQ(h_at(h, s, i), s.values[i]) << "sample " << i;
  }
}

// Inside the hull, h of samples of a + bx + cy (+ dz) is that function, to rounding: at random points
// (inside cells) and on a grid's cell edges and faces (the points where the walk meets an edge or a
// face rather than a cell).
TEST(SpacingSamples, LinearFunctionsAreReproducedInsideTheHull) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int dim : {2, 3}) {
    SCOPED_TRACE(dim);
    double (*f)(double, double, double) = dim == 2 ? linear2 : linear3;
    const SampleSet scattered = random_samples(dim, 300, 5, f);
    const SampleSet grid = test::grid_samples(dim, 6, 0.0, 1.0, f);  // cells of 0.2
    for (const SampleSet* s : {&scattered, &grid}) {
      auto h = spacing_of(*s).evaluator();
      for (int k = 0; k < 2000; ++k) {
        const double x = u(rng), y = u(rng), z = dim == 3 ? u(rng) : 0.0;
        ASSERT_NEAR(h(x, y, z), f(x, y, z), 1e-14) << x << " " << y << " " << z;
      }
    }
    auto h = spacing_of(grid).evaluator();
    for (double a : {0.1, 0.3, 0.5, 0.9})      // the middle of a grid edge along each axis, and of faces
      for (double b : {0.0, 0.2, 0.6, 1.0}) {  // grid lines, including the hull's boundary
        ASSERT_NEAR(h(a, b, dim == 3 ? b : 0.0), f(a, b, dim == 3 ? b : 0.0), 1e-14);
        ASSERT_NEAR(h(b, a, dim == 3 ? b : 0.0), f(b, a, dim == 3 ? b : 0.0), 1e-14);
        ASSERT_NEAR(h(a, a, b), f(a, a, b), 1e-14);  // 3D: a face's diagonal; 2D: z is ignored
        if (dim == 3) {
          ASSERT_NEAR(h(a, b, a), f(a, b, a), 1e-14);
        }
      }
  }
}

// A sample just off the hull's edge makes a triangle of height 1e-7 there, as three consecutive nodes
// on a curved boundary do: its weights must not lose their digits with its aspect ratio (inside it,
// and on a facet of the same shape in 3D).
TEST(SpacingSamples, ThinTrianglesInterpolateToRounding) {
  SampleSet s;
  s.dim = 2;
  s.positions = {0, 0, 1, 0, 0.5, 1e-7, 0, 1, 1, 1};
  for (std::size_t i = 0; i < 5; ++i) s.values.push_back(linear2(s.positions[2 * i], s.positions[2 * i + 1], 0));
  auto h = spacing_of(s).evaluator();
  for (double x : {0.3, 0.5, 0.61, 0.9}) ASSERT_NEAR(h(x, 3e-8), linear2(x, 3e-8, 0), 1e-15) << x;
  SampleSet t;  // the same triangle as a facet of the hull of a 3D set
  t.dim = 3;
  t.positions = {0, 0, 0, 1, 0, 0, 0.5, 1e-7, 0, 0.5, 0.5, 1};
  for (std::size_t i = 0; i < 4; ++i) t.values.push_back(linear3(t.positions[3 * i], t.positions[3 * i + 1], t.positions[3 * i + 2]));
  auto g = spacing_of(t).evaluator();
  for (double x : {0.3, 0.5, 0.61}) ASSERT_NEAR(g(x, 3e-8, 0), linear3(x, 3e-8, 0), 1e-15) << x;
}

// Samples of a plane in 3D (a triangulation of dimension 2) and on a line in 2D (dimension 1): linear
// on them, and the nearest samples' weights off them.
TEST(SpacingSamples, DegenerateHullsInterpolateOnThemAndWeighOffThem) {
  SampleSet line;
  line.dim = 2;
  for (int i = 0; i <= 4; ++i) {
    line.positions.insert(line.positions.end(), {0.25 * i, 0.25 * i});
    line.values.push_back(0.1 + 0.1 * i);
  }
  auto h2 = spacing_of(line).evaluator();
  EXPECT_NEAR(h2(0.6, 0.6), 0.1 + 0.1 * 2.4, 1e-14);
  EXPECT_NEAR(h2(0.1, 0.1), 0.1 + 0.1 * 0.4, 1e-14);
  const double off = h2(0.0, 1.0);  // nearest: (0.25,0.25),(0.5,0.5),(0.75,0.75),(0,0) or (1,1)
  EXPECT_GE(off, 0.1);
  EXPECT_LE(off, 0.5);
  const SampleSet plane = test::grid_samples(2, 5, 0.0, 1.0, linear2);
  SampleSet flat;
  flat.dim = 3;
  flat.values = plane.values;
  for (std::size_t i = 0; i < plane.size(); ++i)
    flat.positions.insert(flat.positions.end(), {plane.positions[2 * i], plane.positions[2 * i + 1], 0.5});
  auto h3 = spacing_of(flat).evaluator();
  EXPECT_NEAR(h3(0.33, 0.61, 0.5), linear2(0.33, 0.61, 0), 1e-14);
  EXPECT_NEAR(h3(0.5, 0.125, 0.5), linear2(0.5, 0.125, 0), 1e-14);  // on a grid line
  const double above = h3(0.33, 0.61, 0.9);
  const auto [lo, hi] = std::minmax_element(flat.values.begin(), flat.values.end());
  EXPECT_GE(above, *lo);
  EXPECT_LE(above, *hi);
}

// Outside the hull, h lies within the least and the greatest of the 2d nearest samples' values.
TEST(SpacingSamples, OutsideTheHullWithinTheNearestSamplesValues) {
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-1.5, 2.5);
  for (int dim : {2, 3}) {
    SCOPED_TRACE(dim);
    const SampleSet s = random_samples(dim, 200, 21, wavy);
    auto h = spacing_of(s).evaluator();
    int outside = 0;
    for (int k = 0; k < 3000; ++k) {
      double p[3] = {u(rng), u(rng), dim == 3 ? u(rng) : 0.0};
      bool in_cube = true;
      for (int i = 0; i < dim; ++i) in_cube = in_cube && p[i] >= 0.0 && p[i] <= 1.0;
      if (in_cube) continue;
      ++outside;
      std::vector<std::pair<double, double>> by_distance;  // squared distance, value
      for (std::size_t i = 0; i < s.size(); ++i) {
        double d2 = 0;
        for (int c = 0; c < dim; ++c) d2 += std::pow(p[c] - s.positions[i * static_cast<std::size_t>(dim) + static_cast<std::size_t>(c)], 2);
        by_distance.push_back({d2, s.values[i]});
      }
      std::sort(by_distance.begin(), by_distance.end());
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (int i = 0; i < 2 * dim; ++i) lo = std::min(lo, by_distance[static_cast<std::size_t>(i)].second),
                                        hi = std::max(hi, by_distance[static_cast<std::size_t>(i)].second);
      const double v = h(p[0], p[1], p[2]);
      ASSERT_GE(v, lo * (1 - 1e-15)) << p[0] << " " << p[1] << " " << p[2];
      ASSERT_LE(v, hi * (1 + 1e-15)) << p[0] << " " << p[1] << " " << p[2];
    }
    EXPECT_GT(outside, 1000);
  }
}

TEST(SpacingSamples, SamplesAtOnePositionAreOneWithTheLeastValue) {
  SampleSet s = test::grid_samples(2, 3, 0.0, 1.0, [](double, double, double) { return 0.5; });
  // (0.5, 0.5) twice more, with a larger and a smaller value, before and after the grid's own.
  s.positions.insert(s.positions.begin(), {0.5, 0.5});
  s.values.insert(s.values.begin(), 0.9);
  s.positions.insert(s.positions.end(), {0.5, 0.5});
  s.values.push_back(0.2);
  auto h = spacing_of(s).evaluator();
  EXPECT_EQ(h(0.5, 0.5), 0.2);
  EXPECT_NEAR(h(0.75, 0.5), 0.35, 1e-15);  // halfway to a sample of 0.5
  std::reverse(s.values.begin(), s.values.end());  // the same multiset of values at each position
  std::vector<double> flipped;
  for (std::size_t i = s.size(); i-- > 0;) flipped.insert(flipped.end(), {s.positions[2 * i], s.positions[2 * i + 1]});
  s.positions = flipped;
  auto g = spacing_of(s).evaluator();
  EXPECT_EQ(g(0.5, 0.5), 0.2);
  EXPECT_EQ(g(0.75, 0.5), h(0.75, 0.5));
}

TEST(SpacingSamples, ScaleThenMinAndMaxApplyToEveryValue) {
  const SampleSet s = random_samples(2, 100, 4, linear2);  // values from 0.1 to 1.0
  SampleSpacingOptions scaled;
  scaled.scale = 0.5;
  auto h = spacing_of(s, scaled).evaluator();
  EXPECT_NEAR(h(0.3, 0.4), 0.5 * linear2(0.3, 0.4, 0), 1e-14);
  for (std::size_t i = 0; i < s.size(); ++i) ASSERT_EQ(h_at(h, s, i), 0.5 * s.values[i]);
  SampleSpacingOptions clamped;
  clamped.scale = 2.0;
  clamped.min = 0.5;
  clamped.max = 1.5;
  auto g = spacing_of(s, clamped).evaluator();
  for (std::size_t i = 0; i < s.size(); ++i) ASSERT_EQ(h_at(g, s, i), std::clamp(2.0 * s.values[i], 0.5, 1.5));
  EXPECT_EQ(g(0, 0), 0.6);   // 2 x 0.3
  EXPECT_EQ(g(1, 0), 1.5);   // 2 x 1.0, clamped
  EXPECT_EQ(g(0, 1), 0.5);   // 2 x 0.1, clamped
  const double far = g(-5, -5);  // outside: the nearest samples' values, clamped
  EXPECT_GE(far, 0.5);
  EXPECT_LE(far, 1.5);
}

// h is a function of the point: evaluators that walk the samples in different orders, and a fresh one
// for every point, agree to the bit.
TEST(SpacingSamples, ValueDependsOnThePointAloneNotOnTheWalk) {
  for (int dim : {2, 3}) {
    const SampleSet s = test::grid_samples(dim, 5, 0.0, 1.0, wavy);  // co-circular: ties in the triangulation
    const Spacing spacing = spacing_of(s);
    std::vector<std::array<double, 3>> points;
    for (int i = 0; i <= 16; ++i)
      for (int j = 0; j <= 16; ++j) points.push_back({i / 16.0, j / 16.0, dim == 3 ? (i + j) % 17 / 16.0 : 0.0});
    auto forward = spacing.evaluator(), backward = spacing.evaluator();
    std::vector<double> a, b(points.size());
    for (const auto& p : points) a.push_back(forward(p[0], p[1], p[2]));
    for (std::size_t i = points.size(); i-- > 0;) b[i] = backward(points[i][0], points[i][1], points[i][2]);
    for (std::size_t i = 0; i < points.size(); ++i) {
      auto fresh = spacing.evaluator();
      ASSERT_EQ(a[i], b[i]) << "point " << i;
      ASSERT_EQ(a[i], fresh(points[i][0], points[i][1], points[i][2])) << "point " << i;
    }
  }
}

// A walk starts at the last point found when the next is near it, else at the start grid's cell: many
// samples, points visited in a random order (every walk from the grid) and sorted (walks from the last
// point), on samples and between them, give the same values, the linear function's within rounding.
TEST(SpacingSamples, WalksFromTheGridAndFromTheLastPointAgree) {
  for (int dim : {2, 3}) {
    const SampleSet s = random_samples(dim, dim == 2 ? 20000 : 5000, 11, dim == 2 ? linear2 : linear3);
    const Spacing spacing = spacing_of(s);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    std::vector<std::array<double, 3>> points;
    for (int i = 0; i < 3000; ++i) points.push_back({u(rng), u(rng), dim == 3 ? u(rng) : 0.0});
    for (std::size_t i = 0; i < 500; ++i) {
      const double* p = &s.positions[i * static_cast<std::size_t>(dim)];
      points.push_back({p[0], p[1], dim == 3 ? p[2] : 0.0});
    }
    auto jumping = spacing.evaluator(), walking = spacing.evaluator();
    std::vector<double> a;
    for (const auto& p : points) a.push_back(jumping(p[0], p[1], p[2]));
    std::vector<std::size_t> order(points.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t i, std::size_t j) { return points[i] < points[j]; });
    for (std::size_t i : order) {
      const auto& p = points[i];
      ASSERT_EQ(a[i], walking(p[0], p[1], p[2])) << "point " << i << " in " << dim << "D";
      const double expected = dim == 2 ? linear2(p[0], p[1], 0) : linear3(p[0], p[1], p[2]);
      ASSERT_NEAR(a[i], expected, 1e-12) << "point " << i << " in " << dim << "D";
    }
  }
}

// 3D samples in one plane (a previous 2D run's nodes given to a 3D domain, say): the walks' start
// grid spreads its cells over the plane alone (over all three axes it would need billions of cells).
TEST(SpacingSamples, ThreeDimensionalSamplesInOnePlaneInterpolateOnIt) {
  SampleSet s;
  s.dim = 3;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int i = 0; i < 50000; ++i) {
    const double x = u(rng), y = u(rng);
    s.positions.insert(s.positions.end(), {x, y, 0.0});
    s.values.push_back(linear2(x, y, 0));
  }
  auto h = spacing_of(s).evaluator();
  for (int i = 0; i < 100; ++i) {
    const double x = 0.1 + 0.8 * u(rng), y = 0.1 + 0.8 * u(rng);
    ASSERT_NEAR(h(x, y, 0.0), linear2(x, y, 0), 1e-12);
  }
  EXPECT_EQ(h(s.positions[0], s.positions[1], 0.0), s.values[0]);
}

void expect_refused(int dim, const SampleSet& s, const SampleSpacingOptions& options, const std::string& piece) {
  try {
    sample_spacing(dim, s.positions, s.values, options);
    ADD_FAILURE() << "accepted; expected: " << piece;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(piece), std::string::npos) << e.what();
  }
}

TEST(SpacingSamples, BadSamplesAndOptionsAreRefusedNamingWhatIsWrong) {
  const SampleSet good = test::grid_samples(2, 3, 0.0, 1.0, linear2);
  auto with = [&](auto change) {
    SampleSet s = good;
    change(s);
    return s;
  };
  const SampleSpacingOptions none;
  expect_refused(2, with([](SampleSet& s) { s.values[4] = 0.0; }), none, "sample 4 has the value 0");
  expect_refused(2, with([](SampleSet& s) { s.values[2] = -0.1; }), none, "sample 2 has the value -0.1");
  expect_refused(2, with([](SampleSet& s) { s.values[1] = std::nan(""); }), none, "sample 1 has the value nan");
  expect_refused(2, with([](SampleSet& s) { s.values[1] = HUGE_VAL; }), none, "sample 1 has the value inf");
  expect_refused(2, with([](SampleSet& s) { s.positions[7] = std::nan(""); }), none, "sample 3 has a coordinate that is not finite");
  expect_refused(2, with([](SampleSet& s) { s.values.pop_back(); }), none, "9 positions but 8 values");
  expect_refused(2, with([](SampleSet& s) { s.values.resize(2), s.positions.resize(4); }), none, "2 samples, fewer than the 3");
  expect_refused(3, with([](SampleSet& s) { s.values.resize(3), s.positions.resize(9); }), none, "3 samples, fewer than the 4");
  // Enough samples, but copies of one or two positions: nothing to interpolate on (a query on that
  // point crashed the walk).
  SampleSet copies;
  copies.positions = {0, 0, 0, 0, 0, 0, 1, 1};
  copies.values = {0.05, 0.05, 0.05, 0.05};
  expect_refused(2, copies, none, "4 samples at 2 distinct positions, fewer than the 3");
  copies.positions = std::vector<double>(12, 0.0);
  expect_refused(3, copies, none, "4 samples at 1 distinct positions, fewer than the 4");
  expect_refused(4, with([](SampleSet& s) { s.values.resize(5), s.positions.resize(20); }), none, "2 or 3 coordinates");
  for (double scale : {0.0, -1.0, std::nan("")}) {
    SampleSpacingOptions o;
    o.scale = scale;
    expect_refused(2, good, o, "scale must be positive and finite");
  }
  SampleSpacingOptions inverted;
  inverted.min = 0.5;
  inverted.max = 0.1;
  expect_refused(2, good, inverted, "min and max");
}

}  // namespace
}  // namespace nodegen
