#include "run_report.hpp"

#include <fstream>
#include <variant>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::cli {

nlohmann::json boundary_names(const DomainFile& domain) {
  return std::visit([](const auto& d) { return nlohmann::json(d->boundary_names()); }, domain.domain);
}

namespace {

// Per rank (under MPI): nodes written, fill seconds, nodes and bytes sent to other ranks, peak memory.
nlohmann::json per_rank(const RunTotals& totals) {
  nlohmann::json ranks = nlohmann::json::array();
  for (std::size_t r = 0; r < totals.ranks.size(); ++r) {
    const RankFigures& f = totals.ranks[r];
    ranks.push_back({{"rank", r},
                     {"nodes", static_cast<std::size_t>(f.nodes)},
                     {"fill_seconds", f.fill_seconds},
                     {"nodes_sent", static_cast<std::size_t>(f.nodes_sent)},
                     {"bytes_sent", static_cast<std::size_t>(f.bytes_sent)},
                     {"largest_phase_bytes_sent", static_cast<std::size_t>(f.largest_phase_bytes)},
                     {"nodes_received", static_cast<std::size_t>(f.nodes_received)},
                     {"peak_rss_bytes", static_cast<std::size_t>(f.peak_rss_bytes)}});
  }
  return ranks;
}

}  // namespace

nlohmann::json run_report(const RunArgs& args, const DomainFile& domain, std::string_view backend,
                          const RunTotals& totals, const std::filesystem::path& output) {
  return {{"domain", args.domain.string()},
          {"dim", domain.dim},
          {"nodes", totals.nodes},
          {"boundary_nodes", totals.boundary},
          {"interior_nodes", totals.nodes - totals.boundary},
          {"boundary_names", boundary_names(domain)},
          {"seconds", totals.seconds},
          {"fill_seconds", totals.fill_seconds},
          {"boundary_seconds", totals.boundary_seconds},
          {"nodes_per_second", totals.nodes_per_second()},
          {"peak_rss_bytes", totals.peak_rss_bytes},
          {"minor_faults", totals.minor_faults},
          {"backend", backend},
          {"prefault", args.prefault},
          {"huge_pages", args.huge_pages},
          {"threads", args.threads},
          {"seed", domain.fill.seed},
          {"nodes_sha256", totals.fingerprint},
          {"reserved_nodes", totals.reserved_nodes},
          {"fill_runs", totals.fill_runs},
          {"ranks", per_rank(totals)},
          {"load_imbalance", totals.load_imbalance()},
          {"repairs", domain.repairs},
          {"target_nodes", domain.target_nodes ? nlohmann::json(*domain.target_nodes) : nlohmann::json()},
          {"spacing_factor", totals.spacing_factor},
          {"target_fills", totals.target_fills},
          {"output", output.string()}};
}

void write_report(const io::PendingFile& file, const nlohmann::json& report) {
  std::ofstream out(file.temp_path());
  out << report.dump(2) << '\n';
  out.close();
  if (!out) throw InputError(file.final_path().string(), "report", "cannot write it");
}

}  // namespace nodegen::cli
