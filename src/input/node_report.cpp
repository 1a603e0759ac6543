// node_report (input/node_report.hpp): the figures of `nodegen stats`, the domain rebuilt from the
// nodes' metadata.
#include "nodegen/input/node_report.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <variant>

#include "nodegen/input/domain_file.hpp"
#include "nodegen/input/stored_nodes.hpp"
#include "nodegen/io/fingerprint.hpp"
#include "nodegen/io/hdf5_reader.hpp"

namespace nodegen {
namespace {

// The domain the file was filled from, rebuilt from the domain file text stored in it (relative mesh
// paths resolve against the original file's folder). Empty with a warning when that is impossible
// (a file from Medusa, a mesh that moved, a domain of another dimension than the nodes'): the report
// then lacks packing density and holes, and `warning` says why (printed once the report is made, so a
// file refused later gets one line only).
std::optional<DomainFile> stored_domain(const std::filesystem::path& file, const io::RunMetadata& metadata, int dim,
                                        std::string& warning) {
  const std::string* text = io::find_string(metadata, "domain_file_text");
  const std::string* path = io::find_string(metadata, "domain_file");
  if (text == nullptr || path == nullptr) {
    warning = "nodegen: warning: " + file.string() +
              " has no domain file text (the fixed-length string attributes domain_file_text and domain_file of "
              "/domain, as nodegen writes them): packing density and holes not measured";
    return std::nullopt;
  }
  try {
    DomainFile domain = parse_domain_text(*text, *path);
    if (domain.dim == dim) return domain;
    warning = "nodegen: warning: " + file.string() + " holds " + std::to_string(dim) + "D nodes but its domain file text is " +
              std::to_string(domain.dim) + "D: packing density and holes not measured";
    return std::nullopt;
  } catch (const std::exception& e) {
    warning = std::string("nodegen: warning: cannot rebuild the domain (") + e.what() +
              "): packing density and holes not measured";
    return std::nullopt;
  }
}

// Points on the domain's boundary for a node set of boundary nodes alone: the boundary placed again at
// half the nodes' spacing (the run's factor included) with another seed, about 2^(D-1) points a node.
template <int D>
std::vector<Vec<D>> surface_points(const Domain<D>& d, const DomainFile& file, const io::NodeArrays& nodes,
                                   const io::RunMetadata& metadata, int threads) {
  const bool surface_only = std::none_of(nodes.types.begin(), nodes.types.end(), [](std::int32_t t) { return t > 0; });
  if (!surface_only || nodes.node_count() == 0) return {};
  const double* factor = io::find_double(metadata, "spacing_factor");
  const Spacing spacing = file.spacing.scaled(0.5 * (factor && *factor > 0 ? *factor : 1.0));
  std::vector<Vec<D>> out;
  for (const auto& b : d.boundary_nodes(spacing, file.fill.seed + 1, threads, 64 * nodes.node_count() + 1024)) out.push_back(b.pos);
  return out;
}

template <int D>
io::QualityReport measure(const io::NodeArrays& nodes, const std::optional<DomainFile>& domain_file,
                          const io::RunMetadata& metadata, const io::QualityOptions& options) {
  if (domain_file) {
    if (const auto* domain = std::get_if<std::shared_ptr<const Domain<D>>>(&domain_file->domain)) {
      const Domain<D>& d = **domain;
      io::QualityDomain<D> q{[&d](const Vec<D>& p) { return d.contains(p); }, d.bounding_box(),
                             static_cast<double>(d.leaf_count()),
                             surface_points<D>(d, *domain_file, nodes, metadata, options.threads)};
      return io::quality_report<D>(nodes, &q, options);
    }
  }
  return io::quality_report<D>(nodes, nullptr, options);
}

// Boundary nodes per part, by id (index id - 1), with the file's part names where it has them (the ids
// are checked against them, or without them against the node count: check_stored_nodes).
std::vector<NodeReport::Part> part_counts(const io::NodeArrays& nodes, const std::vector<std::string>& names) {
  std::vector<NodeReport::Part> parts;
  for (const std::string& name : names) parts.push_back({name, 0});
  for (std::int32_t t : nodes.types) {
    if (t >= 0) continue;
    const auto id = static_cast<std::size_t>(-static_cast<std::int64_t>(t));
    if (id > parts.size()) parts.resize(id);
    ++parts[id - 1].nodes;
  }
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (parts[i].name.empty()) parts[i].name = std::to_string(i + 1);
  return parts;
}

// h at every node: packing and nn / h divide by it (its values are checked with the rest of the
// nodes: check_stored_nodes).
void require_spacing(const std::filesystem::path& file, const io::NodeArrays& nodes) {
  if (nodes.h.size() != nodes.node_count())
    throw InputError(file.string(), "/domain/h", "missing: stats needs h at every node (not a nodegen file?)");
}

}  // namespace

nlohmann::json NodeReport::to_json(const std::filesystem::path& file, int dim) const {
  nlohmann::json part_list = nlohmann::json::array();
  for (std::size_t i = 0; i < parts.size(); ++i)
    part_list.push_back({{"id", i + 1}, {"name", parts[i].name}, {"nodes", parts[i].nodes}});
  return {
      {"file", file.string()},
      {"dim", dim},
      {"nodes", quality.nodes},
      {"nodes_sha256", fingerprint},
      {"boundary_nodes", quality.boundary_nodes},
      {"interior_nodes", quality.interior_nodes},
      {"nn_over_h", {{"min", quality.nn_over_h.min}, {"mean", quality.nn_over_h.mean}, {"max", quality.nn_over_h.max}}},
      {"packing_density", quality.packing_density},  // NaN (no domain) dumps as null
      {"measure", quality.measure},
      {"holes", {{"mean", quality.holes.mean}, {"p999", quality.holes.p999}, {"max", quality.holes.max},
                 {"samples", quality.holes.samples}, {"drawn", quality.holes.drawn}}},
      {"parts", part_list},
  };
}

NodeReport node_report(const std::filesystem::path& file, const io::NodeArrays& nodes, const io::RunMetadata& metadata,
                       std::size_t samples, int threads) {
  require_spacing(file, nodes);
  const std::vector<std::string> names = stored_part_names(file, metadata);
  check_stored_nodes(file, nodes, names);
  NodeReport report;
  std::string warning;
  const auto domain = stored_domain(file, metadata, nodes.dim, warning);
  report.with_domain = domain.has_value();
  report.fingerprint = io::nodes_sha256(nodes);
  io::QualityOptions options;
  options.threads = threads;
  options.samples = samples > 0 ? samples : std::clamp<std::size_t>(nodes.node_count(), 100'000, 10'000'000);
  io::QualityReport& r = report.quality;
  try {
    r = nodes.dim == 2 ? measure<2>(nodes, domain, metadata, options) : measure<3>(nodes, domain, metadata, options);
  } catch (const std::length_error&) {
    // The k-d tree's depth limit: more than a leaf's worth of nodes closer than double precision
    // separates (fewer coincident nodes simply give nn / h = 0).
    throw InputError(file.string(), "/domain/pos", "dozens of nodes share one position (coincident nodes): not a node set "
                                                   "a fill produces");
  }
  report.parts = part_counts(nodes, names);
  if (!warning.empty()) report.warnings.push_back(warning);
  // A thin domain can fill so little of its bounding box that the bounded draws find fewer samples.
  if (domain && r.interior_nodes > 0 && r.holes.samples < options.samples)
    report.warnings.push_back("nodegen: warning: " + file.string() + ": holes: only " + std::to_string(r.holes.samples) +
                              " of the " + std::to_string(options.samples) + " samples asked for fell inside the domain in " +
                              std::to_string(r.holes.drawn) +
                              " random points of its bounding box; measure, packing and holes are less precise");
  return report;
}

}  // namespace nodegen
