#pragma once
// Random points on a triangle mesh's surface, area-weighted, about `per_h2` per h^2, drawn piece by
// piece whenever the thinning asks (poisson_thinning.hpp) instead of all at once.
//
// A triangle is cut into pieces along its own frame: t along its longest edge, n across it. The pieces
// are the cells of a square grid in (t, n) that meet the triangle, so a long thin triangle gives a row
// of cells along its length (halving its longest edge instead gave 3^k pieces per 2^k of length: listed,
// the gear mesh's pieces set the run's peak). A cell's samples are uniform in the cell at the density of h
// at its middle (clamped into the triangle), those outside the triangle dropped; they come from the
// cell's own random stream, keyed by (seed, triangle, cell), so they are the same every time the cell
// is drawn, from whichever block and thread.
#include <cstdint>
#include <utility>
#include <vector>

#include <nodegen/geometry/spacing.hpp>
#include <nodegen/spatial/point.hpp>

#include "geometry/boundary/poisson_thinning.hpp"

namespace nodegen::geometry_detail {

struct WorldTriangle {
  Vec<3> a, b, c;
  Vec<3> normal;  // outward unit
  int part = 1;   // the boundary part of the nodes placed on it
  std::uint32_t source = 0;  // its index in the leaf's own triangles
};

// The source's items are the pieces (set_piece_size() lists them); a sample's `item` is its triangle.
class TriangleSamples final : public SampleSource {
 public:
  // `threads`: how many threads may call samples() at once (each has its own spacing evaluator).
  TriangleSamples(const std::vector<WorldTriangle>& triangles, const Spacing& spacing, double per_h2,
                  std::uint64_t seed, int threads);

  std::size_t items() const override { return pieces_.size(); }
  // h at the triangles' corners and centroids (computed once, on `threads` threads).
  std::pair<double, double> spacing_range() const override { return range_; }
  // Lists every triangle's cells, each with a box at most `size` wide (12 B per piece).
  void set_piece_size(double size) override;
  void pieces(std::size_t item, const std::function<void(const Box<3>&)>& box) const override;
  void samples(std::size_t item, const Box<3>& region, int thread, std::vector<SurfaceSample>& out) const override;

 private:
  struct PieceName {
    std::uint32_t triangle, column, row;  // the cell [column, column + 1) x [row, row + 1) of the grid
  };
  // A triangle in its own frame: a + t u + n v, 0 <= t <= length, 0 <= n <= top(t).
  struct Frame {
    Vec<3> a, u, v;
    double length, apex_t, apex_n;
    double top(double t) const;
  };
  Frame frame(std::uint32_t triangle) const;
  double cell() const;  // the grid's cell edge

  const std::vector<WorldTriangle>& triangles_;
  double per_h2_;
  std::uint64_t seed_;
  int threads_;
  std::vector<Spacing::Evaluator> h_;  // one per thread: an evaluator is never shared
  std::pair<double, double> range_;
  double piece_ = 0.0;
  std::vector<PieceName> pieces_;
};

}  // namespace nodegen::geometry_detail
