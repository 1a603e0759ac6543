#include "run_command.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "nodegen/fill/fill.hpp"
#include "nodegen/geometry/domain_file.hpp"
#include "nodegen/io/pending_file.hpp"
#include "nodegen/io/xdmf_writer.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "cpu_affinity.hpp"
#include "progress_bar.hpp"
#include "remove_on_signal.hpp"
#include "resource_usage.hpp"
#include "run_output.hpp"
#include "stdout_check.hpp"
#include "thread_start.hpp"
#ifdef NODEGEN_WITH_MPI
#include "nodegen/mpi/agreement.hpp"
#include "nodegen/mpi/fill_exchange.hpp"
#include "nodegen/mpi/session.hpp"
#endif

namespace nodegen::cli {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// A flat view of the fill's vectors (Vec<D> is D packed doubles) with h evaluated in parallel, block
// by block, with one Spacing evaluator per thread (muparser evaluators are not thread-safe), each made
// by its thread (Spacing::evaluators).
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

// Writes the report's temporary (committed with the outputs, after everything is written).
void write_report(const io::PendingFile& file, const nlohmann::json& report) {
  std::ofstream out(file.temp_path());
  out << report.dump(2) << '\n';
  out.close();
  if (!out) throw InputError(file.final_path().string(), "report", "cannot write it");
}

// The names of the boundary ids as a JSON array: element k - 1 names id k (as types holds -k).
nlohmann::json boundary_names(const DomainFile& domain) {
  return std::visit([](const auto& d) { return nlohmann::json(d->boundary_names()); }, domain.domain);
}

std::string human_bytes(std::size_t bytes) {
  char buf[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  else std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
  return buf;
}

// The default output folder, made on demand and removed again (if still empty) when the run fails,
// so a failed run leaves nothing behind.
class CreatedDirectory {
 public:
  CreatedDirectory() = default;
  explicit CreatedDirectory(const fs::path& dir) {
    std::error_code ec;
    if (!dir.empty() && !fs::exists(dir, ec) && fs::create_directories(dir, ec)) dir_ = dir;
  }
  CreatedDirectory(CreatedDirectory&& o) noexcept : dir_(std::exchange(o.dir_, {})) {}
  CreatedDirectory& operator=(CreatedDirectory&& o) noexcept {
    dir_ = std::exchange(o.dir_, {});
    return *this;
  }
  ~CreatedDirectory() {
    std::error_code ec;
    if (!dir_.empty()) fs::remove(dir_, ec);  // removes only an empty directory
  }
  void keep() { dir_.clear(); }

 private:
  fs::path dir_;
};

// Runs f on this process; under MPI every rank runs it and they agree on its outcome, so a step that
// fails on one rank (a file only it cannot read) ends all of them with that error instead of leaving
// the others waiting in the next collective call.
template <class F>
void on_every_rank([[maybe_unused]] const mpi::Session* session, F&& f) {
#ifdef NODEGEN_WITH_MPI
  if (session) return mpi::agreed(session->comm(), std::forward<F>(f));
#endif
  f();
}

int rank_of([[maybe_unused]] const mpi::Session* session) {
#ifdef NODEGEN_WITH_MPI
  if (session) return session->rank();
#endif
  return 0;
}

// Where this process's rows go in the file (the fill's share of them).
io::FileSlabs slabs_of(const RowShare& share, std::size_t local_boundary) {
  std::vector<io::RowRun> runs;
  for (const auto& [first, count] : share.runs) runs.push_back({first, count});
  return {io::RowRuns(std::move(runs)), io::RowRuns(std::vector<io::RowRun>{{share.boundary_first, local_boundary}}),
          share.total_nodes, share.total_boundary};
}

// The slowest rank's times, on every rank (the file's metadata must be the same on all of them).
void slowest([[maybe_unused]] const mpi::Session* session, [[maybe_unused]] std::vector<double>& seconds) {
#ifdef NODEGEN_WITH_MPI
  if (session) session->max(seconds);
#endif
}

// The figures of every rank, on rank 0 (one process: its own).
struct RankFigures {
  double nodes, fill_seconds, bytes_sent, nodes_sent, largest_phase_bytes, nodes_received, peak_rss_bytes;
};
std::vector<RankFigures> gather_figures([[maybe_unused]] const mpi::Session* session, const RankFigures& mine) {
  static_assert(sizeof(RankFigures) == 7 * sizeof(double));
#ifdef NODEGEN_WITH_MPI
  if (session) {
    const double* m = &mine.nodes;
    const std::vector<double> all = session->gather(std::vector<double>(m, m + 7));
    std::vector<RankFigures> out(all.size() / 7);
    for (std::size_t r = 0; r < out.size(); ++r) {
      const double* a = all.data() + 7 * r;
      out[r] = {a[0], a[1], a[2], a[3], a[4], a[5], a[6]};
    }
    return out;
  }
#endif
  return {mine};
}

}  // namespace

fs::path default_output_for(const fs::path& domain) {
  return fs::path("output") / domain.filename().replace_extension(".h5");
}

// Ranks that read different domain files, meshes or options would fill different domains and meet
// in collectives of different sizes (a hang, or a crash: launched with mpirun's MPMD form in other
// working folders, say). Every rank compares what fixes its nodes with rank 0's: the domain file's
// text, the seed and the node cap, and the size of each file the domain refers to.
void refuse_ranks_reading_different_inputs([[maybe_unused]] const RunArgs& args, [[maybe_unused]] const DomainFile& domain) {
#ifdef NODEGEN_WITH_MPI
  if (!args.mpi || args.mpi->size() == 1) return;
  std::string inputs = domain.text;
  inputs += '\0' + std::to_string(domain.fill.seed) + ' ' + std::to_string(domain.fill.max_nodes);
  for (const fs::path& in : domain.inputs) {
    std::error_code ec;
    inputs += ' ' + std::to_string(fs::file_size(in, ec));
  }
  if (!mpi::same_on_every_rank(args.mpi->comm(), inputs))
    throw InputError(args.domain.string(), "ranks",
                     "the ranks read different domain files, meshes or options: every rank must run the same ones "
                     "(relative paths are resolved in each rank's working folder)");
#endif
}

// Rank 0 creates the temporaries; every rank removes them on a signal. When one rank dies, mpirun ends
// the others with SIGTERM, so a rank 0 killed outright (SIGKILL, the out-of-memory killer) leaves
// nothing behind: another rank's handler removes its files. Absolute paths, for ranks started in other
// working folders; a rank that does not see them removes nothing.
void share_rank_zeros_temporaries([[maybe_unused]] const RunArgs& args, [[maybe_unused]] std::vector<fs::path>& temporaries) {
#ifdef NODEGEN_WITH_MPI
  if (!args.mpi || args.mpi->size() == 1) return;
  std::string joined;  // NUL-separated: no path holds one
  for (const fs::path& p : temporaries) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(p, ec);
    joined.append((ec ? p : absolute).string()).push_back('\0');
  }
  mpi::broadcast(args.mpi->comm(), 0, joined);
  temporaries.clear();
  for (std::size_t at = 0, end; (end = joined.find('\0', at)) != std::string::npos; at = end + 1)
    temporaries.emplace_back(joined.substr(at, end - at));
#endif
}

// The run's outputs (the HDF5 file, its XDMF sidecar, the report) must not replace the domain file, a
// file it reads (a mesh, a polygon's point file) or each other: `-o square.json` would otherwise write
// HDF5 over the domain file it has just read.
void refuse_overwriting_inputs(const RunArgs& args, const DomainFile& domain, const fs::path& output) {
  // Each path resolved once (symbolic links, "..", the current folder); one that cannot be resolved
  // matches nothing. Made absolute first: weakly_canonical leaves a relative path none of whose parts
  // exists as it is, so "o.h5" and "./o.h5" (a report over the output) compared unequal.
  auto canonical = [](const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
    return ec ? fs::path() : c;
  };
  auto same = [](const fs::path& a, const fs::path& b) { return !a.empty() && a == b; };
  // The sidecar goes beside the file the output resolves to (through a symbolic link), as OutputFiles puts it.
  const fs::path out = canonical(output), sidecar = canonical(io::xdmf_path_for(out.empty() ? output : out));
  const fs::path report = args.report ? canonical(*args.report) : fs::path();
  std::vector<fs::path> inputs = domain.inputs;
  inputs.insert(inputs.begin(), args.domain);
  for (const fs::path& in : inputs) {
    const std::string what = in == args.domain ? "the domain file " : "a file the domain reads, ";
    const fs::path c = canonical(in);
    if (same(c, out) || same(c, sidecar))
      throw InputError(output.string(), "output", "would overwrite " + what + in.string() + "; give another -o");
    if (same(c, report))
      throw InputError(args.report->string(), "report", "would overwrite " + what + in.string() + "; give another path");
  }
  if (same(report, out) || same(report, sidecar))
    throw InputError(args.report->string(), "report", "would overwrite the run's output; give another path");
}

int run_command(const RunArgs& args) {
  const auto start = Clock::now();
  if (args.threads < 1) throw InputError("--threads", "value", "must be at least 1");
  if (args.threads > kMaxThreads)
    throw InputError("--threads", "value", "must be at most " + std::to_string(kMaxThreads) + " (this machine has " +
                                               std::to_string(std::thread::hardware_concurrency()) + " hardware threads)");
  Backend backend;
  try {
    backend = parse_backend(args.backend);
  } catch (const std::invalid_argument& e) {
    throw InputError("--backend", "value", e.what());
  }
  // Only the VM store has these; taken silently by another backend they would be recorded as used.
  if (backend != Backend::vm && (args.prefault || args.huge_pages))
    throw InputError(args.prefault ? "--prefault" : "--huge-pages", "backend",
                     std::string("applies to the vm backend only, not ") + std::string(backend_name(backend)));

  const bool root = rank_of(args.mpi) == 0;  // prints, and writes the report
  std::optional<DomainFile> loaded;
  fs::path output = args.output ? *args.output : default_output_for(args.domain);
  // Before any work: the sidecar names the HDF5 file, and a name XML cannot hold would make it unreadable.
  if (const std::string why = io::xdmf_unnameable_reason(output.filename().string()); !why.empty())
    throw InputError(output.string(), "output", "its file name " + why + ", and the XDMF sidecar names it; give another -o");
  on_every_rank(args.mpi, [&] {
    require_threads_start(args.threads);
    start_openmp_team(args.threads);
    loaded.emplace(load_domain_file(args.domain, args.max_nodes));
    refuse_overwriting_inputs(args, *loaded, output);
  });
  DomainFile& domain = *loaded;
  if (args.seed) domain.fill.seed = *args.seed;
  refuse_ranks_reading_different_inputs(args, domain);

  // Reserve the output files before filling, so a bad output path fails now and not after the fill.
  // A signal from here on is held until the temporaries are registered for removal.
  RemoveOnSignal interrupted;
  CreatedDirectory made_here;
  if (!args.output && root) made_here = CreatedDirectory(output.parent_path());  // only the default folder is made
  RunOutput files(output, args.mpi);
  std::optional<io::PendingFile> report_file;
  on_every_rank(args.mpi, [&] {
    if (args.report && root) report_file.emplace(*args.report, "report");
  });
  std::vector<fs::path> temporaries = files.temporaries();
  if (report_file) temporaries.push_back(report_file->temp_path());
  share_rank_zeros_temporaries(args, temporaries);
  interrupted.register_files(temporaries);

  // A binding narrower than the threads asked for (mpirun binds each of one or two ranks to one core)
  // makes the threads take turns on it: say so, with the launcher's way out.
  if (root && cpus_allowed() < args.threads && cpus_allowed() < cpus_in_machine())
    std::fprintf(stderr, "nodegen: warning: --threads %d, but this process may run on %d of the machine's %d CPUs (its CPU "
                         "affinity: an MPI launcher's binding, taskset or a batch system), so the threads share them; "
                         "under mpirun give each rank its cores: --bind-to none, or --map-by slot:PE=%d\n",
                 args.threads, cpus_allowed(), cpus_in_machine(), args.threads);
  std::atomic<std::size_t> placed{0};
  FillOptions options;
  options.threads = args.threads;
  options.backend = backend;
  options.prefault = args.prefault;
  options.huge_pages = args.huge_pages;
  options.progress = &placed;
#ifdef NODEGEN_WITH_MPI
  std::optional<mpi::FillExchange> exchange;
  if (args.mpi && args.mpi->size() > 1) options.exchange = &exchange.emplace(args.mpi->comm());
#endif

  AnyDiscretization result = [&] {
    // Under several ranks a rank counts only its own nodes: no bar.
    ProgressBar bar(placed, !args.quiet && !options.exchange);
    try {
      return fill_domain(domain, options);
    } catch (const SpacingFault& e) {
      throw InputError(args.domain.string(), "spacing", e.what());
    } catch (const StoreFull& e) {
      // The fill's message already names the cap; other stores' messages get the CLI's prefix.
      const std::string what = e.what();
      throw InputError(args.domain.string(), "fill.max_nodes",
                       what.starts_with("node cap") ? what
                                                    : "node cap of " + std::to_string(domain.fill.max_nodes) +
                                                          " reached: " + what + " (raise it with --max-nodes)");
    }
  }();

  // The whole's figures (one process holds the whole): the fill's time is the slowest rank's.
  const RowShare& share = std::visit([](const auto& d) -> const RowShare& { return d.share; }, result);
  const std::size_t nodes = share.total_nodes;
  const std::size_t boundary = share.total_boundary;
  // A shape smaller than the spacing, or than its coordinates resolve (a mesh whose vertices round to
  // one point), gives neither boundary nor interior nodes: an empty file would only hide that.
  if (nodes == 0)
    throw InputError(args.domain.string(), "shape",
                     "no nodes were placed: the shape is empty at this spacing (smaller than h = " +
                         domain.spacing.brief() + ", or than its coordinates resolve)");
  const std::size_t local_nodes = std::visit([](const auto& d) { return d.positions.size(); }, result);
  const std::size_t local_boundary = std::visit([](const auto& d) { return d.boundary_count; }, result);
  const double local_fill_seconds = std::visit([](const auto& d) { return d.fill_seconds; }, result);
  RankFigures mine{static_cast<double>(local_nodes), local_fill_seconds, static_cast<double>(share.bytes_sent),
                   static_cast<double>(share.nodes_sent), static_cast<double>(share.largest_phase_bytes),
                   static_cast<double>(share.nodes_received), 0.0};
  std::vector<double> times = {local_fill_seconds, std::visit([](const auto& d) { return d.boundary_seconds; }, result),
                               seconds_since(start)};
  slowest(args.mpi, times);
  const double fill_seconds = times[0], boundary_seconds = times[1], seconds_before_write = times[2];
  const double rate = fill_seconds > 0 ? static_cast<double>(nodes) / fill_seconds : 0.0;

  const io::RunMetadata metadata = {
      {"nodegen_version", std::string(NODEGEN_VERSION)},
      {"created_utc", utc_now()},
      {"domain_file", fs::absolute(args.domain).lexically_normal().string()},
      {"domain_file_text", domain.text},
      {"dim", std::int64_t{domain.dim}},
      {"spacing", domain.spacing.describe()},
      {"seed", static_cast<std::int64_t>(domain.fill.seed)},
      {"candidates", std::int64_t{domain.fill.candidates}},
      {"max_nodes", static_cast<std::int64_t>(domain.fill.max_nodes)},
      {"threads", std::int64_t{args.threads}},
      {"backend", std::string(backend_name(backend))},
      {"prefault", std::int64_t{args.prefault}},
      {"huge_pages", std::int64_t{args.huge_pages}},
      {"boundary_nodes", static_cast<std::int64_t>(boundary)},
      {"boundary_names", boundary_names(domain).dump()},
      {"fill_seconds", fill_seconds},
      {"boundary_seconds", boundary_seconds},
      {"seconds_before_write", seconds_before_write},
  };
  std::vector<Spacing::Evaluator> evaluators;
  const std::string fingerprint = std::visit(
      [&](const auto& d) {
        return files.write(view_of(d, domain.spacing, args.threads, evaluators), slabs_of(share, local_boundary), metadata);
      },
      result);

  const double seconds = seconds_since(start);
  const ResourceUsage usage = current_resource_usage();
  mine.peak_rss_bytes = static_cast<double>(usage.peak_rss_bytes);
  const std::vector<RankFigures> ranks = gather_figures(args.mpi, mine);
  // Per rank (under MPI): nodes written, fill seconds, nodes and bytes sent to other ranks, peak memory.
  nlohmann::json per_rank = nlohmann::json::array();
  double most = 0.0, sum = 0.0;
  std::size_t peak_rss = 0;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const RankFigures& f = ranks[r];
    most = std::max(most, f.nodes);
    sum += f.nodes;
    peak_rss = std::max(peak_rss, static_cast<std::size_t>(f.peak_rss_bytes));
    per_rank.push_back({{"rank", r},
                        {"nodes", static_cast<std::size_t>(f.nodes)},
                        {"fill_seconds", f.fill_seconds},
                        {"nodes_sent", static_cast<std::size_t>(f.nodes_sent)},
                        {"bytes_sent", static_cast<std::size_t>(f.bytes_sent)},
                        {"largest_phase_bytes_sent", static_cast<std::size_t>(f.largest_phase_bytes)},
                        {"nodes_received", static_cast<std::size_t>(f.nodes_received)},
                        {"peak_rss_bytes", static_cast<std::size_t>(f.peak_rss_bytes)}});
  }
  const double imbalance = sum > 0 ? most / (sum / static_cast<double>(ranks.size())) : 1.0;
  on_every_rank(args.mpi, [&] {
    if (!report_file) return;
    write_report(*report_file, {{"domain", args.domain.string()},
                                {"dim", domain.dim},
                                {"nodes", nodes},
                                {"boundary_nodes", boundary},
                                {"interior_nodes", nodes - boundary},
                                {"boundary_names", boundary_names(domain)},
                                {"seconds", seconds},
                                {"fill_seconds", fill_seconds},
                                {"boundary_seconds", boundary_seconds},
                                {"nodes_per_second", rate},
                                {"peak_rss_bytes", peak_rss},
                                {"minor_faults", usage.minor_faults},
                                {"backend", backend_name(backend)},
                                {"prefault", args.prefault},
                                {"huge_pages", args.huge_pages},
                                {"threads", args.threads},
                                {"seed", domain.fill.seed},
                                {"nodes_sha256", fingerprint},
                                {"reserved_nodes", std::visit([](const auto& d) { return d.reserved_nodes; }, result)},
                                {"fill_runs", std::visit([](const auto& d) { return d.fill_runs; }, result)},
                                {"ranks", per_rank},
                                {"load_imbalance", imbalance},
                                {"repairs", domain.repairs},
                                {"output", files.h5_path().string()}});
  });
  // The summary is printed, and stdout checked, before the files replace older ones: a summary lost to
  // a full disk or a closed pipe is the run's error (exit 2), and it must then leave no new output
  // behind (it had left them committed; a SIGPIPE now kills the run with its temporaries removed).
  on_every_rank(args.mpi, [&] {
    if (!root) return;
    if (!args.quiet) {
      std::printf("nodegen: %zu nodes (%zu boundary, %zu interior) in %.2f s (fill %.2f s, %.3g nodes/s, %d thread%s, %s), "
                  "peak memory %s -> %s\nnodes_sha256 %s\n",
                  nodes, boundary, nodes - boundary, seconds, fill_seconds, rate, args.threads,
                  args.threads == 1 ? "" : "s", backend_name(backend), human_bytes(peak_rss).c_str(),
                  output.string().c_str(), fingerprint.c_str());
      if (ranks.size() > 1)
        std::printf("nodegen: %zu ranks: %.0f to %.0f nodes each (load imbalance %.3f), the largest peak memory above\n",
                    ranks.size(), std::min_element(ranks.begin(), ranks.end(), [](auto& a, auto& b) { return a.nodes < b.nodes; })->nodes,
                    most, imbalance);
      for (const std::string& repair : domain.repairs) std::printf("nodegen: mesh %s\n", repair.c_str());
    }
    require_stdout_written();
  });
  // Every file is written; only now do they replace older ones, together (so a report that fails to
  // write cannot leave the new output in place while the run exits with an error).
  files.commit();
  on_every_rank(args.mpi, [&] {
    if (!report_file) return;
    try {
      report_file->commit();
    } catch (...) {
      files.remove_committed();
      throw;
    }
  });
  made_here.keep();
  // The run succeeded, but a spacing as wide as the domain leaves nothing inside it (a ball smaller
  // than h becomes one node): say so even with --quiet, since the file alone would not tell.
  if (root && nodes == boundary)
    std::fprintf(stderr, "nodegen: warning: %s: spacing: no interior nodes were placed (h = %s is as wide as the "
                         "domain, or wider); the output holds only the %zu boundary node%s\n",
                 args.domain.string().c_str(), domain.spacing.brief().c_str(), boundary, boundary == 1 ? "" : "s");
  return 0;
}

}  // namespace nodegen::cli
