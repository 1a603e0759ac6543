// nodegen: fills a domain with nodes (parallel PNP) and writes HDF5 that Medusa and ParaView read.
// Exit status: 0 success, 2 bad input (one line "nodegen: error: FILE: FIELD: REASON"), 1 internal error.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include "nodegen/geometry/domain_file.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "nodegen/io/hdf5_writer.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "isolated_run.hpp"
#include "remove_on_signal.hpp"
#include "cpu_affinity.hpp"
#include "run_command.hpp"
#include "stdout_check.hpp"
#include "thread_stacks.hpp"
#include "thread_start.hpp"
#ifdef NODEGEN_WITH_MPI
#include <optional>

#include "nodegen/mpi/launch.hpp"
#include "nodegen/mpi/session.hpp"
#endif
#include "solve_command.hpp"
#include "stats_command.hpp"

namespace {

constexpr const char* kDescription =
    "nodegen " NODEGEN_VERSION " - fills 2D and 3D domains with scattered nodes at a prescribed spacing h(x)\n"
    "(the PNP advancing-front algorithm of Slak & Kosec, run in parallel) and writes them as HDF5.\n"
    "\n"
    "  nodegen run domains/square.json              fill, write output/square.h5 + output/square.xdmf\n"
    "  nodegen stats output/square.h5              quality report of a written file\n"
    "  nodegen solve output/square.h5              RBF-FD Poisson check of a written file\n"
    "\n"
    "Output: FILE.h5 holds group /domain in the layout Medusa's DomainDiscretization::load(hdf, \"domain\")\n"
    "reads (pos {d,N}, types, bmap, normals {d,Nb}, attribute N) plus h per node and the run's metadata\n"
    "(domain file text, seed, threads, backend, timings, version) as attributes of /domain.\n"
    "FILE.xdmf beside it opens in ParaView (File > Open, any of the XDMF readers): points with the\n"
    "arrays type (interior 1, boundary -id), h and normal. Files appear only when complete.\n"
    "\n"
    "Exit status: 0 on success, 2 on bad input (one line: nodegen: error: FILE: FIELD: REASON),\n"
    "1 on an internal error.";

// Under MPI every rank ends with the same error (mpi/agreement.hpp); only rank 0 prints it.
bool prints_errors = true;

int fail(int status, const std::string& message) {
  if (prints_errors) std::fprintf(stderr, "nodegen: error: %s\n", message.c_str());
  return status;
}

// A whole number in [lo, hi], spelled as digits (1e6 and 1.5e6 are accepted when whole), for the
// options CLI11 would otherwise wrap (an unsigned option took --seed -1 as 2^64 - 1).
std::uint64_t whole_number(const std::string& text, const char* option, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, value);
  // 1e6: as a double, if it is a whole number in range (decimal only: strtod would also read 0x10).
  if (ec == std::errc() && stop != end && text.find_first_not_of("0123456789.eE+") == std::string::npos) {
    char* dstop = nullptr;
    const double d = std::strtod(text.c_str(), &dstop);
    if (dstop == text.c_str() + text.size() && d >= 0 && d <= 1.8e19 &&  // in range before the cast
        d == static_cast<double>(static_cast<std::uint64_t>(d))) {
      value = static_cast<std::uint64_t>(d);
      ec = std::errc(), stop = end;
    }
  }
  if (ec != std::errc() || stop != end || value < lo || value > hi)
    throw nodegen::InputError(option, "value", "expected a whole number from " + std::to_string(lo) + " to " +
                                                   std::to_string(hi) + ", got " + text);
  return value;
}

// Exit status 2 when stdout could not take everything printed (stdout_check.hpp), unless the command
// already failed.
int checked_stdout(int status) {
  try {
    nodegen::cli::require_stdout_written();
  } catch (const nodegen::InputError& e) {
    return status != 0 ? status : fail(2, e.what());
  }
  return status;
}

// The whole command, on the thread run_with_stacks gives it.
int run_main(int argc, char** argv) {
  // A write past the file-size limit (ulimit -f) then fails with EFBIG and is reported as one error
  // line with the temporaries removed, instead of SIGXFSZ killing the run and leaving them behind.
  std::signal(SIGXFSZ, SIG_IGN);
  // A closed pipe on stdout (`nodegen stats f.h5 | head -1`) is then the write's error, reported as one
  // line (stdout_check.hpp), instead of SIGPIPE ending the process without one (and `stats`, whose
  // reading child it ended, blaming a signal from outside).
  std::signal(SIGPIPE, SIG_IGN);
  nodegen::io::skip_hdf5_shutdown_at_exit();
#ifdef NODEGEN_WITH_MPI
  // The MPI runtime starts only under an MPI launcher: a plain run starts none.
  std::optional<nodegen::mpi::Session> session;
  if (nodegen::mpi::launched_by_mpi()) {
    session.emplace(argc, argv);
    prints_errors = session->rank() == 0;
    nodegen::cli::say_when_interrupted(prints_errors);
  }
#endif
  CLI::App app(kDescription, "nodegen");
  app.set_version_flag("--version", "nodegen " NODEGEN_VERSION, "Print the version and exit");
  app.require_subcommand(1);
  app.footer("Run 'nodegen run --help', 'nodegen stats --help' or 'nodegen solve --help' for the options of each command.");

  nodegen::cli::RunArgs run;
  run.threads = std::clamp(nodegen::cli::cpus_allowed(), 1, nodegen::cli::kMaxThreads);
  std::string output, report, seed, max_nodes;
  CLI::App* run_cmd = app.add_subcommand(
      "run",
      "Fill DOMAIN.json with nodes and write FILE.h5 + FILE.xdmf. On a terminal a progress line shows nodes\n"
      "placed, nodes/s and elapsed time; at the end one summary line gives nodes (boundary/interior),\n"
      "seconds, nodes/s and peak memory. A failed run leaves no output file behind.");
  run_cmd->add_option("DOMAIN", run.domain, "Domain file (JSON; see domains/ and docs/domain-format.md)")
      ->required();
  auto* output_opt = run_cmd->add_option("-o,--output", output,
                      "Output HDF5 file; its directory must exist (default: output/<domain stem>.h5 under the "
                      "current directory, output/ made if missing). The sidecar is the same name with .xdmf");
  run_cmd->add_option("--threads", run.threads, "Worker threads, 1-1024 (default: the CPUs this process may run on)")->capture_default_str();
  run_cmd->add_option("--backend", run.backend,
                      "Node storage: vm (virtual-memory reservation, default), vector (std::vector + lock), "
                      "suballoc (bit-heap suballocator). Same algorithm and nodes, different memory behaviour")
      ->capture_default_str();
  run_cmd->add_flag("--prefault", run.prefault, "vm backend only: populate pages ahead of use (fewer page faults in the fill)");
  run_cmd->add_flag("--huge-pages", run.huge_pages, "vm backend only: ask for transparent huge pages");
  auto* seed_opt = run_cmd->add_option("--seed", seed,
                                       "Random seed, 0 to 2^63-1 (default: the domain file's, else 1); the same seed "
                                       "gives the same nodes, byte for byte, at any --threads, --backend and rank count");
  auto* cap_opt = run_cmd->add_option("--max-nodes", max_nodes,
                                      "Node cap, 1 to 2^31-1: stop with an error instead of exhausting memory when the "
                                      "spacing asks for more (default: the domain file's, else 1e8)");
  run_cmd->add_flag("-q,--quiet", run.quiet, "No progress line and no summary (errors are still printed)");
  auto* report_opt = run_cmd->add_option("--report", report,
                      "Also write a JSON report: nodes, boundary/interior, seconds, nodes/s, peak RSS, minor "
                      "page faults, backend, threads, seed, output");

  std::string stats_file;
  bool stats_json = false;
  std::string stats_samples;
  CLI::App* stats_cmd = app.add_subcommand(
      "stats",
      "Quality report of a nodegen HDF5 file: node counts; nearest-neighbour distance / h (min, mean, max);\n"
      "packing density (sum of the balls of diameter h at each node over the domain's area/volume: a PNP\n"
      "fill gives about 0.70 in 2D and 0.45 in 3D, a hexagonal lattice 0.91); holes (distance from random\n"
      "points of the domain to the nearest node, / h: mean, p99.9, max). The domain is rebuilt from the\n"
      "domain file text stored in the output.");
  stats_cmd->add_option("FILE", stats_file, "A .h5 written by nodegen run")->required();
  stats_cmd->add_flag("--json", stats_json, "Print the report as JSON");
  stats_cmd->add_option("--samples", stats_samples, "Random points for the hole metric (default: max(1e5, N), at most 1e7)");

  nodegen::cli::SolveArgs solve;
  solve.options.threads = run.threads;
  std::string solve_seeds, solve_k, solve_order, solve_solver = "auto";
  CLI::App* solve_cmd = app.add_subcommand(
      "solve",
      "RBF-FD check of nodes by the solve they give: Poisson's equation with a known (manufactured) solution,\n"
      "  2D: u = sin(pi x) sin(pi y) + e^x cos(2y),  3D: u = sin(pi x) sin(pi y) sin(pi z) + e^x cos(2y) cos(z),\n"
      "x, y, z measured from the nodes' lowest corner (the unit square's and cube's: the origin);\n"
      "PHS r^3 + monomials, the k nearest nodes as each stencil, Dirichlet on every boundary part except those\n"
      "named by --neumann (du/dn = g along the file's normals). Prints the max error (and where it lies) and\n"
      "the relative L2 error. Given a domain file, fills it in-process (one thread, so a seed gives the same\n"
      "nodes), once with its seed or once per seed of --seeds, and prints median, p90, worst and the count\n"
      "above 5x the median. docs/neumann.md explains the Neumann figures.");
  solve_cmd->add_option("INPUT", solve.input, "A .h5 written by nodegen run (or in its layout), or a domain file (JSON)")
      ->required();
  solve_cmd->add_option("--neumann", solve.neumann,
                        "Boundary part with a Neumann condition, by its name in the file's boundary_names (e.g. "
                        "box:x+); repeat or separate with commas. A file without names names its parts 1, 2, ...")
      ->delimiter(',');
  auto* seeds_opt = solve_cmd->add_option("--seeds", solve_seeds, "A-B: fill the domain file once per seed A..B");
  auto* k_opt = solve_cmd->add_option("--k", solve_k, "Stencil size, 1-200 (default 15 in 2D, 30 in 3D)");
  auto* order_opt = solve_cmd->add_option("--order", solve_order, "Monomials up to this total degree, 1-3 (default 2)");
  solve_cmd->add_option("--solver", solve_solver, "auto (BiCGSTAB + ILUT in 3D with every part Dirichlet, else sparse LU), lu or bicgstab")->capture_default_str();
  solve_cmd->add_flag("--ghost-nodes", solve.options.ghost_nodes,
                      "A ghost node h outside every Neumann node, carrying the Laplacian at the boundary node "
                      "(docs/neumann.md)");
  auto* solve_threads = solve_cmd->add_option("--threads", solve.options.threads, "Threads for the stencil weights, 1-1024 (default: the CPUs this process may run on)");
  solve_cmd->add_flag("--json", solve.json, "Print the results as JSON");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // The one-line form of every error, FILE: FIELD: REASON, with the command line as the file.
    return fail(2, std::string("(command line): arguments: ") + e.what() + " (see nodegen --help)");
  }

  bool solve_reads_hdf5 = false;
  try {
    using nodegen::FillParams;
#ifdef NODEGEN_WITH_MPI
    // `run` shares its fill among the ranks; the other commands run on one rank (several would each do
    // the whole job).
    if (session && session->size() > 1 && !*run_cmd)
      throw nodegen::InputError("mpirun", "ranks", std::to_string(session->size()) +
                                                       " ranks were started, but only `nodegen run` runs on several: "
                                                       "start one (mpirun -np 1) and give it the cores with --threads");
#endif
    // An empty name (a shell variable left unset) is a mistake, not a file, and not a request for a default.
    const auto refuse_empty = [](const std::string& given, const char* name) {
      if (given.empty()) throw nodegen::InputError(name, "value", "is empty: give a file name");
    };
    if (*run_cmd) refuse_empty(run.domain.string(), "DOMAIN");
    if (*stats_cmd) refuse_empty(stats_file, "FILE");
    if (*solve_cmd) refuse_empty(solve.input.string(), "INPUT");
    if (*run_cmd) {
      if (*output_opt && output.empty())
        throw nodegen::InputError("--output", "value", "is empty: give a file name, or leave -o out for output/<domain stem>.h5");
      if (*report_opt && report.empty()) throw nodegen::InputError("--report", "value", "is empty: give a file name");
      if (!output.empty()) run.output = output;
      if (!report.empty()) run.report = report;
      if (*seed_opt) run.seed = whole_number(seed, "--seed", 0, FillParams::kMaxSeed);
      if (*cap_opt) run.max_nodes = whole_number(max_nodes, "--max-nodes", 1, FillParams::kMaxNodeCap);
#ifdef NODEGEN_WITH_MPI
      if (session) run.mpi = &*session;
#endif
      return checked_stdout(nodegen::cli::run_command(run));
    }
    if (*solve_cmd) {
      if (*seeds_opt) solve.seeds = nodegen::cli::parse_seed_range(solve_seeds);
      if (*k_opt) solve.options.stencil_size = static_cast<int>(whole_number(solve_k, "--k", 1, nodegen::solve::kMaxStencilSize));
      if (*order_opt) solve.options.order = static_cast<int>(whole_number(solve_order, "--order", 1, 3));
      if (*solve_threads && (solve.options.threads < 1 || solve.options.threads > nodegen::cli::kMaxThreads))
        throw nodegen::InputError("--threads", "value", "expected a whole number from 1 to 1024");
      if (solve_solver == "auto") solve.options.solver = nodegen::solve::LinearSolver::automatic;
      else if (solve_solver == "lu") solve.options.solver = nodegen::solve::LinearSolver::sparse_lu;
      else if (solve_solver == "bicgstab") solve.options.solver = nodegen::solve::LinearSolver::bicgstab_ilut;
      else throw nodegen::InputError("--solver", "value", "expected auto, lu or bicgstab, got " + solve_solver);
      nodegen::cli::require_threads_start(solve.options.threads);
      // libhdf5 crashes on some corrupt files: a written file is solved in a child process, as stats reads it.
      solve_reads_hdf5 = nodegen::cli::is_hdf5(solve.input);
      if (solve_reads_hdf5)
        return nodegen::cli::run_isolated([&] { return checked_stdout(nodegen::cli::solve_command(solve)); },
                                          solve.input.string(), "libhdf5");
      return checked_stdout(nodegen::cli::solve_command(solve));
    }
    const std::size_t samples = stats_samples.empty() ? 0 : whole_number(stats_samples, "--samples", 1, 10'000'000);
    // libhdf5 crashes on some corrupt files: the report is made in a child process.
    return nodegen::cli::run_isolated([&] { return checked_stdout(nodegen::cli::stats_command(stats_file, stats_json, samples)); },
                                      stats_file, "libhdf5");
  } catch (const nodegen::InputError& e) {
    return fail(2, e.what());
  } catch (const nodegen::StoreFull& e) {
    return fail(2, std::string("node cap reached: ") + e.what());
  } catch (const std::bad_alloc&) {
    // Named after the command's input. A fill reserves address space for the nodes it makes room for
    // (fill_domain.cpp: twice the loader's estimate, at most the cap; the vm store and the k-d tree's
    // arenas, one per leaf size class: the message gives the reservation per node), which a
    // virtual-memory limit (ulimit -v) may refuse.
    if (*run_cmd || (*solve_cmd && !solve_reads_hdf5))
      return fail(2, (*run_cmd ? run.domain : solve.input).string() +
                         ": fill.max_nodes: out of memory (RAM, or the address space the fill reserves for the "
                         "nodes it makes room for, about 2.5 KB a node in 2D and 3.6 KB in 3D for twice the "
                         "domain's estimated node count, at most the cap, which a virtual-memory limit such as "
                         "ulimit -v may refuse): use a larger spacing, a lower cap (" +
                         (*run_cmd ? "--max-nodes" : "fill.max_nodes in the domain file") + ") or a higher limit");
    return fail(2, (*solve_cmd ? solve.input.string() : stats_file) + ": (memory): out of memory for its nodes");
  } catch (const std::exception& e) {
    return fail(1, std::string("internal error: ") + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) { return nodegen::cli::run_with_stacks(run_main, argc, argv); }
