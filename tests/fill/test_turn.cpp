// cos_sin_of_turn (include/nodegen/fill/turn.hpp): accurate to the last bits, exact at quarter turns,
// and the same bits in every build.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>

#include "nodegen/fill/turn.hpp"
#include "nodegen/storage/splitmix.hpp"

namespace nodegen::fill_detail {
namespace {

// The angle of the turn t in long double (64-bit significand), for a reference 2^11 times finer.
long double angle_of(std::uint64_t t) {
  return 2.0L * 3.141592653589793238462643383279502884L * static_cast<long double>(t) * 0x1.0p-64L;
}

TEST(Turn, WithinTwoUlpOfTheTrueCosineAndSine) {
  long double worst = 0;
  for (std::uint64_t i = 0; i < 200'000; ++i) {
    // Every table angle exactly, then turns at random.
    const std::uint64_t t = i < 1024 ? i << 54 : mix64(i);
    const CosSin cs = cos_sin_of_turn(t);
    const long double a = angle_of(t);
    worst = std::max({worst, std::fabs(cs.cos - std::cos(a)), std::fabs(cs.sin - std::sin(a))});
  }
  EXPECT_LT(worst, 0x1.0p-51L) << "the largest error is " << static_cast<double>(worst);
}

TEST(Turn, QuarterTurnsAreExact) {
  const CosSin q[4] = {cos_sin_of_turn(0), cos_sin_of_turn(std::uint64_t{1} << 62),
                       cos_sin_of_turn(std::uint64_t{2} << 62), cos_sin_of_turn(std::uint64_t{3} << 62)};
  EXPECT_EQ(q[0].cos, 1.0);
  EXPECT_EQ(q[0].sin, 0.0);
  EXPECT_EQ(q[1].cos, 0.0);
  EXPECT_EQ(q[1].sin, 1.0);
  EXPECT_EQ(q[2].cos, -1.0);
  EXPECT_EQ(q[2].sin, 0.0);
  EXPECT_EQ(q[3].cos, 0.0);
  EXPECT_EQ(q[3].sin, -1.0);
}

TEST(Turn, TurnFractionsAreRoundedDown) {
  EXPECT_EQ(turn_fraction(0, 15), 0u);
  EXPECT_EQ(turn_fraction(1, 4), std::uint64_t{1} << 62);
  EXPECT_EQ(turn_fraction(1, 3), 0x5555555555555555ull);
  EXPECT_EQ(turn_fraction(2, 3), 0xAAAAAAAAAAAAAAAAull);
}

// The bits themselves: a build that fused a * b + c into an FMA, or took its cosines from a library,
// would round differently and place other nodes from the same seed.
TEST(Turn, TheSameBitsInEveryBuild) {
  const CosSin a = cos_sin_of_turn(0x0123456789ABCDEFull);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.cos), 0x3FEFFCCE5A1B2BFDull);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(a.sin), 0x3F9C977D74AC7F9Bull);
  const CosSin b = cos_sin_of_turn(mix64(1));
  EXPECT_EQ(std::bit_cast<std::uint64_t>(b.cos), 0xBFED3DF6808FC350ull);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(b.sin), 0xBFD9FE16A889157Dull);
}

}  // namespace
}  // namespace nodegen::fill_detail
