#include "ring_crossings.hpp"

#include <CGAL/Arr_segment_traits_2.h>
#include <CGAL/Exact_predicates_exact_constructions_kernel.h>
#include <CGAL/Surface_sweep_2_algorithms.h>

#include <iterator>

namespace nodegen::geometry_detail {

std::optional<Vec<2>> find_ring_crossing(const std::vector<std::vector<Vec<2>>>& rings) {
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
  if (points.empty()) return std::nullopt;
  return Vec<2>(CGAL::to_double(points.front().x()), CGAL::to_double(points.front().y()));
}

}  // namespace nodegen::geometry_detail
