#include "stats_options.hpp"

#include "isolated_run.hpp"
#include "number_argument.hpp"
#include "stats_command.hpp"
#include "stdout_check.hpp"

namespace nodegen::cli {

StatsOptions::StatsOptions(CLI::App& app) {
  command_ = app.add_subcommand(
      "stats",
      "Quality report of a nodegen HDF5 file: node counts; nearest-neighbour distance / h (min, mean, max);\n"
      "packing density (sum of the balls of diameter h at each node over the domain's area/volume: a PNP\n"
      "fill gives about 0.70 in 2D and 0.45 in 3D, a hexagonal lattice 0.91); holes (distance from random\n"
      "points of the domain to the nearest node, / h: mean, p99.9, max). The domain is rebuilt from the\n"
      "domain file text stored in the output.");
  command_->add_option("FILE", file_, "A .h5 written by nodegen run")->required();
  command_->add_flag("--json", json_, "Print the report as JSON");
  command_->add_option("--samples", samples_, "Random points for the hole metric (default: max(1e5, N), at most 1e7)");
}

int StatsOptions::run() const {
  refuse_empty(file_, "FILE");
  const std::size_t samples = samples_.empty() ? 0 : whole_number(samples_, "--samples", 1, 10'000'000);
  return run_isolated(
      [&] {
        const int status = stats_command(file_, json_, samples);
        require_stdout_written();
        return status;
      },
      file_, "libhdf5");
}

}  // namespace nodegen::cli
