#include "geometry/shapes/ring_crossings.hpp"

#include <CGAL/Arr_segment_traits_2.h>
#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/Surface_sweep_2_algorithms.h>

#include <algorithm>
#include <iterator>
#include <utility>

namespace nodegen::geometry_detail {

std::optional<Vec<2>> find_ring_crossing(const std::vector<std::vector<Vec<2>>>& rings) {
  // The sweep drops every event where only end points meet, not just the vertex two consecutive edges
  // share: a figure eight through a vertex, two rings touching at a vertex, an edge repeated in another
  // ring. In all of these some vertex occurs twice (consecutive repeats are removed on loading), so a
  // vertex seen twice is a touch. (An edge lying along part of another has an end point inside that
  // other edge, which the sweep reports.) Checked first, in O(n log n): rings repeated many times make
  // the sweep track every overlap (1000 copies of one hole took a minute).
  std::vector<std::pair<double, double>> vertices;
  for (const auto& ring : rings)
    for (const Vec<2>& v : ring) vertices.emplace_back(v[0], v[1]);
  std::sort(vertices.begin(), vertices.end());
  const auto twice = std::adjacent_find(vertices.begin(), vertices.end());
  if (twice != vertices.end()) return Vec<2>(twice->first, twice->second);

  // Exact constructions: the sweep computes crossing points and orders events by them; with floating
  // point a near-degenerate outline (an airfoil's trailing edge) could be judged inconsistently.
  using Kernel = CGAL::Exact_predicates_exact_constructions_kernel;
  using Traits = CGAL::Arr_segment_traits_2<Kernel>;
  std::vector<Traits::Curve_2> edges;
  for (const auto& ring : rings)
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const Vec<2>& a = ring[i];
      const Vec<2>& b = ring[(i + 1) % ring.size()];
      edges.emplace_back(Kernel::Point_2(a[0], a[1]), Kernel::Point_2(b[0], b[1]));
    }
  // Shared end points of consecutive edges are not reported (report_endpoints = false); an end point
  // lying inside another edge, a crossing and an overlap are.
  std::vector<Kernel::Point_2> points;
  CGAL::compute_intersection_points(edges.begin(), edges.end(), std::back_inserter(points), false);
  if (!points.empty()) return Vec<2>(CGAL::to_double(points.front().x()), CGAL::to_double(points.front().y()));
  return std::nullopt;
}

}  // namespace nodegen::geometry_detail
