#pragma once
// Counter-based randomness shared by the fill (candidate rotations), the quality report (sample points)
// and the mesh surface samples: a value is a pure function of (seed, index), so results do not depend on
// which thread drew them or in what order. In the lowest layer so that every layer can use it.
#include <cstdint>

namespace nodegen {

// SplitMix64's increment: the k-th value of a stream seeded s is mix64(s + k * kSplitMixGamma).
inline constexpr std::uint64_t kSplitMixGamma = 0x9E3779B97F4A7C15ull;

// SplitMix64's output function alone: a good 64-bit mix.
constexpr std::uint64_t splitmix_finalize(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// One SplitMix64 step from x: enough to turn (seed, index) into independent uniforms.
constexpr std::uint64_t mix64(std::uint64_t x) { return splitmix_finalize(x + kSplitMixGamma); }

// Uniform in [0, 1) from the top 53 bits.
constexpr double unit_uniform(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace nodegen
