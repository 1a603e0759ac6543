#pragma once
// Coordinates of a k-d tree's points: kept as doubles (Coords::exact), or as 32-bit integers on a
// fixed grid (Coords::grid), half the bytes.
//
// Why a grid: a tree keeps a copy of every point, and in a fill that copy is the largest thing beside
// the node store (a 2D leaf's point is 16 bytes of coordinates plus a few of overhead; bench/RESULTS.md,
// K-d tree). On a grid of 2^32 steps per axis over the domain's box, a step is at most 7e-10 of the
// box's extent (coarser only where the doubles themselves are: a box far from the origin for its
// size), and a point's grid point lies within sqrt(D) / 2 steps of it. The fill refuses spacings finer
// than 2^-22 of the box's extent (geometry/spacing.hpp, least_spacing), so h spans at least ~340 steps
// and a node's grid point lies within 0.3 % of h of it.
//
// What a grid tree is: the tree of its points rounded to the grid. A point is rounded once, when it is
// inserted (round to nearest, a function of the point alone: so the tree's contents do not depend on the
// order points arrive in or on the thread that inserts them); positions are reported decoded,
// centre + step * q, the same double each time. Distances are taken in grid steps from the query point
// rounded by up to 2^-22 of a step (kdtree.hpp, distances2), and the walk prunes a step or two wide of
// each split plane, so every answer is a function of the points and the query alone, whatever the tree's
// shape. The frame is fixed when the tree is made; a point outside it cannot be kept and is refused.
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace nodegen {

static_assert(FLT_EVAL_METHOD == 0, "GridFrame's rounding needs doubles evaluated in double (SSE2, not x87)");

// How a KdTree keeps its points' coordinates (header comment).
enum class Coords : bool { exact = false, grid = true };

// The grid of a Coords::grid tree: coordinate d of a point is centre[d] + step * q with q a 32-bit
// integer; step is a power of two.
template <int D>
struct GridFrame {
  double centre[D] = {};
  double step = 1;
  double inv_step = 1;  // 1 / step, exact: dividing by step is multiplying by it

  // A frame that holds the box [lo, hi] with at least a quarter of its largest extent to spare on each
  // side, with the finest step that does so (at most 7e-10 of that extent) and that every grid point
  // in the frame is a double: step is at least the spacing of doubles at the frame's farthest point
  // (a box far from the origin, 1e9 away for a size of 1, gets the doubles' own resolution there). So
  // decode is exact and encode(decode(q)) == q: a point moved between leaves keeps its grid index.
  static GridFrame around(const double* lo, const double* hi) {
    double extent = 0;
    for (int d = 0; d < D; ++d) {
      const double e = hi[d] - lo[d];
      if (!(e >= 0) || !std::isfinite(e) || !std::isfinite(lo[d]))
        throw std::invalid_argument("GridFrame: the box must have finite bounds with lo <= hi");
      extent = std::fmax(extent, e);
    }
    if (!(extent * 0.75 > 0)) throw std::invalid_argument("GridFrame: the box must have a positive extent");
    GridFrame f;
    // 2^31 steps each side of the centre: more than 3/4 of the extent.
    f.step = std::ldexp(1.0, std::ilogb(extent * 0.75) + 1 - 31);
    if (!std::isnormal(f.step)) throw std::invalid_argument("GridFrame: the box is too small for a grid of 2^32 steps");
    for (int round = 0; round < 4; ++round) {
      double farthest = 0;
      for (int d = 0; d < D; ++d) {
        f.centre[d] = std::nearbyint((0.5 * lo[d] + 0.5 * hi[d]) / f.step) * f.step;
        farthest = std::fmax(farthest, std::fabs(f.centre[d]) + 2147483648.0 * f.step);
      }
      if (!(farthest > 0) || !std::isfinite(farthest))
        throw std::invalid_argument("GridFrame: the box reaches beyond the doubles' range");
      const double ulp = std::ldexp(1.0, std::ilogb(farthest) - 52);
      if (f.step >= ulp) break;
      f.step = ulp;
    }
    if (!std::isfinite(f.step)) throw std::invalid_argument("GridFrame: the box reaches beyond the doubles' range");
    f.inv_step = 1.0 / f.step;
    return f;
  }

  // The grid index of coordinate x along axis d into q; false outside the frame (or for NaN).
  bool try_encode(double x, int d, std::int32_t& q) const {
    const double v = (x - centre[d]) * inv_step;
    if (!(v >= -2147483648.5 && v < 2147483647.5)) return false;
    q = static_cast<std::int32_t>(nearest_integer(v));
    return true;
  }
  // The same; throws std::out_of_range outside the frame.
  std::int32_t encode(double x, int d) const {
    std::int32_t q = 0;
    if (!try_encode(x, d, q)) throw std::out_of_range("KdTree: point outside the tree's grid frame");
    return q;
  }
  // v rounded to the nearest integer, ties to even, for |v| < 2^51: adding and subtracting 1.5 * 2^52
  // leaves no fraction bits. Plain arithmetic (the build never reassociates it, and evaluates doubles
  // in double: FLT_EVAL_METHOD 0, asserted above): std::nearbyint is a library call on x86-64 without
  // SSE4.1, the portable build's target.
  static double nearest_integer(double v) {
    constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52
    return (v + kShift) - kShift;
  }
  double decode(std::int32_t q, int d) const { return centre[d] + step * static_cast<double>(q); }
  // x rounded to the grid, as the tree keeps it.
  double round(double x, int d) const { return decode(encode(x, d), d); }
};

}  // namespace nodegen
