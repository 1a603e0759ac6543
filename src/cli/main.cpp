// nodegen: fills a domain with nodes (parallel PNP) and writes HDF5 that Medusa and ParaView read.
// Exit status: 0 success, 2 bad input (one line "nodegen: error: FILE: FIELD: REASON"), 1 internal error.
// Each subcommand registers and checks its own options (run_options, stats_options, solve_options);
// this file sets up the process, parses, dispatches and turns what a command throws into its line.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/io/hdf5_writer.hpp"
#include "nodegen/storage/store_concept.hpp"
#include "nodegen/parallel/cpu_affinity.hpp"
#include "rank_parts.hpp"
#include "remove_on_signal.hpp"
#include "run_options.hpp"
#include "solve_options.hpp"
#include "stats_options.hpp"
#include "stdout_check.hpp"
#include "thread_stacks.hpp"
#ifdef NODEGEN_WITH_MPI
#include <optional>

#include "nodegen/mpi/agreement.hpp"
#include "nodegen/mpi/launch.hpp"
#include "nodegen/mpi/session.hpp"
#endif

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
const nodegen::mpi::Session* g_mpi = nullptr;

// An error this rank met on its own, between two agreements, is known to no other rank: they would
// wait for it in their next collective for ever. The rank then prints its line itself and ends the
// job (every rank's signal handler removes the temporaries) instead of finalizing.
void abort_job_unless_agreed([[maybe_unused]] int status, [[maybe_unused]] const std::string& message) {
#ifdef NODEGEN_WITH_MPI
  if (!g_mpi || g_mpi->size() == 1 || nodegen::mpi::failure_agreed()) return;
  std::fprintf(stderr, "nodegen: error: %s (rank %d of %d: ending every rank)\n", message.c_str(), g_mpi->rank(),
               g_mpi->size());
  std::fflush(stderr);
  g_mpi->abort(status);
#endif
}

int fail(int status, const std::string& message) {
  abort_job_unless_agreed(status, message);
  if (prints_errors) std::fprintf(stderr, "nodegen: error: %s\n", message.c_str());
  return status;
}

// --help, --help-all or --version: printed once (by the rank that prints, under MPI).
int print_help(const CLI::App& app, std::exception_ptr help) {
  if (!prints_errors) return 0;
  try {
    std::rethrow_exception(help);
  } catch (const CLI::Success& e) {
    const int status = app.exit(e);
    // Help that could not be written (stdout on a full disk) is a failure, as coreutils make it: exit 1.
    try {
      std::cout.flush();
      if (!std::cout) throw nodegen::InputError("stdout", "output", "cannot write the help or version text");
      nodegen::cli::require_stdout_written();
    } catch (const nodegen::InputError& error) {
      return fail(1, error.what());
    }
    return status;
  }
}

// Parses the command line and, under several MPI ranks, agrees on it before anything else
// (rank_parts.hpp). A parse error is thrown as the InputError its line is; help (--help, --help-all,
// --version) is returned, for print_help.
std::exception_ptr parse_command_line(CLI::App& app, int argc, char** argv, const nodegen::cli::RunOptions& run) {
  std::exception_ptr help, failure;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success&) {
    help = std::current_exception();
  } catch (const CLI::ParseError& e) {
    // The one-line form of every error, FILE: FIELD: REASON, with the command line as the file.
    failure = std::make_exception_ptr(
        nodegen::InputError("(command line)", "arguments", std::string(e.what()) + " (see nodegen --help)"));
  }
  nodegen::cli::agree_on_command_line(g_mpi, argc, argv, failure, help != nullptr, run.chosen());
  if (failure) std::rethrow_exception(failure);
  return help;
}

// Out of memory, named after the command's input. A fill reserves address space for the nodes it
// makes room for (twice the loader's estimate, at most the cap: the vm store and the k-d tree's
// arenas), which a virtual-memory limit (ulimit -v) may refuse.
std::string out_of_memory(const std::string& input, bool fills, bool from_command_line) {
  if (!fills) return input + ": (memory): out of memory for its nodes";
  return input + ": fill.max_nodes: out of memory (RAM, or the address space the fill reserves for the nodes it "
                 "makes room for, about 2.5 KB a node in 2D and 3.6 KB in 3D for twice the domain's estimated node "
                 "count, at most the cap, which a virtual-memory limit such as ulimit -v may refuse): use a larger spacing, a lower cap (" +
         (from_command_line ? "--max-nodes" : "fill.max_nodes in the domain file") + ") or a higher limit";
}

// Process-wide settings every command runs under.
void set_up_process() {
  // A write past the file-size limit (ulimit -f) then fails with EFBIG and is reported as one error
  // line with the temporaries removed, instead of SIGXFSZ killing the run and leaving them behind.
  std::signal(SIGXFSZ, SIG_IGN);
  // A closed pipe on stdout (`nodegen stats f.h5 | head -1`) is then the write's error, reported as one
  // line (stdout_check.hpp), instead of SIGPIPE ending the process without one (and `stats`, whose
  // reading child it ended, blaming a signal from outside).
  std::signal(SIGPIPE, SIG_IGN);
  nodegen::io::skip_hdf5_shutdown_at_exit();
}

// The whole command, on the thread run_with_stacks gives it.
int run_main(int argc, char** argv) {
  set_up_process();
  const nodegen::mpi::Session* mpi = nullptr;
#ifdef NODEGEN_WITH_MPI
  // The MPI runtime starts only under an MPI launcher: a plain run starts none.
  std::optional<nodegen::mpi::Session> session;
  if (nodegen::mpi::launched_by_mpi()) {
    mpi = g_mpi = &session.emplace(argc, argv);
    prints_errors = session->rank() == 0;
    nodegen::cli::say_when_interrupted(prints_errors);
  }
#endif
  CLI::App app(kDescription, "nodegen");
  app.set_version_flag("--version", "nodegen " NODEGEN_VERSION, "Print the version and exit");
  app.require_subcommand(1);
  app.footer("Run 'nodegen run --help', 'nodegen stats --help' or 'nodegen solve --help' for the options of each command.");
  const int threads = std::clamp(nodegen::cpus_allowed(), 1, nodegen::cli::kMaxThreads);
  nodegen::cli::RunOptions run(app, threads);
  nodegen::cli::StatsOptions stats(app);
  nodegen::cli::SolveOptions solve(app, threads);
  try {
    if (const std::exception_ptr help = parse_command_line(app, argc, argv, run)) return print_help(app, help);
    if (run.chosen()) {
      nodegen::cli::RunArgs args = run.args();
      args.mpi = mpi;
      const int status = nodegen::cli::run_command(args);
      nodegen::cli::require_stdout_written();
      return status;
    }
    if (solve.chosen()) return solve.run();
    return stats.run();
  } catch (const nodegen::InputError& e) {
    return fail(2, e.what());
  } catch (const nodegen::StoreFull& e) {
    return fail(2, std::string("node cap reached: ") + e.what());
  } catch (const std::bad_alloc&) {
    if (run.chosen()) return fail(2, out_of_memory(run.domain().string(), true, true));
    if (solve.chosen()) return fail(2, out_of_memory(solve.input().string(), !solve.reads_hdf5(), false));
    return fail(2, out_of_memory(stats.file(), false, false));
  } catch (const std::exception& e) {
    return fail(1, std::string("internal error: ") + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) { return nodegen::cli::run_with_stacks(run_main, argc, argv); }
