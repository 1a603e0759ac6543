#include "stats_command.hpp"

#include "nodegen/parallel/cpu_affinity.hpp"
#include "stdout_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <variant>

#include "nodegen/input/domain_file.hpp"
#include "nodegen/io/fingerprint.hpp"
#include "nodegen/io/hdf5_reader.hpp"
#include "nodegen/io/quality.hpp"

namespace nodegen::cli {

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

template <int D>
io::QualityReport measure(const io::NodeArrays& nodes, const std::optional<DomainFile>& domain_file,
                          const io::QualityOptions& options) {
  if (domain_file) {
    if (const auto* domain = std::get_if<std::shared_ptr<const Domain<D>>>(&domain_file->domain)) {
      const Domain<D>& d = **domain;
      io::QualityDomain<D> q{[&d](const Vec<D>& p) { return d.contains(p); }, d.bounding_box(),
                             static_cast<double>(d.leaf_count())};
      return io::quality_report<D>(nodes, &q, options);
    }
  }
  return io::quality_report<D>(nodes, nullptr, options);
}

// Boundary nodes per part, by id (index id - 1), with the file's part names where it has them.
struct PartCount {
  std::string name;
  std::size_t nodes = 0;
};
std::vector<PartCount> part_counts(const io::NodeArrays& nodes, const io::RunMetadata& metadata,
                                   const std::filesystem::path& file) {
  std::vector<PartCount> parts;
  if (const std::string* text = io::find_string(metadata, "boundary_names")) {
    const nlohmann::json names = nlohmann::json::parse(*text, nullptr, false);
    if (names.is_array())
      for (const auto& n : names) parts.push_back({n.is_string() ? n.get<std::string>() : std::string(), 0});
  }
  const std::size_t named = parts.size();
  for (std::int32_t t : nodes.types) {
    if (t >= 0) continue;
    const auto id = static_cast<std::size_t>(-static_cast<std::int64_t>(t));
    // Bounded by the names, or without them by the nodes: a crafted id must not size the table.
    if (named > 0 && id > named)
      throw InputError(file.string(), "/domain/types", "boundary id " + std::to_string(id) + " has no name: the file's "
                                                       "boundary_names lists " + std::to_string(named) + " parts");
    if (id > nodes.types.size())
      throw InputError(file.string(), "/domain/types", "boundary id " + std::to_string(id) + " is above the node count");
    if (id > parts.size()) parts.resize(id);
    ++parts[id - 1].nodes;
  }
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (parts[i].name.empty()) parts[i].name = std::to_string(i + 1);
  return parts;
}

// The report on stdout, as text or JSON.
void print_report(const std::filesystem::path& file, bool json, const io::NodeArrays& nodes, bool with_domain,
                  const std::string& fingerprint, const io::QualityReport& r, const std::vector<PartCount>& parts) {
  if (json) {
    nlohmann::json part_list = nlohmann::json::array();
    for (std::size_t i = 0; i < parts.size(); ++i)
      part_list.push_back({{"id", i + 1}, {"name", parts[i].name}, {"nodes", parts[i].nodes}});
    const nlohmann::json out = {
        {"file", file.string()},
        {"dim", nodes.dim},
        {"nodes", r.nodes},
        {"nodes_sha256", fingerprint},
        {"boundary_nodes", r.boundary_nodes},
        {"interior_nodes", r.interior_nodes},
        {"nn_over_h", {{"min", r.nn_over_h.min}, {"mean", r.nn_over_h.mean}, {"max", r.nn_over_h.max}}},
        {"packing_density", r.packing_density},  // NaN (no domain) dumps as null
        {"measure", r.measure},
        {"holes", {{"mean", r.holes.mean}, {"p999", r.holes.p999}, {"max", r.holes.max}, {"samples", r.holes.samples},
                   {"drawn", r.holes.drawn}}},
        {"parts", part_list},
    };
    std::printf("%s\n", out.dump(2).c_str());
    return;
  }
  std::printf("file        %s\n", file.c_str());
  std::printf("sha256      %s   (nodes_sha256: the /domain arrays)\n", fingerprint.c_str());
  std::printf("nodes       %zu (%zu boundary, %zu interior), %dD\n", r.nodes, r.boundary_nodes, r.interior_nodes,
              nodes.dim);
  for (std::size_t i = 0; i < parts.size(); ++i)
    std::printf("%s%-4zu %s: %zu nodes\n", i == 0 ? "parts       " : "            ", i + 1, printable(parts[i].name).c_str(),
                parts[i].nodes);
  if (r.nodes >= 2)
    std::printf("nn / h      min %.4f  mean %.4f  max %.4f   (nearest other node / h at the node)\n", r.nn_over_h.min,
                r.nn_over_h.mean, r.nn_over_h.max);
  else
    std::printf("nn / h      -   (fewer than 2 nodes: no nearest other node)\n");
  if (with_domain) {
    // "-" where there is nothing to measure (no nodes, or no sample inside), as for nn / h above.
    auto num = [](double v, const char* format = "%.4f") {
      char buf[32];
      std::snprintf(buf, sizeof buf, format, v);
      return std::isfinite(v) ? std::string(buf) : std::string("-");
    };
    std::printf("packing     %s   (balls of diameter h / %s %s; densest possible %s)\n", num(r.packing_density).c_str(),
                nodes.dim == 2 ? "area" : "volume", num(r.measure, "%.6g").c_str(),
                nodes.dim == 2 ? "0.907, hexagonal" : "0.740, fcc");
    std::printf("holes / h   mean %s  p99.9 %s  max %s   (%zu random points of the domain to the nearest node)\n",
                num(r.holes.mean).c_str(), num(r.holes.p999).c_str(), num(r.holes.max).c_str(), r.holes.samples);
  }
}

}  // namespace

int stats_command(const std::filesystem::path& file, bool json, std::size_t samples) {
  const io::StoredDiscretization stored = io::read_hdf5(file);
  const io::NodeArrays& nodes = stored.nodes;
  if (nodes.h.size() != nodes.node_count())
    throw InputError(file.string(), "/domain/h", "missing: stats needs h at every node (not a nodegen file?)");
  for (std::size_t i = 0; i < nodes.h.size(); ++i)
    if (!std::isfinite(nodes.h[i]) || !(nodes.h[i] > 0))
      throw InputError(file.string(), "/domain/h", "h = " + std::to_string(nodes.h[i]) + " at node " + std::to_string(i) +
                                                       " is not positive and finite");
  std::string warning;
  const auto domain = stored_domain(file, stored.metadata, nodes.dim, warning);
  const std::string fingerprint = io::nodes_sha256(nodes);

  io::QualityOptions options;
  options.threads = cpus_allowed();
  options.samples = samples > 0 ? samples
                                : std::clamp<std::size_t>(nodes.node_count(), 100'000, 10'000'000);
  io::QualityReport r;
  try {
    r = nodes.dim == 2 ? measure<2>(nodes, domain, options) : measure<3>(nodes, domain, options);
  } catch (const std::length_error&) {
    // The k-d tree's depth limit: more than a leaf's worth of nodes closer than double precision
    // separates (fewer coincident nodes simply give nn / h = 0).
    throw InputError(file.string(), "/domain/pos", "dozens of nodes share one position (coincident nodes): not a node set "
                                                   "a fill produces");
  }

  // A thin domain can fill so little of its bounding box that the bounded draws find fewer samples.
  std::string few_samples;
  if (domain && r.nodes > 0 && r.holes.samples < options.samples)
    few_samples = "nodegen: warning: " + file.string() + ": holes: only " + std::to_string(r.holes.samples) + " of the " +
                  std::to_string(options.samples) + " samples asked for fell inside the domain in " +
                  std::to_string(r.holes.drawn) + " random points of its bounding box; measure, packing and holes are less precise";
  print_report(file, json, nodes, domain.has_value(), fingerprint, r, part_counts(nodes, stored.metadata, file));
  // The warnings follow a report that reached stdout: where it did not, its error is the one line.
  require_stdout_written();
  for (const std::string& line : {warning, few_samples})
    if (!line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
  return 0;
}

}  // namespace nodegen::cli
