// Spacing: constants never touch the parser, expressions evaluate like the formula, evaluators are
// independent copies, a team gets one each, bad expressions are refused with muparser's reason.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "nodegen/geometry/spacing.hpp"
#include "nodegen/parallel/thread_team.hpp"

namespace nodegen {
namespace {

TEST(Spacing, ConstantIsTheSameEverywhere) {
  const Spacing s = Spacing::constant(0.25);
  EXPECT_TRUE(s.is_constant());
  EXPECT_DOUBLE_EQ(s.constant_value(), 0.25);
  auto h = s.evaluator();
  EXPECT_DOUBLE_EQ(h(Vec<2>(0.1, 7.0)), 0.25);
  EXPECT_DOUBLE_EQ(h(Vec<3>(-3.0, 2.0, 1e9)), 0.25);
  EXPECT_EQ(s.describe(), "0.25");
}

TEST(Spacing, ExpressionMatchesTheFormulaIn2DAnd3D) {
  const Spacing s = Spacing::expression("0.002 + 0.02*sqrt((x-0.5)^2+y^2) + 0.1*z");
  EXPECT_FALSE(s.is_constant());
  EXPECT_EQ(s.describe(), "0.002 + 0.02*sqrt((x-0.5)^2+y^2) + 0.1*z");
  auto h = s.evaluator();
  for (double x : {-1.0, 0.0, 0.5, 0.73})
    for (double y : {-0.3, 0.0, 0.9}) {
      const double expected = 0.002 + 0.02 * std::sqrt((x - 0.5) * (x - 0.5) + y * y);
      EXPECT_NEAR(h(Vec<2>(x, y)), expected, 1e-15);                      // z = 0 in 2D
      EXPECT_NEAR(h(Vec<3>(x, y, 2.0)), expected + 0.2, 1e-14);
    }
}

TEST(Spacing, EvaluatorCopiesAreIndependentAndMovesKeepWorking) {
  const Spacing s = Spacing::expression("1 + x + 10*y");
  auto a = s.evaluator();
  auto b = a;  // fresh parser: its bound variables are its own
  EXPECT_DOUBLE_EQ(a(1.0, 0.0), 2.0);
  EXPECT_DOUBLE_EQ(b(0.0, 1.0), 11.0);
  EXPECT_DOUBLE_EQ(a(1.0, 0.0), 2.0);
  auto moved = std::move(b);
  EXPECT_DOUBLE_EQ(moved(2.0, 2.0), 23.0);
  a = moved;
  EXPECT_DOUBLE_EQ(a(0.0, 0.0), 1.0);
}

// A team's evaluators: one per member, each working on its own (used at once, as the members use
// them), the expression's and the constant's alike.
TEST(Spacing, EvaluatorsForATeamOneEachAllWorkingAtOnce) {
  const Spacing s = Spacing::expression("1 + x + 10*y");
  for (int threads : {1, 2, 5}) {
    auto hs = s.evaluators(threads);
    ASSERT_EQ(hs.size(), static_cast<std::size_t>(threads));
    std::vector<double> got(static_cast<std::size_t>(threads));
    run_team(threads, [&](int t, int) {
      double sum = 0;
      for (int k = 0; k < 1000; ++k) sum += hs[static_cast<std::size_t>(t)](double(t), double(k));
      got[static_cast<std::size_t>(t)] = sum;
    });
    for (int t = 0; t < threads; ++t)
      EXPECT_DOUBLE_EQ(got[static_cast<std::size_t>(t)], 1000.0 * (1 + t) + 10.0 * 499500);
  }
  const auto constant = Spacing::constant(0.5).evaluators(3);
  ASSERT_EQ(constant.size(), 3u);
  for (const auto& h : constant) EXPECT_DOUBLE_EQ(h(Vec<2>(3.0, 4.0)), 0.5);
}

TEST(Spacing, BadExpressionsAreRefusedWithTheReason) {
  EXPECT_THROW(Spacing::expression("0.01 +"), std::invalid_argument);
  EXPECT_THROW(Spacing::expression("0.01 * w"), std::invalid_argument);  // unknown variable
  EXPECT_THROW(Spacing::expression("   "), std::invalid_argument);
  // Accepted by muparser, but typos as a spacing: several values, an assignment to a coordinate.
  EXPECT_THROW(Spacing::expression("0.1, 0.05"), std::invalid_argument);
  EXPECT_THROW(Spacing::expression("x = 0.05"), std::invalid_argument);
  EXPECT_THROW(Spacing::expression("0.01 + (y = 0.5)"), std::invalid_argument);
  EXPECT_NO_THROW(Spacing::expression("x == 0.5 ? 0.01 : 0.02"));
  try {
    Spacing::expression("sqrt(x");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("sqrt(x"), std::string::npos) << e.what();
  }
}

TEST(Spacing, DefaultIsUnitSpacing) {
  const Spacing s;
  EXPECT_TRUE(s.is_constant());
  EXPECT_DOUBLE_EQ(s.evaluator()(Vec<2>(3, 4)), 1.0);
}

}  // namespace
}  // namespace nodegen
