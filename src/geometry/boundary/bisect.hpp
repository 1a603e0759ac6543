#pragma once
// Bisection to the place where a boundary part stops being on the combined boundary (a junction),
// along a curve's parameter or a patch's front step.
namespace nodegen::geometry_detail {

// Moves from a to b (parameters of any dimension) to where keep() flips; returns the point on the kept
// side of the flip, at ~1e-12 of the segment.
template <class T, class KeepAt>
T bisect(T a, T b, bool keep_a, KeepAt&& keep_at) {
  for (int it = 0; it < 45; ++it) {
    T mid = a + 0.5 * (b - a);
    if (keep_at(mid) == keep_a) a = mid;
    else b = mid;
  }
  return keep_a ? a : b;
}

}  // namespace nodegen::geometry_detail
