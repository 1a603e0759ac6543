// The spacing's factor for a target node count (node_target.hpp).
#include "nodegen/input/node_target.hpp"

#include <cmath>
#include <variant>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/geometry/json_fields.hpp"
#include "nodegen/geometry/spacing_fault.hpp"
#include "nodegen/input/fill_domain.hpp"
#include "nodegen/storage/store_concept.hpp"

namespace nodegen {
namespace {

// What the fill places for each node the loader's terms count, on the example domains: inside, the PNP
// fill's packing (nodes per h^d cell) less the layer the boundary's nodes take; on the boundary, the
// true surface against the staircase of grid faces the loader measures (shorter where it is curved).
double interior_share(int dim) { return dim == 2 ? 0.86 : 0.75; }
double boundary_share(int dim) { return dim == 2 ? 0.9 : 0.7; }

// The factor s > 0 with interior * s^-d + boundary * s^-(d-1) = target (decreasing in s): bisection
// on log s, to far below the tolerance.
double solve_factor(double interior, double boundary, int dim, double target) {
  auto count = [&](double s) { return interior * std::pow(s, -dim) + boundary * std::pow(s, -(dim - 1)); };
  double lo = -60.0, hi = 60.0;  // log s
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (count(std::exp(mid)) > target) lo = mid;
    else hi = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

std::pair<std::size_t, std::size_t> counts_of(const AnyDiscretization& d) {
  return std::visit([](const auto& x) { return std::pair{x.share.total_nodes, x.share.total_boundary}; }, d);
}

// The file as the fill at `factor` of its original spacing sees it.
void scale_file(DomainFile& file, const Spacing& original, double original_interior, double original_boundary,
                double factor) {
  file.spacing = original.scaled(factor);
  file.expected_interior = original_interior * std::pow(factor, -file.dim);
  file.expected_boundary = original_boundary * std::pow(factor, -(file.dim - 1));
  file.expected_nodes = file.expected_interior + file.expected_boundary;
}

}  // namespace

double estimated_node_count(const DomainFile& file) {
  return interior_share(file.dim) * file.expected_interior + boundary_share(file.dim) * file.expected_boundary;
}

double estimated_spacing_factor(const DomainFile& file, std::size_t target) {
  const double interior = interior_share(file.dim) * file.expected_interior;
  const double boundary = boundary_share(file.dim) * file.expected_boundary;
  if (!(interior + boundary > 0)) return 1.0;
  return solve_factor(interior, boundary, file.dim, static_cast<double>(target));
}

TargetedFill fill_domain_to_target(DomainFile& file, const FillOptions& options) {
  const std::size_t target = *file.target_nodes;
  if (static_cast<double>(target) * (1.0 + kTargetTolerance) > static_cast<double>(file.fill.max_nodes))
    throw InputError(file.path.string(), "fill.nodes",
                     std::to_string(target) + " nodes asked for, too near the node cap of " +
                         std::to_string(file.fill.max_nodes) + " (raise it with --max-nodes or fill.max_nodes)");
  const Spacing original = file.spacing;
  const double interior = file.expected_interior, boundary = file.expected_boundary;
  TargetedFill out{AnyDiscretization{}, estimated_spacing_factor(file, target), 1};
  scale_file(file, original, interior, boundary, out.factor);
  try {
    out.nodes = fill_domain(file, options);
  } catch (const StoreFull&) {
    // The estimate undershot enough to reach the cap: the first fill again at a spacing that asks for
    // well below it, which the correction then scales to the target.
    const double below = 0.75 * static_cast<double>(file.fill.max_nodes);
    out.factor = estimated_spacing_factor(file, static_cast<std::size_t>(std::min(below, 0.75 * static_cast<double>(target))));
    scale_file(file, original, interior, boundary, out.factor);
    if (options.progress) options.progress->store(0, std::memory_order_relaxed);
    out.nodes = fill_domain(file, options);
    out.fills = 2;
  }
  const auto [nodes, on_boundary] = counts_of(out.nodes);
  const double miss = std::abs(static_cast<double>(nodes) - static_cast<double>(target)) / static_cast<double>(target);
  if (miss <= kTargetTolerance || nodes == 0) return out;
  // The first fill's own counts at its factor s1: interior ~ (s1 / s)^d, boundary ~ (s1 / s)^(d-1).
  const double s1 = out.factor, d = file.dim;
  const double inner = static_cast<double>(nodes - on_boundary) * std::pow(s1, d);
  const double outer = static_cast<double>(on_boundary) * std::pow(s1, d - 1);
  out.factor = solve_factor(inner, outer, file.dim, static_cast<double>(target));
  ++out.fills;
  scale_file(file, original, interior, boundary, out.factor);
  if (options.progress) options.progress->store(0, std::memory_order_relaxed);
  out.nodes = fill_domain(file, options);
  return out;
}

TargetedFill fill_as_asked(DomainFile& file, const FillOptions& options) {
  try {
    if (file.target_nodes) return fill_domain_to_target(file, options);
    return TargetedFill{fill_domain(file, options), 1.0, 0};
  } catch (const SpacingFault& e) {
    throw InputError(file.path.string(), "spacing", e.what());
  } catch (const StoreFull& e) {
    // The fill's message already names the cap; other stores' messages get the cap's hint.
    const std::string what = e.what();
    throw InputError(file.path.string(), "fill.max_nodes",
                     what.starts_with("node cap") ? what
                                                  : "node cap of " + std::to_string(file.fill.max_nodes) +
                                                        " reached: " + what + " (raise it with --max-nodes)");
  }
}

void check_node_target(const DomainFile& file) {
  if (!file.target_nodes) return;
  const std::size_t target = *file.target_nodes;
  if (static_cast<double>(target) * (1.0 + kTargetTolerance) <= static_cast<double>(file.fill.max_nodes)) return;
  throw InputError(file.path.string(), "fill.nodes",
                   std::to_string(target) + " nodes asked for; the run may land up to " +
                       std::to_string(static_cast<int>(100 * kTargetTolerance)) + " % above that, beyond the " +
                       "node cap of " + std::to_string(file.fill.max_nodes) +
                       ": raise it (--max-nodes, fill.max_nodes) or ask for fewer");
}

void check_node_limit(const DomainFile& file) {
  if (file.target_nodes) return;  // the target is checked against the cap, which is within the limit
  const double estimate = estimated_node_count(file);
  if (!(estimate > static_cast<double>(FillParams::kMaxNodeCap))) return;
  throw InputError(file.path.string(), "spacing",
                   "the fill would place about " + number_text(estimate) + " nodes (the loader's estimate), more than the " +
                       std::to_string(FillParams::kMaxNodeCap) + " an output holds (its node indexes are int32, as "
                       "Medusa reads them, and fill.max_nodes cannot go higher); use a larger spacing");
}

}  // namespace nodegen
