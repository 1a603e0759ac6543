#include "stats_command.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/input/node_report.hpp"
#include "nodegen/io/hdf5_reader.hpp"
#include "nodegen/parallel/cpu_affinity.hpp"
#include "stdout_check.hpp"

namespace nodegen::cli {

namespace {

// The report on stdout, as text or JSON.
void print_report(const std::filesystem::path& file, bool json, int dim, const NodeReport& report) {
  const io::QualityReport& r = report.quality;
  const auto& parts = report.parts;
  const std::string& fingerprint = report.fingerprint;
  if (json) {
    std::printf("%s\n", report.to_json(file, dim).dump(2).c_str());
    return;
  }
  std::printf("file        %s\n", file.c_str());
  std::printf("sha256      %s   (nodes_sha256: the /domain arrays)\n", fingerprint.c_str());
  std::printf("nodes       %zu (%zu boundary, %zu interior), %dD\n", r.nodes, r.boundary_nodes, r.interior_nodes,
              dim);
  for (std::size_t i = 0; i < parts.size(); ++i)
    std::printf("%s%-4zu %s: %zu nodes\n", i == 0 ? "parts       " : "            ", i + 1, printable(parts[i].name).c_str(),
                parts[i].nodes);
  if (r.nodes >= 2)
    std::printf("nn / h      min %.4f  mean %.4f  max %.4f   (nearest other node / h at the node)\n", r.nn_over_h.min,
                r.nn_over_h.mean, r.nn_over_h.max);
  else
    std::printf("nn / h      -   (fewer than 2 nodes: no nearest other node)\n");
  if (report.with_domain) {
    // "-" where there is nothing to measure (no nodes, or no sample inside), as for nn / h above.
    auto num = [](double v, const char* format = "%.4f") {
      char buf[32];
      std::snprintf(buf, sizeof buf, format, v);
      return std::isfinite(v) ? std::string(buf) : std::string("-");
    };
    // Boundary nodes alone (--boundary-only): the holes are on the boundary, and there is no volume.
    const bool surface = r.interior_nodes == 0 && r.nodes > 0;
    if (!surface)
      std::printf("packing     %s   (balls of diameter h / %s %s; densest possible %s)\n", num(r.packing_density).c_str(),
                  dim == 2 ? "area" : "volume", num(r.measure, "%.6g").c_str(),
                  dim == 2 ? "0.907, hexagonal" : "0.740, fcc");
    std::printf("holes / h   mean %s  p99.9 %s  max %s   (%zu %s to the nearest node)\n", num(r.holes.mean).c_str(),
                num(r.holes.p999).c_str(), num(r.holes.max).c_str(), r.holes.samples,
                surface ? "points of the boundary at half the spacing" : "random points of the domain");
  }
}

}  // namespace

int stats_command(const std::filesystem::path& file, bool json, std::size_t samples) {
  const io::StoredDiscretization stored = io::read_hdf5(file);
  const NodeReport report = node_report(file, stored.nodes, stored.metadata, samples, cpus_allowed());
  print_report(file, json, stored.nodes.dim, report);
  // The warnings follow a report that reached stdout: where it did not, its error is the one line.
  require_stdout_written();
  for (const std::string& line : report.warnings) std::fprintf(stderr, "%s\n", line.c_str());
  return 0;
}

}  // namespace nodegen::cli
