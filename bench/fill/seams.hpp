#pragma once
// Seams: whether the fill leaves a trace along the borders of its tiles (fill/tile_grid.hpp). Nodes
// placed near a border were checked against nodes of the neighbouring tile that an earlier phase
// placed; a flaw in that hand-over would show as a different density, spacing or hole size there.
//
// Every interior node and every random sample of the domain is "near" when it lies within
// kSeamSpacings h of a face of its tile (the tile the fill gives a node of that spacing there), and
// "rest" otherwise. The same split by a control grid, shifted by half a tile along every axis, tells
// what a difference between near and rest amounts to where no border is (sampling noise, the shape of
// the bands). Printed for each grid (lines "seams:" and "seams_control:"), near | rest:
//   density  interior nodes over the nodes the spacing asks for (the samples weighted by 1 / h^D),
//            relative to the whole domain (1 = no seam);
//   nn/h     the nearest other node's distance over h: p1, median, mean;
//   holes    a random point's distance to the nearest node over that node's h: mean, p99, p99.9, max.
// Boundary nodes, and the nodes and samples within kBoundaryBand h of a boundary node, are left out:
// near the domain's boundary the holes are larger whatever the tiles (the geometry's nodes lie there),
// and the box's faces are tile borders too, so that band would otherwise weigh on "near" alone.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "nodegen/fill/discretization.hpp"
#include "nodegen/fill/tile_grid.hpp"
#include "nodegen/geometry/box.hpp"
#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/storage/splitmix.hpp"

namespace nodegen::bench {

inline constexpr double kSeamSpacings = 2.0;
inline constexpr double kBoundaryBand = 4.0;

// Distance from p to the nearest face of the tile that holds a node of spacing h at p, in the fill's
// grid shifted by `shift` tile edges along every axis (0: the fill's own tiles).
template <int D>
double distance_to_tile_border(const fill_detail::TileGrid<D>& grid, const Vec<D>& p, double h, double shift) {
  const std::int32_t level = grid.level_of(h);
  const Vec<D> q = p + Vec<D>::Constant(shift * grid.edge(level));
  Vec<D> lo, hi;
  grid.cell_of(grid.key_of(q, level), lo, hi);
  double d = INFINITY;
  for (int a = 0; a < D; ++a) d = std::min({d, q[a] - lo[a], hi[a] - q[a]});
  return d;
}

inline double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return NAN;
  const auto k = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}
inline double mean_of(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / static_cast<double>(v.size());
}

// The figures of one split (near | rest).
struct SeamSplit {
  std::vector<double> nn[2], holes[2];
  std::size_t nodes[2] = {0, 0};
  double weight[2] = {0, 0};  // the samples' 1 / h^D: the expected nodes, up to a constant

  void print(const char* label) {
    const double all_nodes = static_cast<double>(nodes[0] + nodes[1]);
    const double all_samples = static_cast<double>(holes[0].size() + holes[1].size());
    double density[2];
    for (int s = 0; s < 2; ++s)
      density[s] = holes[s].empty() ? NAN : (static_cast<double>(nodes[s]) / all_nodes) / (weight[s] / (weight[0] + weight[1]));
    std::printf("%s: near_nodes=%zu rest_nodes=%zu near_volume_share=%.3f density_near=%.4f density_rest=%.4f", label,
                nodes[0], nodes[1], static_cast<double>(holes[0].size()) / all_samples, density[0], density[1]);
    const char* names[2] = {"near", "rest"};
    for (int s = 0; s < 2; ++s)
      std::printf(" nn_p1_%s=%.4f nn_p50_%s=%.4f nn_mean_%s=%.4f", names[s], quantile(nn[s], 0.01), names[s],
                  quantile(nn[s], 0.5), names[s], mean_of(nn[s]));
    for (int s = 0; s < 2; ++s)
      std::printf(" holes_mean_%s=%.4f holes_p99_%s=%.4f holes_p999_%s=%.4f holes_max_%s=%.4f", names[s],
                  mean_of(holes[s]), names[s], quantile(holes[s], 0.99), names[s], quantile(holes[s], 0.999), names[s],
                  quantile(holes[s], 1.0));
    std::printf("\n");
  }
};

// Prints the lines "seams:" and "seams_control:" for the nodes of `d`; `samples` random points
// (counter-based, seeded) measure the volumes and the holes.
template <int D, class Contains, class HAt>
void print_seams(const Discretization<D>& d, const Box<D>& box, Contains&& contains, HAt&& h_at,
                 std::size_t samples = 1'000'000) {
  const fill_detail::TileGrid<D> grid(box.lo, box.size().maxCoeff());
  const std::size_t n = d.positions.size();
  // The first `count` nodes; one thread inserts, so the buckets the leaves move out of may be reused
  // at any moment (KdTree::reuse_retired).
  auto insert_first = [&](KdTree<D>& into, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      into.insert(d.positions[i], static_cast<std::uint32_t>(i));
      if (i % 1024 == 0) into.reuse_retired();
    }
  };
  KdTree<D> tree(std::max<std::size_t>(n, 1));
  insert_first(tree, n);
  KdTree<D> boundary(std::max<std::size_t>(d.boundary_count, 1));
  insert_first(boundary, d.boundary_count);
  auto in_band = [&](const Vec<D>& p, double h) { return d.boundary_count && boundary.exists_within(p, kBoundaryBand * h); };
  SeamSplit split[2];  // the fill's grid, the control grid
  auto side = [&](int g, const Vec<D>& p, double h) {
    return distance_to_tile_border<D>(grid, p, h, g == 0 ? 0.0 : 0.5) < kSeamSpacings * h ? 0 : 1;
  };

  std::vector<std::pair<std::uint32_t, double>> near;
  for (std::size_t i = d.boundary_count; i < n; ++i) {
    const Vec<D>& p = d.positions[i];
    const double h = h_at(p);
    if (in_band(p, h)) continue;
    tree.knn(p, 2, near);
    const double nn = (near[0].first == i ? near[1].second : near[0].second) / h;
    for (int g = 0; g < 2; ++g) {
      const int s = side(g, p, h);
      ++split[g].nodes[s];
      split[g].nn[s].push_back(nn);
    }
  }

  std::uint64_t counter = 0;
  std::size_t kept = 0;
  for (std::size_t drawn = 0; kept < samples && drawn < 100 * samples; ++drawn) {
    Vec<D> x;
    for (int a = 0; a < D; ++a) {
      x[a] = box.lo[a] + unit_uniform(mix64(0x5EA45ULL + counter++)) * (box.hi[a] - box.lo[a]);
    }
    if (!contains(x)) continue;
    const double hx = h_at(x);
    if (in_band(x, hx)) continue;
    ++kept;
    tree.knn(x, 1, near);
    const double hole = near[0].second / h_at(d.positions[near[0].first]);
    for (int g = 0; g < 2; ++g) {
      const int s = side(g, x, hx);
      split[g].holes[s].push_back(hole);
      split[g].weight[s] += std::pow(hx, -D);
    }
  }
  split[0].print("seams");
  split[1].print("seams_control");
}

}  // namespace nodegen::bench
