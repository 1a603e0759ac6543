#pragma once
// Helpers shared by the geometry suites: domains from inline JSON, and spacing/normal statistics of
// boundary node sets.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "nodegen/input/domain_file.hpp"

namespace nodegen::test {

// The folder the test data lives in (domain files, meshes).
inline std::filesystem::path source_dir() { return NODEGEN_SOURCE_DIR; }

// `file` is the name the domain has in error lines, and its folder the one relative files are read from.
inline DomainFile parse(const std::string& json, const std::filesystem::path& file = "inline.json") {
  return parse_domain_text(json, file);
}

template <int D>
std::shared_ptr<const Domain<D>> domain_of(const DomainFile& f) {
  return std::get<std::shared_ptr<const Domain<D>>>(f.domain);
}

// Distance from each node to its nearest other node, divided by h at the node (sweep along x).
template <int D>
std::vector<double> nearest_over_h(const std::vector<BoundaryNode<D>>& nodes, const Spacing& spacing) {
  auto h = spacing.evaluator();
  double h_max = 0;
  for (const auto& n : nodes) h_max = std::max(h_max, h(n.pos));
  std::vector<std::size_t> order(nodes.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return nodes[a].pos[0] < nodes[b].pos[0]; });
  std::vector<double> best(nodes.size(), std::numeric_limits<double>::infinity());
  for (std::size_t a = 0; a < order.size(); ++a)
    for (std::size_t b = a + 1; b < order.size(); ++b) {
      const auto& p = nodes[order[a]].pos;
      const auto& q = nodes[order[b]].pos;
      if (q[0] - p[0] > 3 * h_max) break;
      const double d = (p - q).norm();
      best[order[a]] = std::min(best[order[a]], d);
      best[order[b]] = std::min(best[order[b]], d);
    }
  for (std::size_t i = 0; i < nodes.size(); ++i) best[i] /= h(nodes[i].pos);
  return best;
}

// Largest distance (over h) from a point of `surface` to the nearest node: the biggest hole.
template <int D>
double largest_gap_over_h(const std::vector<BoundaryNode<D>>& nodes, const std::vector<Vec<D>>& surface,
                          const Spacing& spacing) {
  auto h = spacing.evaluator();
  double worst = 0;
  for (const auto& s : surface) {
    double best = std::numeric_limits<double>::infinity();
    for (const auto& n : nodes) best = std::min(best, (n.pos - s).norm());
    worst = std::max(worst, best / h(s));
  }
  return worst;
}

// The boundary nodes of `domain` for `seed` at each thread count of `threads` are `nodes`, position and
// normal bit for bit.
template <int D>
void expect_same_boundary_nodes(const Domain<D>& domain, const Spacing& spacing, std::uint64_t seed,
                                const std::vector<BoundaryNode<D>>& nodes, std::initializer_list<int> threads) {
  for (int t : threads) {
    const auto again = domain.boundary_nodes(spacing, seed, t);
    ASSERT_EQ(again.size(), nodes.size()) << t;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      ASSERT_EQ(again[i].pos, nodes[i].pos) << t;
      ASSERT_EQ(again[i].normal, nodes[i].normal) << t;
    }
  }
}

inline double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

}  // namespace nodegen::test
