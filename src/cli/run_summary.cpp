#include "run_summary.hpp"

#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "nodegen/parallel/cpu_affinity.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "nodegen/input/node_target.hpp"

namespace nodegen::cli {

namespace {

std::string human_bytes(std::size_t bytes) {
  char buf[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  else std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
  return buf;
}

}  // namespace

void print_summary(const RunArgs& args, const DomainFile& domain, std::string_view backend, const RunTotals& totals,
                   const std::filesystem::path& output) {
  if (args.quiet) return;
  std::FILE* out = report_to_stdout(args) ? stderr : stdout;
  const std::string backend_text(backend);
  std::fprintf(out, "nodegen: %zu nodes (%zu boundary, %zu interior) in %.2f s (fill %.2f s, %.3g nodes/s, %d thread%s, %s), "
              "peak memory %s -> %s\nnodes_sha256 %s\n",
              totals.nodes, totals.boundary, totals.nodes - totals.boundary, totals.seconds, totals.fill_seconds,
              totals.nodes_per_second(), args.threads, args.threads == 1 ? "" : "s", backend_text.c_str(),
              human_bytes(totals.peak_rss_bytes).c_str(), output.string().c_str(), totals.fingerprint.c_str());
  if (domain.target_nodes)
    std::fprintf(out, "nodegen: spacing x %.6g for %zu nodes (%s%d fill%s)\n", totals.spacing_factor,
                 *domain.target_nodes, args.nodes ? "--nodes; " : "fill.nodes; ", totals.target_fills,
                 totals.target_fills == 1 ? "" : "s");
  if (totals.ranks.size() > 1)
    std::fprintf(out, "nodegen: %zu ranks: %.0f to %.0f nodes each (load imbalance %.3f), the largest peak memory above\n",
                totals.ranks.size(), totals.least_rank_nodes(), totals.most_rank_nodes(), totals.load_imbalance());
  for (const std::string& repair : domain.repairs) std::fprintf(out, "nodegen: %s\n", printable(repair).c_str());
}

void print_dry_run(const RunArgs& args, const DomainFile& domain) {
  std::printf("nodegen: %s: %dD, about %.0f nodes (%.0f inside, %.0f on the boundary) at spacing %s, cap %zu\n",
              args.domain.string().c_str(), domain.dim, estimated_node_count(domain), domain.expected_interior,
              domain.expected_boundary, domain.spacing.brief().c_str(), domain.fill.max_nodes);
  if (domain.target_nodes)
    std::printf("nodegen: %zu nodes asked for: spacing x %.6g (from the estimate; the run refines it)\n",
                *domain.target_nodes, estimated_spacing_factor(domain, *domain.target_nodes));
  const std::vector<std::string> names =
      std::visit([](const auto& d) { return d->boundary_names(); }, domain.domain);
  std::printf("nodegen: %zu boundary part%s:\n", names.size(), names.size() == 1 ? "" : "s");
  for (std::size_t i = 0; i < names.size(); ++i) std::printf("  %zu  %s\n", i + 1, printable(names[i]).c_str());
  for (const std::string& repair : domain.repairs) std::printf("nodegen: %s\n", printable(repair).c_str());
}

void warn_if_threads_share_cpus(int threads) {
  if (cpus_allowed() < threads && cpus_allowed() < cpus_in_machine())
    std::fprintf(stderr, "nodegen: warning: --threads %d, but this process may run on %d of the machine's %d CPUs (its CPU "
                         "affinity: an MPI launcher's binding, taskset or a batch system), so the threads share them; "
                         "under mpirun give each rank its cores: --bind-to none, or --map-by slot:PE=%d\n",
                 threads, cpus_allowed(), cpus_in_machine(), threads);
}

void warn_if_no_interior(const RunArgs& args, const DomainFile& domain, const RunTotals& totals) {
  if (args.boundary_only || totals.nodes != totals.boundary) return;  // none were asked for, or some placed
  std::fprintf(stderr, "nodegen: warning: %s: spacing: no interior nodes were placed (h = %s is as wide as the "
                       "domain, or wider); the output holds only the %zu boundary node%s\n",
               args.domain.string().c_str(), domain.spacing.brief().c_str(), totals.boundary,
               totals.boundary == 1 ? "" : "s");
}

}  // namespace nodegen::cli
