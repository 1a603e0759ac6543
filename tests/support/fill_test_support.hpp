#pragma once
// Exact domains (a box, a disk) and brute-force checks shared by the fill's test suites.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "support/geometry_test_support.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/geometry/box.hpp"
#include "nodegen/geometry/domain.hpp"
#include "nodegen/input/domain_file.hpp"
#include "nodegen/geometry/spacing.hpp"

namespace nodegen::testing {

// Same node count, same bytes in every array of the output (positions, types, bmap, normals).
template <int D>
void expect_same_nodes(const Discretization<D>& a, const Discretization<D>& b, const std::string& what) {
  ASSERT_EQ(a.positions.size(), b.positions.size()) << what;
  ASSERT_EQ(a.boundary_count, b.boundary_count) << what;
  EXPECT_EQ(0, std::memcmp(a.positions.data(), b.positions.data(), a.positions.size() * sizeof(Vec<D>))) << what;
  EXPECT_TRUE(std::equal(a.types.begin(), a.types.end(), b.types.begin())) << what;
  EXPECT_TRUE(std::equal(a.bmap.begin(), a.bmap.end(), b.bmap.begin())) << what;
  ASSERT_EQ(a.normals.size(), b.normals.size()) << what;
  EXPECT_EQ(0, std::memcmp(a.normals.data(), b.normals.data(), a.normals.size() * sizeof(Vec<D>))) << what;
}

// The dimension's default fill parameters with a test's seed and node cap.
inline FillParams fill_params(int dim, std::uint64_t seed, std::size_t max_nodes = 1'000'000) {
  FillParams p = FillParams::defaults_for(dim);
  p.seed = seed;
  p.max_nodes = max_nodes;
  return p;
}

inline FillOptions threads(int n) {
  FillOptions o;
  o.threads = n;
  return o;
}

// A domain file's domain: the library's Domain, whose fills the library compiles once for every suite
// (fill.hpp), on one shape that is exact (a box, a disk), so a failure points at the fill rather than
// at the geometry layer.
template <int D>
Domain<D> domain_of_shape(const std::string& shape_json) {
  const std::string text = R"({"dim": )" + std::to_string(D) + R"(, "spacing": 1, "shape": )" + shape_json + "}";
  return *test::domain_of<D>(test::parse(text, "test-domain.json"));
}

// The box [lo, hi], its corners written with every digit so the domain's box is `box` exactly.
template <int D>
Domain<D> box_domain(const Box<D>& box) {
  const auto corner = [](const Vec<D>& v) {
    std::ostringstream out;
    out.precision(17);
    out << '[';
    for (int i = 0; i < D; ++i) out << (i ? ", " : "") << v[i];
    out << ']';
    return out.str();
  };
  return domain_of_shape<D>(R"({"type": "box", "min": )" + corner(box.lo) + R"(, "max": )" + corner(box.hi) + "}");
}

template <int D>
Domain<D> unit_box() {
  return box_domain<D>(Box<D>{Vec<D>::Zero(), Vec<D>::Ones()});
}

// Strictly inside the box, as every interior node of a box's fill is: Domain::contains counts the
// faces as inside, and a zeroed node (a slot never written, a page discarded too early) lies on the
// unit box's corner.
template <int D>
bool strictly_inside(const Box<D>& box, const Vec<D>& p) {
  return (p.array() > box.lo.array()).all() && (p.array() < box.hi.array()).all();
}

// Boundary nodes of a box at spacing <= h: cell-centred grids on every face (so faces share no node),
// boundary id = face index + 1, outward normals.
template <int D>
std::vector<BoundaryNode<D>> box_boundary(const Box<D>& box, double h) {
  std::vector<BoundaryNode<D>> out;
  for (int axis = 0; axis < D; ++axis) {
    for (int side = 0; side < 2; ++side) {
      const int u = (axis + 1) % D, v = (axis + 2) % D;
      const int nu = static_cast<int>(std::ceil((box.hi[u] - box.lo[u]) / h));
      const int nv = D == 3 ? static_cast<int>(std::ceil((box.hi[v] - box.lo[v]) / h)) : 1;
      for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
          BoundaryNode<D> b;
          b.pos[axis] = side ? box.hi[axis] : box.lo[axis];
          b.pos[u] = box.lo[u] + (i + 0.5) * (box.hi[u] - box.lo[u]) / nu;
          if constexpr (D == 3) b.pos[v] = box.lo[v] + (j + 0.5) * (box.hi[v] - box.lo[v]) / nv;
          b.normal = Vec<D>::Zero();
          b.normal[axis] = side ? 1.0 : -1.0;
          b.boundary_id = 2 * axis + side + 1;
          out.push_back(b);
        }
    }
  }
  return out;
}

// The disk of radius 1 about the origin.
inline Domain<2> unit_disk() { return domain_of_shape<2>(R"({"type": "disk", "center": [0, 0], "radius": 1})"); }

// Nodes on the unit disk's circle, stepping by h at the current point (so a variable spacing is
// followed).
inline std::vector<BoundaryNode<2>> unit_disk_boundary(const Spacing& spacing) {
  auto h = spacing.evaluator();
  std::vector<BoundaryNode<2>> out;
  const double inner = 0.999999;  // just inside, so contains() agrees it is not outside
  double angle = 0.0;
  while (angle < 2.0 * std::numbers::pi) {
    const Vec<2> n(std::cos(angle), std::sin(angle));
    const Vec<2> p = inner * n;
    out.push_back({p, n, 1});
    angle += h(p);
  }
  // The last step may land closer than h to the first node; drop it so the boundary respects h too.
  if (out.size() > 2 && (out.back().pos - out.front().pos).norm() < 0.5 * h(out.front().pos)) out.pop_back();
  return out;
}

// A uniform hash grid over the nodes for brute-force neighbour checks in the tests.
template <int D>
class NodeGrid {
 public:
  NodeGrid(const std::vector<Vec<D>>& nodes, double cell) : nodes_(nodes), cell_(cell) {
    for (std::size_t i = 0; i < nodes.size(); ++i) cells_[key(coords(nodes[i]))].push_back(i);
  }
  // Calls f(j) for every node j within `radius` (radius <= cell) of x.
  template <class F>
  void around(const Vec<D>& x, F&& f) const {
    auto c0 = coords(x);
    std::array<long, D> c;
    const int span = 1;
    std::array<int, D> off;
    off.fill(-span);
    for (;;) {
      for (int a = 0; a < D; ++a) c[a] = c0[a] + off[a];
      if (auto it = cells_.find(key(c)); it != cells_.end())
        for (std::size_t j : it->second) f(j);
      int a = 0;
      while (a < D && off[a] == span) off[a] = -span, ++a;
      if (a == D) break;
      ++off[a];
    }
  }
  double nearest_distance(const Vec<D>& x) const {
    double best = INFINITY;
    around(x, [&](std::size_t j) { best = std::min(best, (nodes_[j] - x).norm()); });
    return best;
  }

 private:
  std::array<long, D> coords(const Vec<D>& p) const {
    std::array<long, D> c;
    for (int a = 0; a < D; ++a) c[a] = static_cast<long>(std::floor(p[a] / cell_));
    return c;
  }
  static std::uint64_t key(const std::array<long, D>& c) {
    std::uint64_t k = 0;
    for (int a = 0; a < D; ++a) k = k * 0x100000001B3ull + static_cast<std::uint64_t>(c[a] + (1l << 30));
    return k;
  }
  const std::vector<Vec<D>>& nodes_;
  double cell_;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> cells_;
};

// The smallest value of |a - b| / min(h(a), h(b)) over pairs with at least one interior node (the
// boundary nodes come from the geometry and are not the fill's to space). hmax bounds h for the grid.
template <int D, class H>
double min_pair_ratio(const Discretization<D>& d, H&& h, double hmax) {
  NodeGrid<D> grid(d.positions, hmax);
  double worst = INFINITY;
  for (std::size_t i = 0; i < d.positions.size(); ++i) {
    const double hi = h(d.positions[i]);
    grid.around(d.positions[i], [&](std::size_t j) {
      if (j <= i || (i < d.boundary_count && j < d.boundary_count)) return;  // each pair once
      const double dist = (d.positions[i] - d.positions[j]).norm();
      if (dist < hmax) worst = std::min(worst, dist / std::min(hi, h(d.positions[j])));
    });
  }
  return worst;
}

// Distances (/ h) from `samples` random points inside the domain to the nearest node, sorted.
template <int D, class DomainT, class H>
std::vector<double> hole_ratios(const Discretization<D>& d, const DomainT& domain, H&& h, double hmax, int samples,
                                std::uint64_t seed) {
  NodeGrid<D> grid(d.positions, 2 * hmax);
  std::mt19937_64 rng(seed);
  const auto& box = domain.bounding_box();
  std::vector<double> out;
  while (static_cast<int>(out.size()) < samples) {
    Vec<D> x;
    for (int a = 0; a < D; ++a) x[a] = std::uniform_real_distribution<double>(box.lo[a], box.hi[a])(rng);
    if (!domain.contains(x)) continue;
    out.push_back(grid.nearest_distance(x) / h(x));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace nodegen::testing
