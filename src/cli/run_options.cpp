#include "run_options.hpp"

#include "nodegen/fill/fill_params.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "number_argument.hpp"

namespace nodegen::cli {

RunOptions::RunOptions(CLI::App& app, int default_threads) {
  args_.threads = default_threads;
  command_ = app.add_subcommand(
      "run",
      "Fill DOMAIN.json with nodes and write FILE.h5 + FILE.xdmf. On a terminal a progress line shows nodes\n"
      "placed, nodes/s and elapsed time; at the end one summary line gives nodes (boundary/interior),\n"
      "seconds, nodes/s and peak memory. A failed run leaves no output file behind.");
  command_->add_option("DOMAIN", args_.domain, "Domain file (JSON; see domains/ and docs/domain-format.md)")->required();
  output_option_ = command_->add_option("-o,--output", output_,
                                        "Output HDF5 file; its directory must exist (default: output/<domain stem>.h5 "
                                        "under the current directory, output/ made if missing). The sidecar is the "
                                        "same name with .xdmf");
  threads_option_ = command_->add_option("--threads", threads_, "Worker threads, 1-1024 (default: the CPUs this process may run on)")
                        ->type_name("INT")
                        ->default_str(std::to_string(default_threads));
  command_->add_option("--backend", args_.backend,
                       "Node storage: vm (virtual-memory reservation, default), vector (std::vector + lock), "
                       "suballoc (bit-heap suballocator). Same algorithm and nodes, different memory behaviour")
      ->capture_default_str();
  command_->add_flag("--prefault", args_.prefault,
                     "vm backend only: populate pages ahead of use (fewer page faults in the fill)");
  command_->add_flag("--huge-pages", args_.huge_pages, "vm backend only: ask for transparent huge pages");
  seed_option_ = command_->add_option("--seed", seed_,
                                      "Random seed, 0 to 2^63-1 (default: the domain file's, else 1); the same seed "
                                      "gives the same nodes, byte for byte, at any --threads, --backend and rank count");
  cap_option_ = command_->add_option("--max-nodes", max_nodes_,
                                     "Node cap, 1 to 2^31-1: stop with an error instead of exhausting memory when the "
                                     "spacing asks for more (default: the domain file's, else 1e8)");
  nodes_option_ = command_->add_option("--nodes", nodes_,
                                       "Aim at N nodes: the spacing is scaled by one factor so the run lands within 2 % "
                                       "of N (at most one extra fill); the summary prints the factor (default: the "
                                       "domain file's fill.nodes, else the spacing as written)");
  supports_option_ = command_->add_option("--supports", supports_,
                                          "Also write /domain/supports: the K nearest nodes of every node, itself "
                                          "first (an RBF-FD solver's stencils), K from 1 to 1000");
  command_->add_flag("--boundary-only", args_.boundary_only,
                     "Write the boundary nodes and their normals alone, no interior (for PDEs on surfaces)");
  command_->add_option("--set", args_.overrides,
                       "KEY=VALUE: replace a field of the domain file (repeatable), e.g. --set spacing=0.002, "
                       "--set fill.seed=7, --set shape.children[1].radius=0.3; VALUE is JSON, or else a string. "
                       "The output records the changed file");
  command_->add_flag("--dry-run", args_.dry_run,
                     "Load and check the domain file, print the estimated node count (and with --nodes the factor) "
                     "and the boundary parts; fill nothing, write nothing");
  command_->add_flag("-q,--quiet", args_.quiet, "No progress line and no summary (errors are still printed)");
  report_option_ = command_->add_option("--report", report_,
                                        "Also write a JSON report (- for standard output, the summary then going to "
                                        "standard error): nodes, boundary/interior, seconds, nodes/s, peak RSS, "
                                        "minor page faults, backend, threads, seed, spacing factor, output");
}

RunArgs RunOptions::args() const {
  RunArgs args = args_;
  refuse_empty(args.domain.string(), "DOMAIN");
  if (*output_option_ && output_.empty())
    throw InputError("--output", "value", "is empty: give a file name, or leave -o out for output/<domain stem>.h5");
  if (*report_option_ && report_.empty()) throw InputError("--report", "value", "is empty: give a file name");
  if (!output_.empty()) args.output = output_;
  if (!report_.empty()) args.report = report_;
  if (*threads_option_) args.threads = static_cast<int>(whole_number(threads_, "--threads", 1, kMaxThreads));
  if (*seed_option_) args.seed = whole_number(seed_, "--seed", 0, FillParams::kMaxSeed);
  if (*cap_option_) args.max_nodes = whole_number(max_nodes_, "--max-nodes", 1, FillParams::kMaxNodeCap);
  if (*nodes_option_) args.nodes = whole_number(nodes_, "--nodes", 1, FillParams::kMaxNodeCap);
  if (*supports_option_) args.supports = static_cast<int>(whole_number(supports_, "--supports", 1, kMaxSupports));
  return args;
}

}  // namespace nodegen::cli
