#pragma once
// The fill's parameters a domain file sets ("fill": candidates, seed, max_nodes; docs/domain-format.md).
#include <cstddef>
#include <cstdint>

namespace nodegen {

struct FillParams {
  // The largest node cap: the output indexes nodes with int32 (bmap, as Medusa reads it), so a larger
  // cap could only fail when writing, after the whole fill.
  static constexpr std::size_t kMaxNodeCap = 2'147'483'647;
  // The largest seed: it is stored as a signed 64-bit attribute of the output.
  static constexpr std::uint64_t kMaxSeed = 9'223'372'036'854'775'807ull;

  int candidates = 15;                 // candidates per expanded node: 15 in 2D, 65 in 3D unless the file says
  std::uint64_t seed = 1;              // random seed for boundary and interior placement
  std::size_t max_nodes = 100'000'000; // node cap; the loader refuses spacings that would clearly exceed it

  static FillParams defaults_for(int dim) {
    FillParams p;
    p.candidates = dim == 2 ? 15 : 65;
    return p;
  }
};

}  // namespace nodegen
