#pragma once
// The quality report of a node set (`nodegen stats`, the benches and the tests), measured the same way
// for our fill and Medusa's GeneralFill so the figures compare:
//
//   nn_over_h        for every node i: distance to its nearest other node / h_i (min, mean, max). PNP
//                    guarantees min >= zeta = 1 - 1e-10 (with h taken at the expanded node).
//   packing_density  sum over all nodes of the volume of a ball of diameter h_i (2D: pi h^2/4, 3D:
//                    pi h^3/6), divided by the domain's area / volume. This is the hard-disk packing
//                    fraction with exclusion diameter h: a hexagonal lattice of spacing h gives 0.907
//                    (2D), random sequential addition saturates near 0.547 (2D) and 0.38 (3D).
//   holes            distance from uniformly random points of the domain to the nearest node, divided by
//                    that node's h (mean, 99.9th percentile, max).
// Medusa's stated figures for both, beside ours: bench/RESULTS.md, Fill.
//
// The domain's measure is estimated from the same random samples (box volume x fraction inside), so
// no geometry beyond an inside test is needed. Points are drawn in the bounding box, batch after batch,
// until the requested number lies inside the domain (or QualityOptions::kMaxDrawsPerSample times
// that many were drawn): a thin or rotated domain fills a small part of its box (a 100 x 0.01 bar at 45 degrees,
// 1/5000 of it), and a fixed number of draws left it a handful of samples, a measure far off and a
// packing density above the hexagonal one. Samples come from a counter-based generator: the report does not
// depend on the number of threads.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "nodegen/storage/splitmix.hpp"
#include "nodegen/geometry/box.hpp"
#include "nodegen/io/node_arrays.hpp"
#include "nodegen/spatial/kdtree.hpp"
#include "nodegen/spatial/point.hpp"
#include "nodegen/parallel/thread_team.hpp"

namespace nodegen::io {

struct Summary {
  double min = std::numeric_limits<double>::quiet_NaN();
  double mean = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
};

struct HoleSummary {
  double mean = std::numeric_limits<double>::quiet_NaN();
  double p999 = std::numeric_limits<double>::quiet_NaN();
  double max = std::numeric_limits<double>::quiet_NaN();
  std::size_t samples = 0;  // random points that fell inside the domain
  std::size_t drawn = 0;    // random points drawn in the bounding box to find them
};

struct QualityReport {
  std::size_t nodes = 0;
  std::size_t boundary_nodes = 0;
  std::size_t interior_nodes = 0;
  Summary nn_over_h;
  double packing_density = std::numeric_limits<double>::quiet_NaN();  // NaN without a domain
  double measure = std::numeric_limits<double>::quiet_NaN();          // estimated area / volume
  HoleSummary holes;                                                  // NaN without a domain
};

template <int D>
struct QualityDomain {
  std::function<bool(const Vec<D>&)> contains;  // thread-safe inside test
  Box<D> box;                                   // contains the domain; samples are drawn from it
  double test_cost = 1.0;  // what an inside test costs at most, in tests of one shape (its leaves)
  // Points on the domain's boundary, denser than the nodes: for a node set without interior nodes
  // (nodegen run --boundary-only) the holes are measured at them, on the surface, and the measure and
  // packing density (of a volume) are not.
  std::vector<Vec<D>> surface;
};

struct QualityOptions {
  std::size_t samples = 100'000;  // random points of the domain for holes and the measure
  // Draws in the box at most: kMaxDrawsPerSample per sample, and kMaxDraws in all (seconds of inside
  // tests through a transform on one core) over the domain's test_cost, so a thin or rotated domain that
  // fills a sliver of its box gets fewer samples (and a warning) instead of hours of draws. A domain
  // of one shape filling 1/2500 of its box still gets 1e5 samples. (Over its cost because a sliver cut
  // by 100 shapes tests all of them at every draw: kMaxDraws alone kept it busy for a minute or more.)
  static constexpr std::size_t kMaxDrawsPerSample = 10'000;
  static constexpr std::size_t kMaxDraws = 250'000'000;
  std::uint64_t seed = 1;
  int threads = 1;
};

namespace quality_detail {

template <int D>
Vec<D> node_position(const NodeArrays& nodes, std::size_t i) {
  Vec<D> p;
  for (int k = 0; k < D; ++k) p[k] = nodes.coord(i, k);
  return p;
}

// Every node, inserted in rounds of 2^16 nodes: between rounds no thread is in the tree, so the buckets
// its leaves moved out of are reused (KdTree::reuse_retired) instead of claimed anew.
template <int D>
void insert_nodes(KdTree<D>& tree, const NodeArrays& nodes, int threads) {
  const std::size_t n = nodes.node_count();
  constexpr std::size_t kRound = std::size_t{1} << 16;
  for (std::size_t first = 0; first < n; first += kRound) {
    parallel_ranges(std::min(kRound, n - first), threads, [&](int, std::size_t begin, std::size_t end) {
      for (std::size_t i = first + begin; i < first + end; ++i)
        tree.insert(node_position<D>(nodes, i), static_cast<std::uint32_t>(i));
    });
    tree.reuse_retired();
  }
}

// The nearest other node of every node over its h: the 2 nearest include the node itself (distance
// 0) first. Needs at least 2 nodes.
template <int D>
Summary nearest_over_h(const KdTree<D>& tree, const NodeArrays& nodes, int threads) {
  const std::size_t n = nodes.node_count();
  const Summary neutral{std::numeric_limits<double>::infinity(), 0.0, 0.0};
  // Neutral entries: a team smaller than `threads` (fewer nodes than threads) leaves some unwritten.
  std::vector<Summary> part(static_cast<std::size_t>(threads), neutral);
  parallel_ranges(n, threads, [&](int tid, std::size_t begin, std::size_t end) {
    std::vector<std::pair<std::uint32_t, double>> near;
    Summary s = neutral;
    for (std::size_t i = begin; i < end; ++i) {
      tree.knn(node_position<D>(nodes, i), 2, near);
      // With coincident nodes the pair order is by id, so pick the entry that is not i itself.
      const double d = near[0].first == i ? near[1].second : near[0].second;
      const double ratio = d / nodes.h[i];
      s.min = std::min(s.min, ratio);
      s.max = std::max(s.max, ratio);
      s.mean += ratio;
    }
    part[static_cast<std::size_t>(tid)] = s;
  });
  Summary total = neutral;
  for (const auto& s : part) {
    total.min = std::min(total.min, s.min);
    total.max = std::max(total.max, s.max);
    total.mean += s.mean;
  }
  total.mean /= static_cast<double>(n);
  return total;
}

// Random points in the box, a batch at a time until `options.samples` of them lie inside: the inside
// ones' distance to their nearest node over its h (the holes), and how many points were drawn in all
// (their share inside measures the domain).
template <int D>
std::vector<double> hole_samples(const KdTree<D>& tree, const NodeArrays& nodes, const QualityDomain<D>& domain,
                                 const QualityOptions& options, std::size_t& drawn) {
  const int threads = std::max(1, options.threads);
  const std::size_t want = options.samples;
  const auto affordable = static_cast<std::size_t>(static_cast<double>(QualityOptions::kMaxDraws) /
                                                   std::max(1.0, domain.test_cost));
  const std::size_t max_draws = std::min(want * QualityOptions::kMaxDrawsPerSample, std::max(want, affordable));
  const std::size_t max_batch = std::max<std::size_t>(want, std::size_t{1} << 20);  // 8 MB of scratch
  std::vector<double> hole, batch;
  drawn = 0;
  while (hole.size() < want && drawn < max_draws) {
    // The next batch: as many draws as the share inside so far says the missing samples need (+5 %),
    // eight times the draws so far while none was inside.
    const double missing = static_cast<double>(want - hole.size());
    const double guess = drawn == 0 ? static_cast<double>(want)
                         : hole.empty() ? 8.0 * static_cast<double>(drawn)
                                        : 1.05 * missing * static_cast<double>(drawn) / static_cast<double>(hole.size()) + 64.0;
    const std::size_t first = drawn,
                      m = std::min({static_cast<std::size_t>(guess), max_batch, max_draws - drawn});
    batch.resize(m);
    parallel_ranges(m, threads, [&](int, std::size_t begin, std::size_t end) {
      const Vec<D> size = domain.box.size();
      for (std::size_t i = begin; i < end; ++i) {
        const std::size_t s = first + i;
        batch[i] = -1.0;  // outside the domain
        Vec<D> p;
        for (int k = 0; k < D; ++k)
          p[k] = domain.box.lo[k] + size[k] * unit_uniform(mix64(options.seed * 0x100000001B3ull + s * D + static_cast<std::size_t>(k)));
        if (!domain.contains(p)) continue;
        const auto nearest = tree.nearest(p);
        batch[i] = nearest->second / nodes.h[nearest->first];
      }
    });
    drawn += m;
    for (std::size_t i = 0; i < m; ++i)
      if (batch[i] >= 0) hole.push_back(batch[i]);
  }
  return hole;
}

// Mean, max and p99.9 of the samples (nearest rank); reorders them.
inline void summarize_holes(std::vector<double>& hole, HoleSummary& holes) {
  double sum = 0;
  for (double v : hole) sum += v;
  holes.mean = sum / static_cast<double>(hole.size());
  holes.max = *std::max_element(hole.begin(), hole.end());
  // p99.9: the value below which 99.9 % of the samples lie (nearest-rank).
  const auto rank = static_cast<std::size_t>(std::ceil(0.999 * static_cast<double>(hole.size()))) - 1;
  std::nth_element(hole.begin(), hole.begin() + static_cast<std::ptrdiff_t>(rank), hole.end());
  holes.p999 = hole[rank];
}

}  // namespace quality_detail

// Needs nodes.h (one value per node). Without a domain only the counts and nn_over_h are measured.
template <int D>
QualityReport quality_report(const NodeArrays& nodes, const QualityDomain<D>* domain, const QualityOptions& options) {
  namespace qd = quality_detail;
  if (nodes.dim != D) throw std::invalid_argument("quality_report: dimension mismatch");
  const std::size_t n = nodes.node_count();
  if (nodes.h.size() != n) throw std::invalid_argument("quality_report: needs h at every node");
  const int threads = std::max(1, options.threads);

  QualityReport r;
  r.nodes = n;
  r.boundary_nodes = static_cast<std::size_t>(std::count_if(nodes.types.begin(), nodes.types.end(), [](auto t) { return t < 0; }));
  r.interior_nodes = n - r.boundary_nodes;
  if (n == 0) return r;
  KdTree<D> tree(n);
  qd::insert_nodes(tree, nodes, threads);
  if (n >= 2) r.nn_over_h = qd::nearest_over_h(tree, nodes, threads);
  if (domain == nullptr || options.samples == 0) return r;
  if (r.interior_nodes == 0 && !domain->surface.empty()) {
    std::vector<double> hole(domain->surface.size());
    parallel_for(hole.size(), threads, [&](int, std::size_t i) {
      const auto nearest = tree.nearest(domain->surface[i]);
      hole[i] = nearest->second / nodes.h[nearest->first];
    });
    r.holes.samples = r.holes.drawn = hole.size();
    qd::summarize_holes(hole, r.holes);
    return r;
  }

  std::size_t drawn = 0;
  std::vector<double> hole = qd::hole_samples(tree, nodes, *domain, options, drawn);
  r.holes.samples = hole.size();
  r.holes.drawn = drawn;
  r.measure = domain->box.volume() * static_cast<double>(hole.size()) / static_cast<double>(drawn);
  if (hole.empty()) return r;
  qd::summarize_holes(hole, r.holes);
  const double ball = D == 2 ? std::numbers::pi / 4.0 : std::numbers::pi / 6.0;  // volume of a ball of diameter 1
  double balls = 0;
  for (double h : nodes.h) balls += ball * std::pow(h, D);
  r.packing_density = balls / r.measure;
  return r;
}

}  // namespace nodegen::io
