// discretize (nodegen.hpp): the command's run in-process. The spacing argument replaces the domain
// file's (input/domain_file.hpp, with_spacing: bound to the parts, checked, estimated again), the
// options replace the file's fill fields as --seed, --max-nodes and --nodes do, and the fill is the
// command's (input/node_target.hpp, fill_as_asked), so the nodes are the command's bytes.
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

#include "api/api_state.hpp"
#include "api/filled_nodes.hpp"
#include "nodegen/fill/backend.hpp"
#include "nodegen/geometry/spacing_function.hpp"
#include "nodegen/geometry/spacing_samples.hpp"
#include "nodegen/input/node_target.hpp"
#include "nodegen/parallel/cpu_affinity.hpp"

namespace nodegen {
namespace {

using api_detail::translating_errors;

[[noreturn]] void fail(const DomainFile& file, const std::string& field, const std::string& reason) {
  throw Error(InputError(file.path.string(), field, reason).what());
}

FillOptions fill_options(const DomainFile& file, const Options& options) {
  if (options.threads < 0 || options.threads > kMaxThreads)
    fail(file, "threads", "must be 0 (one per core) or 1 to " + std::to_string(kMaxThreads) + ", got " +
                              std::to_string(options.threads));
  FillOptions fill;
  fill.stop = options.stop;
  fill.boundary_only = options.boundary_only;
  fill.threads = options.threads > 0 ? options.threads : std::min(cpus_allowed(), kMaxThreads);
  try {
    fill.backend = parse_backend(options.backend);
  } catch (const std::invalid_argument& e) {
    fail(file, "backend", e.what());
  }
  return fill;
}

// The file as the options change it: seed, cap and node target, each checked as the loader checks the
// file's own fields.
DomainFile with_options(DomainFile file, const Options& options) {
  if (options.seed) {
    if (*options.seed > FillParams::kMaxSeed)
      fail(file, "seed", "must be at most " + std::to_string(FillParams::kMaxSeed) + ", got " + std::to_string(*options.seed));
    file.fill.seed = *options.seed;
  }
  if (options.max_nodes) {
    if (*options.max_nodes < 1 || *options.max_nodes > FillParams::kMaxNodeCap)
      fail(file, "max_nodes", "must be from 1 to " + std::to_string(FillParams::kMaxNodeCap) + ", got " +
                                  std::to_string(*options.max_nodes));
    file.fill.max_nodes = *options.max_nodes;
  }
  if (options.nodes) {
    if (*options.nodes < 1) fail(file, "nodes", "must be at least 1, got 0");
    file.target_nodes = *options.nodes;
  }
  if (options.boundary_only && file.target_nodes)
    fail(file, options.nodes ? "nodes" : "fill.nodes", "counts a whole fill's nodes, not boundary_only's: give the spacing instead");
  if (options.supports < 0) fail(file, "supports", "must be 0 (none) or more, got " + std::to_string(options.supports));
  translating_errors([&] { check_node_target(file); });
  return file;
}

template <int D>
Nodes<D> run(const DomainSpec& domain, std::optional<Spacing> spacing, const Options& options) {
  const DomainFile& loaded = domain.loaded().file;
  if (loaded.dim != D)
    fail(loaded, "dim", "the domain is " + std::to_string(loaded.dim) + "D; discretize<" + std::to_string(D) +
                            "> fills " + std::to_string(D) + "D domains");
  const FillOptions fill = fill_options(loaded, options);
  DomainFile file = with_options(loaded, options);
  // A new spacing or cap is checked over the domain again (and its node estimate made again).
  if (spacing || options.max_nodes || options.nodes)
    file = translating_errors([&] { return with_spacing(file, spacing ? std::move(*spacing) : file.spacing); });
  TargetedFill filled = translating_errors([&] { return fill_as_asked(file, fill); });
  auto out = std::make_shared<api_detail::FilledNodes<D>>();
  out->nodes = std::move(std::get<Discretization<D>>(filled.nodes));
  out->spacing_factor = filled.factor;
  if (out->nodes.positions.empty())
    fail(file, "shape", "no nodes were placed: the shape is empty at this spacing (smaller than h = " +
                            file.spacing.brief() + ", or than its coordinates resolve)");
  api_detail::complete(*out, file, fill, options.supports);
  return Nodes<D>(std::move(out));
}

Spacing checked_expression(const DomainFile& file, const std::string& text) {
  try {
    return Spacing::expression(text);
  } catch (const std::invalid_argument& e) {
    fail(file, "spacing", e.what());
  }
}

template <int D>
Spacing samples_spacing(const DomainFile& file, const Samples& samples) {
  if (samples.dim != D)
    fail(file, "spacing", "the samples are " + std::to_string(samples.dim) + "D, the domain " + std::to_string(D) + "D");
  SampleSpacingOptions o;
  o.scale = samples.scale;
  o.min = samples.min;
  o.max = samples.max;
  o.grading = samples.grading;
  o.description = "samples (" + std::to_string(samples.values.size()) + " values in memory)";
  if (samples.positions.size() != samples.values.size() * D)
    fail(file, "spacing", "the samples have " + std::to_string(samples.positions.size()) + " coordinates for " +
                              std::to_string(samples.values.size()) + " values; " + std::to_string(D) +
                              " a value are needed");
  if (!(samples.grading >= 0.0) || !std::isfinite(samples.grading))
    fail(file, "spacing.grading", "must be finite and 0 or more");
  try {
    return sample_spacing(D, samples.positions, samples.values, o);
  } catch (const std::invalid_argument& e) {
    fail(file, "spacing", e.what());
  }
}

}  // namespace

template <int D>
Nodes<D> discretize(const DomainSpec& domain, const Options& options) {
  return run<D>(domain, std::nullopt, options);
}

template <int D>
Nodes<D> discretize(const DomainSpec& domain, double h, const Options& options) {
  return run<D>(domain, Spacing::constant(h), options);
}

template <int D>
Nodes<D> discretize(const DomainSpec& domain, const std::string& expression, const Options& options) {
  return run<D>(domain, checked_expression(domain.loaded().file, expression), options);
}

template <int D>
Nodes<D> discretize(const DomainSpec& domain, const Samples& samples, const Options& options) {
  return run<D>(domain, samples_spacing<D>(domain.loaded().file, samples), options);
}

template <int D>
Nodes<D> discretize(const DomainSpec& domain, SpacingFunction<D> h, const Options& options) {
  if (!h) fail(domain.loaded().file, "spacing", "the spacing function is empty");
  auto at = [h = std::move(h)](double x, double y, double z) {
    if constexpr (D == 2) return h(Point<2>(x, y));
    else return h(Point<3>(x, y, z));
  };
  return run<D>(domain, function_spacing(std::move(at), "a C++ function"), options);
}

template <int D>
Nodes<D> discretize(const DomainSpec& domain, BatchSpacing<D> h, const Options& options) {
  if (!h.h) fail(domain.loaded().file, "spacing", "the spacing function is empty");
  // The points as the caller's type, D coordinates each (Point<D> is D packed doubles).
  auto at = [h = std::move(h.h)](std::span<const double> xyz, std::span<double> out) {
    thread_local std::vector<Point<D>> points;
    points.resize(out.size());
    for (std::size_t i = 0; i < out.size(); ++i)
      for (int k = 0; k < D; ++k) points[i][k] = xyz[3 * i + static_cast<std::size_t>(k)];
    h(std::span<const Point<D>>(points), out);
  };
  return run<D>(domain, function_batch_spacing(std::move(at), "a C++ function of many points"), options);
}

#define NODEGEN_API_DIMENSION(D)                                                           \
  template Nodes<D> discretize<D>(const DomainSpec&, const Options&);                     \
  template Nodes<D> discretize<D>(const DomainSpec&, double, const Options&);             \
  template Nodes<D> discretize<D>(const DomainSpec&, const std::string&, const Options&); \
  template Nodes<D> discretize<D>(const DomainSpec&, const Samples&, const Options&);      \
  template Nodes<D> discretize<D>(const DomainSpec&, SpacingFunction<D>, const Options&);       \
  template Nodes<D> discretize<D>(const DomainSpec&, BatchSpacing<D>, const Options&);
NODEGEN_API_DIMENSION(2)
NODEGEN_API_DIMENSION(3)
#undef NODEGEN_API_DIMENSION

}  // namespace nodegen
