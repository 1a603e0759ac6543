#pragma once
// The `run` subcommand's options: registered on the command line, checked and turned into RunArgs.
#include <string>

#include <CLI/CLI.hpp>

#include "run_command.hpp"

namespace nodegen::cli {

class RunOptions {
 public:
  // Adds `run` and its options to `app`; `default_threads` is --threads' default.
  RunOptions(CLI::App& app, int default_threads);
  bool chosen() const { return static_cast<bool>(*command_); }
  const std::filesystem::path& domain() const { return args_.domain; }
  // What was given, checked. Throws InputError naming the option.
  RunArgs args() const;

 private:
  CLI::App* command_;
  RunArgs args_;
  std::string output_, report_, threads_, seed_, max_nodes_, nodes_, supports_;
  CLI::Option *output_option_, *report_option_, *threads_option_, *seed_option_, *cap_option_, *nodes_option_,
      *supports_option_;
};

}  // namespace nodegen::cli
