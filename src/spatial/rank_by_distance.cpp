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
  for (std::size_t a = 0; a < n; ++a) {
    const double da = d2[a], ia = id[a];
    std::uint32_t before = 0;
    for (std::size_t b = 0; b < n; ++b) before += (d2[b] < da) | ((d2[b] == da) & (id[b] < ia));
    places[a] = before;
  }
}

}  // namespace nodegen::spatial_detail
