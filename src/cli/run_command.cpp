// `nodegen run`: the steps of a run in order; each step's details live in the file named beside it.
#include "run_command.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "nodegen/geometry/spacing_fault.hpp"
#include "nodegen/input/fill_domain.hpp"
#include "nodegen/input/node_target.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/input/domain_file.hpp"
#include "nodegen/spatial/nearest_supports.hpp"
#include "progress_bar.hpp"
#include "rank_parts.hpp"
#include "resource_usage.hpp"
#include "run_checks.hpp"
#include "run_metadata.hpp"
#include "run_outputs.hpp"
#include "run_paths.hpp"
#include "run_report.hpp"
#include "run_summary.hpp"
#include "stdout_check.hpp"
#include "thread_start.hpp"
#ifdef NODEGEN_WITH_MPI
#include "nodegen/mpi/fill_exchange.hpp"
#endif

namespace nodegen::cli {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The threads are started and the domain file loaded on every rank, which agree on the outcome.
DomainFile load_on_every_rank(const RunArgs& args, const fs::path& output) {
  LoadOptions load;
  load.max_nodes = args.max_nodes;
  load.overrides = args.overrides;
  if (args.nodes) load.overrides.push_back("fill.nodes=" + std::to_string(*args.nodes));
  // Several ranks read sample and CAD files in-process: a child forked from an MPI process is not
  // welcome to every MPI library.
  load.isolate_reads = rank_count(args.mpi) == 1;
  std::optional<DomainFile> loaded;
  on_every_rank(args.mpi, [&] {
    require_threads_start(args.threads);
    start_openmp_team(args.threads);
    loaded.emplace(load_domain_file(args.domain, load));
    const std::optional<fs::path> report = report_to_stdout(args) ? std::nullopt : args.report;
    refuse_overwriting_inputs(args.domain, *loaded, output, report);
  });
  if (args.seed) loaded->fill.seed = *args.seed;
  on_every_rank(args.mpi, [&] { refuse_ranks_reading_different_inputs(args.mpi, args.domain, *loaded); });
  return std::move(*loaded);
}

// Boundary and interior nodes (to the target count when there is one), with progress; the fill's
// errors become input errors of the domain file's fields.
TargetedFill fill(const RunArgs& args, DomainFile& domain, FillOptions options) {
  std::atomic<std::size_t> placed{0};
  options.progress = &placed;
#ifdef NODEGEN_WITH_MPI
  std::optional<mpi::FillExchange> exchange;
  if (args.mpi && args.mpi->size() > 1) options.exchange = &exchange.emplace(args.mpi->comm());
#endif
  // Under several ranks a rank counts only its own nodes: no progress.
  const double expected = domain.target_nodes ? static_cast<double>(*domain.target_nodes) : estimated_node_count(domain);
  ProgressBar bar(placed, !args.quiet && !options.exchange, expected);
  return fill_as_asked(domain, options);
}

// The whole's counts and the slowest rank's times, known once every rank has filled.
RunTotals totals_after_fill(const RunArgs& args, const DomainFile& domain, const TargetedFill& filled,
                            RankFigures& mine, double& seconds_before_write, Clock::time_point start) {
  const AnyDiscretization& result = filled.nodes;
  RunTotals totals;
  totals.spacing_factor = filled.factor;
  totals.target_fills = filled.fills;
  std::visit(
      [&](const auto& d) {
        totals.nodes = d.share.total_nodes;
        totals.boundary = d.share.total_boundary;
        totals.reserved_nodes = d.reserved_nodes;
        totals.fill_runs = d.fill_runs;
        mine = {static_cast<double>(d.positions.size()), d.fill_seconds, static_cast<double>(d.share.bytes_sent),
                static_cast<double>(d.share.nodes_sent), static_cast<double>(d.share.largest_phase_bytes),
                static_cast<double>(d.share.nodes_received), 0.0};
      },
      result);
  // A shape smaller than the spacing, or than its coordinates resolve (a mesh whose vertices round to
  // one point), gives neither boundary nor interior nodes: an empty file would only hide that.
  if (totals.nodes == 0)
    throw InputError(args.domain.string(), "shape",
                     "no nodes were placed: the shape is empty at this spacing (smaller than h = " +
                         domain.spacing.brief() + ", or than its coordinates resolve)");
  std::vector<double> times = {mine.fill_seconds, std::visit([](const auto& d) { return d.boundary_seconds; }, result),
                               seconds_since(start)};
  slowest(args.mpi, times);
  totals.fill_seconds = times[0];
  totals.boundary_seconds = times[1];
  seconds_before_write = times[2];
  return totals;
}

// --supports K: the K nearest nodes of every node, or none.
std::vector<std::int64_t> supports_of(const RunArgs& args, const AnyDiscretization& result) {
  if (args.supports == 0) return {};
  return std::visit(
      [&](const auto& d) {
        if (static_cast<std::size_t>(args.supports) > d.positions.size())
          throw InputError("--supports", "value", std::to_string(args.supports) + " nearest nodes asked for, of " +
                                                      std::to_string(d.positions.size()) + " nodes");
        return nearest_supports<std::decay_t<decltype(d)>::kDim>(d.positions, args.supports, args.threads);
      },
      result);
}

// Streams the nodes into the output's temporaries; returns their fingerprint.
std::string write_nodes(const RunArgs& args, const DomainFile& domain, const AnyDiscretization& result,
                        RunOutput& files, const io::RunMetadata& metadata) {
  std::vector<Spacing::Evaluator> evaluators;
  const std::vector<std::int64_t> supports = supports_of(args, result);
  return std::visit(
      [&](const auto& d) {
        const RowShare& share = d.share;
        std::vector<io::RowRun> runs;
        for (const auto& [first, count] : share.runs) runs.push_back({first, count});
        const io::FileSlabs slabs{io::RowRuns(std::move(runs)),
                                  io::RowRuns(std::vector<io::RowRun>{{share.boundary_first, d.boundary_count}}),
                                  share.total_nodes, share.total_boundary};
        io::NodeArraysView view = view_of(d, domain.spacing, args.threads, evaluators);
        view.supports = supports;
        view.support_size = static_cast<std::size_t>(args.supports);
        return files.write(view, slabs, metadata);
      },
      result);
}

}  // namespace

int run_command(const RunArgs& args) {
  const auto start = Clock::now();
  const bool root = rank_of(args.mpi) == 0;  // prints, and writes the report
  const fs::path output = args.output ? *args.output : default_output_for(args.domain);
  FillOptions options;
  on_every_rank(args.mpi, [&] {
    options = checked_fill_options(args);
    refuse_unnameable_output(output);
    if (args.supports > 0 && rank_count(args.mpi) > 1)
      throw InputError("--supports", "value", "not with several MPI ranks yet (a node's nearest may lie on another "
                                              "rank's part): run on one rank");
    if (args.boundary_only && rank_count(args.mpi) > 1)
      throw InputError("--boundary-only", "value", "not with several MPI ranks yet: run on one rank");
  });
  const std::string_view backend = backend_name(options.backend);
  DomainFile domain = load_on_every_rank(args, output);
  if (args.boundary_only && domain.target_nodes)
    throw InputError(args.nodes ? "--nodes" : "fill.nodes", "value",
                     "counts a whole fill's nodes, not --boundary-only's: give the spacing instead");
  if (args.dry_run) {
    on_every_rank(args.mpi, [&] {
      if (root) print_dry_run(args, domain);
    });
    return 0;
  }
  RunOutputs outputs(args, output, root);
  if (root) warn_if_threads_share_cpus(args.threads);

  const TargetedFill filled = fill(args, domain, options);
  const AnyDiscretization& result = filled.nodes;
  RankFigures mine{};
  double seconds_before_write = 0.0;
  RunTotals totals = totals_after_fill(args, domain, filled, mine, seconds_before_write, start);
  totals.fingerprint = write_nodes(args, domain, result, outputs.files(),
                                   run_metadata(args, domain, backend, totals, seconds_before_write));

  totals.seconds = seconds_since(start);
  const ResourceUsage usage = current_resource_usage();
  mine.peak_rss_bytes = static_cast<double>(usage.peak_rss_bytes);
  totals.minor_faults = usage.minor_faults;
  totals.ranks = gather_figures(args.mpi, mine);
  for (const RankFigures& r : totals.ranks)
    totals.peak_rss_bytes = std::max(totals.peak_rss_bytes, static_cast<std::size_t>(r.peak_rss_bytes));
  on_every_rank(args.mpi, [&] {
    if (outputs.report())
      write_report(*outputs.report(), run_report(args, domain, backend, totals, outputs.files().h5_path()));
  });
  // The summary is printed, and stdout checked, before the files replace older ones: a summary lost to
  // a full disk or a closed pipe is the run's error (exit 2), and it must then leave no new output.
  on_every_rank(args.mpi, [&] {
    if (!root) return;
    if (report_to_stdout(args))
      std::printf("%s\n", run_report(args, domain, backend, totals, outputs.files().h5_path()).dump(2).c_str());
    print_summary(args, domain, backend, totals, output);
    require_stdout_written();
  });
  outputs.commit(args);
  if (root) warn_if_no_interior(args, domain, totals);
  return 0;
}

}  // namespace nodegen::cli
