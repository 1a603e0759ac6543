#include "run_metadata.hpp"

#include <span>
#include <string>

#include "nodegen/parallel/thread_team.hpp"
#include "run_report.hpp"

namespace nodegen::cli {

template <int D>
io::NodeArraysView view_of(const Discretization<D>& disc, const Spacing& spacing, int threads,
                           std::vector<Spacing::Evaluator>& evaluators) {
  static_assert(sizeof(Vec<D>) == D * sizeof(double), "Vec<D> must be D packed doubles");
  io::NodeArraysView v;
  v.dim = D;
  v.positions = std::span<const double>(disc.positions.empty() ? nullptr : disc.positions.front().data(),
                                        disc.positions.size() * D);
  v.types = disc.types;
  v.bmap = disc.bmap;
  v.normals = std::span<const double>(disc.normals.empty() ? nullptr : disc.normals.front().data(),
                                      disc.normals.size() * D);
  evaluators = spacing.evaluators(threads);
  v.spacing_at = [&disc, &evaluators, threads](std::size_t first, std::span<double> out) {
    parallel_for(out.size(), threads, [&](int tid, std::size_t i) {
      out[i] = evaluators[static_cast<std::size_t>(tid)](disc.positions[first + i]);
    });
  };
  return v;
}

template io::NodeArraysView view_of<2>(const Discretization<2>&, const Spacing&, int, std::vector<Spacing::Evaluator>&);
template io::NodeArraysView view_of<3>(const Discretization<3>&, const Spacing&, int, std::vector<Spacing::Evaluator>&);

io::RunMetadata run_metadata(const RunArgs& args, const DomainFile& domain, std::string_view backend,
                             const RunTotals& totals, double seconds_before_write) {
  namespace fs = std::filesystem;
  return {
      {"nodegen_version", std::string(NODEGEN_VERSION)},
      {"created_utc", io::utc_timestamp()},
      {"domain_file", fs::absolute(args.domain).lexically_normal().string()},
      {"domain_file_text", domain.text},
      {"dim", std::int64_t{domain.dim}},
      {"spacing", domain.spacing.describe()},
      {"spacing_factor", totals.spacing_factor},
      {"seed", static_cast<std::int64_t>(domain.fill.seed)},
      {"candidates", std::int64_t{domain.fill.candidates}},
      {"max_nodes", static_cast<std::int64_t>(domain.fill.max_nodes)},
      {"threads", std::int64_t{args.threads}},
      {"supports", std::int64_t{args.supports}},
      {"backend", std::string(backend)},
      {"prefault", std::int64_t{args.prefault}},
      {"huge_pages", std::int64_t{args.huge_pages}},
      {"boundary_nodes", static_cast<std::int64_t>(totals.boundary)},
      {"boundary_names", boundary_names(domain).dump()},
      {"fill_seconds", totals.fill_seconds},
      {"boundary_seconds", totals.boundary_seconds},
      {"seconds_before_write", seconds_before_write},
  };
}

}  // namespace nodegen::cli
