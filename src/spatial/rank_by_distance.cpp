// rank_by_distance (rank_by_distance.hpp): every pair compared, counted without branches.
//
// Why not a selection (nth_element, then a sort): for the score of points a support's cut keeps, the
// selection's comparisons are data-dependent branches the CPU mispredicts about half the time; the
// counts here are compares and adds the compiler vectorises, in one clone per instruction set
// (target_clones.hpp). The counts are integers, so any order of summing gives the same places.
#include "spatial/rank_by_distance.hpp"

#include "nodegen/spatial/target_clones.hpp"

namespace nodegen::spatial_detail {

NODEGEN_CLONES void rank_by_distance(const double* __restrict d2, const double* __restrict id, std::size_t n,
                                     std::uint32_t* __restrict places) {
  // Each point b adds one to the place of every point it comes before: the inner loop runs across the
  // places, eight a step (the padding is never a b, and its own places are not read), with no sum
  // across a vector's lanes and no scalar tail.
  const std::size_t padded = rank_padded(n);
  for (std::size_t a = 0; a < padded; ++a) places[a] = 0;
  for (std::size_t b = 0; b < n; ++b) {
    const double db = d2[b], ib = id[b];
    for (std::size_t a0 = 0; a0 < padded; a0 += kRankStep)
      for (std::size_t a = a0; a < a0 + kRankStep; ++a) places[a] += (db < d2[a]) | ((db == d2[a]) & (ib < id[a]));
  }
}

}  // namespace nodegen::spatial_detail
