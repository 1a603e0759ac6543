#pragma once
// `nodegen run DOMAIN.json ...`: load, fill, write FILE.h5 + FILE.xdmf, print a summary (the options
// that make RunArgs: run_options.hpp).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nodegen/parallel/cpu_affinity.hpp"

namespace nodegen::mpi {
class Session;  // nodegen/mpi/session.hpp (MPI builds)
}

namespace nodegen::cli {

struct RunArgs {
  std::filesystem::path domain;
  std::optional<std::filesystem::path> output;  // default: output/<domain stem>.h5 under the current directory
  int threads = 1;
  std::string backend = "vm";
  bool prefault = false;
  bool huge_pages = false;
  std::optional<std::uint64_t> seed;      // overrides the domain file's fill.seed
  std::optional<std::size_t> max_nodes;   // overrides the domain file's fill.max_nodes
  std::optional<std::size_t> nodes;       // --nodes: overrides the domain file's fill.nodes
  int supports = 0;                       // --supports K: K nearest nodes of every node written; 0: none
  bool boundary_only = false;             // --boundary-only: the boundary nodes and normals alone
  std::vector<std::string> overrides;     // --set KEY=VALUE, in order
  bool dry_run = false;                   // --dry-run: load, estimate and list the parts; no fill, no output
  bool quiet = false;
  std::optional<std::filesystem::path> report;  // --report FILE.json, or "-" for standard output
  const mpi::Session* mpi = nullptr;            // the MPI runtime, when started by an MPI launcher
};

// Whether the report goes to standard output (--report -).
inline bool report_to_stdout(const RunArgs& args) { return args.report && args.report->string() == "-"; }

// The most worker threads a run takes (parallel/cpu_affinity.hpp, kMaxThreads), under the CLI's name.
using nodegen::kMaxThreads;
// The most supports a node may ask for: stencils are tens of nodes; a thousand bounds the file's
// size (4 KB a node) well before it is a surprise.
inline constexpr std::size_t kMaxSupports = 1000;

// Runs the whole job. Throws InputError for bad input (the caller prints it and exits 2). Returns 0.
int run_command(const RunArgs& args);

}  // namespace nodegen::cli
