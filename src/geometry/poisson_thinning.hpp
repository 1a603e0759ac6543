#pragma once
// Poisson-disk sample elimination for surface samples, in blocks, on several threads.
//
// Greedy thinning keeps a sample when no sample kept before it lies within its radius. Done over one
// global random order (the first version), every test was a hash-grid lookup at a random place in
// memory: 1.0-1.6 s of a 5 s run on the shipped meshes at 1e6 nodes, on one thread, before the fill
// could start. Here the samples are binned into cubic blocks of edge >= the largest radius and each
// block is thinned in its own random order, so a block's tests stay in a few cache-resident cells.
// The blocks are coloured by the parity of their coordinates (8 colours): two blocks of one colour
// are at least a block apart, so no sample of one is within reach of a sample of the other, and the
// blocks of a colour are thinned in parallel, colour after colour. Every block's order is drawn from
// (seed, block), so the kept set is the same for any number of threads.
//
// The result is still a maximal set: every sample dropped has a kept sample within its radius, and
// every two kept samples are at least the later one's radius apart.
#include <cstdint>
#include <vector>

#include <nodegen/geometry/spacing.hpp>
#include <nodegen/spatial/point.hpp>

namespace nodegen::geometry_detail {

// Keeps samples[i] when no sample kept before it lies within radius_factor * h(samples[i]) of it.
// Returns the kept indices, block by block in the order the blocks first occur in `samples`.
// `cell`: cell edge of the spacing checks (about the smallest h); `threads` >= 1.
std::vector<std::uint32_t> thin_samples(const std::vector<Vec<3>>& samples, const Spacing& spacing,
                                        double radius_factor, double cell, std::uint64_t seed, int threads);

}  // namespace nodegen::geometry_detail
