#pragma once
// Counter-based randomness shared by the fill (candidate rotations) and the quality report (sample
// points): a value is a pure function of (seed, index), so results do not depend on which thread drew
// them or in what order.
#include <cstdint>

namespace nodegen {

// SplitMix64 finaliser: a good 64-bit mix, enough to turn (seed, index) into independent uniforms.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [0, 1) from the top 53 bits.
constexpr double unit_uniform(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace nodegen
