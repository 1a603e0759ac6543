#pragma once
// Poisson-disk sample elimination for surface samples, in blocks, on several threads, drawing the
// samples block by block from a SampleSource instead of holding them all.
//
// Greedy thinning keeps a sample when no sample kept before it lies within its radius. Done over one
// global random order (the first version), every test was a hash-grid lookup at a random place in
// memory: a large share of a run on the shipped meshes at 1e6 nodes, on one thread, before the fill
// could start. Here space is cut into cubic blocks of edge >= the usual radius and each block is
// thinned in its own random order, so a block's tests stay in a few cache-resident cells. The blocks
// are coloured by the parity of their coordinates (8 colours): two blocks of one colour are at least a
// block apart, so no sample of one is within reach of a sample of the other, and the blocks of a
// colour are thinned in parallel, colour after colour. Every block's order is drawn from (seed, block),
// so the kept set is the same for any number of threads.
//
// Memory: a block asks the source for the samples of the pieces that overlap it when it is thinned, and
// only the kept ones (about 1 in 20) stay. Drawn all at once, a mesh's samples (24 per h^2, ~44 B each
// with their radii and block lists) would set the peak of a mesh domain's run, above the fill's own
// (measured: bench/RESULTS.md, Geometry and meshes).
//
// Radii far above the block edge (a spacing 1e11 times larger on part of the surface): the block edge
// is capped at kMaxBlockCells cells, so one huge radius cannot size every block; such "wide" samples are
// set aside and thinned last, one by one, against every kept sample.
//
// The result is still a maximal set: every sample dropped has a kept sample within its radius, and
// every two kept samples are at least the later one's radius apart.
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <nodegen/geometry/box.hpp>
#include <nodegen/geometry/spacing.hpp>
#include <nodegen/spatial/point.hpp>

#include "geometry/boundary/point_grid.hpp"

namespace nodegen::geometry_detail {

struct SurfaceSample {
  Vec<3> pos;
  std::uint32_t item;  // the source's item (a mesh triangle) the sample lies on
};

// Samples grouped in items (a mesh's triangles), each item cut into pieces small enough that a piece
// touches only a few blocks. A piece's samples must depend on nothing but the piece: the same piece
// yields the same samples whichever block asks, on whichever thread.
class SampleSource {
 public:
  virtual ~SampleSource() = default;
  virtual std::size_t items() const = 0;
  // The smallest and largest h on the samples, estimated (a sample outside the range costs time only);
  // lowest above highest when there are none.
  virtual std::pair<double, double> spacing_range() const = 0;
  // Sets the largest piece extent (every axis); called once, before pieces() and samples().
  virtual void set_piece_size(double size) = 0;
  // Calls box(b) once per piece of `item`: a box holding all the piece's samples.
  virtual void pieces(std::size_t item, const std::function<void(const Box<3>&)>& box) const = 0;
  // Appends the samples of the pieces of `item` whose boxes overlap `region` (others may come too).
  // Called concurrently; `thread` (below the thread count the source was made for) picks per-thread state.
  virtual void samples(std::size_t item, const Box<3>& region, int thread, std::vector<SurfaceSample>& out) const = 0;
};

// Keeps a sample p when no sample kept before it, and no point of `fixed` (nodes placed before, on the
// surface's feature curves; may be null), lies within radius_factor * h(p) of it. Returns the
// kept samples, block by block in the order the blocks first occur in the items' pieces, then the wide
// ones. `cell`: cell edge of the spacing checks (about the smallest h; lowered to 4 times the smallest
// h the source reports); `threads` >= 1, at most the thread count the source was made for.
// Throws std::runtime_error when h is not positive and finite on a sample.
std::vector<SurfaceSample> thin_samples(SampleSource& source, const Spacing& spacing, double radius_factor,
                                        double cell, std::uint64_t seed, int threads,
                                        const PointGrid<3>* fixed = nullptr);

}  // namespace nodegen::geometry_detail
