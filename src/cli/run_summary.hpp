#pragma once
// What `nodegen run` prints: the summary line and the fingerprint on stdout, and its warnings on stderr.
#include <filesystem>
#include <string_view>

#include "nodegen/input/domain_file.hpp"
#include "run_command.hpp"
#include "run_totals.hpp"

namespace nodegen::cli {

// Nodes (boundary, interior), seconds, rate, threads, backend, peak memory, output and nodes_sha256;
// the spacing's factor for a target count; under MPI a line on the ranks' shares; one line per mesh
// repair. On standard output, or on standard error when the report takes standard output.
void print_summary(const RunArgs& args, const DomainFile& domain, std::string_view backend, const RunTotals& totals,
                   const std::filesystem::path& output);

// --dry-run: the estimate, the factor a target count would take, the boundary parts.
void print_dry_run(const RunArgs& args, const DomainFile& domain);

// A binding narrower than the threads asked for (mpirun binds each of one or two ranks to one core)
// makes the threads take turns on it: says so on stderr, with the launcher's way out.
void warn_if_threads_share_cpus(int threads);

// A spacing as wide as the domain leaves nothing inside it (a ball smaller than h becomes one node):
// says so on stderr even with --quiet, since the file alone would not tell.
void warn_if_no_interior(const RunArgs& args, const DomainFile& domain, const RunTotals& totals);

}  // namespace nodegen::cli
