#pragma once
// The `solve` subcommand's options: registered on the command line, checked, and the command run.
#include <string>

#include <CLI/CLI.hpp>

#include "solve_command.hpp"

namespace nodegen::cli {

class SolveOptions {
 public:
  // Adds `solve` and its options to `app`; `default_threads` is --threads' default.
  SolveOptions(CLI::App& app, int default_threads);
  bool chosen() const { return static_cast<bool>(*command_); }
  const std::filesystem::path& input() const { return args_.input; }
  // Whether the input is a written file (read in a child process) rather than a domain file (filled here).
  bool reads_hdf5() const { return reads_hdf5_; }
  // Checks the options and runs the solve. Throws InputError naming the option or the input.
  int run();

 private:
  SolveArgs checked_args() const;

  CLI::App* command_;
  SolveArgs args_;
  std::string seeds_, k_, order_, threads_, solver_ = "auto", solution_ = "smooth", error_out_;
  CLI::Option *seeds_option_, *k_option_, *order_option_, *threads_option_, *error_out_option_;
  bool reads_hdf5_ = false;
};

}  // namespace nodegen::cli
