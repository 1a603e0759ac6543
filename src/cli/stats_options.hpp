#pragma once
// The `stats` subcommand's options: registered on the command line, checked, and the command run.
#include <string>

#include <CLI/CLI.hpp>

namespace nodegen::cli {

class StatsOptions {
 public:
  explicit StatsOptions(CLI::App& app);
  bool chosen() const { return static_cast<bool>(*command_); }
  const std::string& file() const { return file_; }
  // Checks the options and runs the report in a child process (libhdf5 crashes on some corrupt files).
  // Throws InputError naming the option or the file.
  int run() const;

 private:
  CLI::App* command_;
  std::string file_, samples_;
  bool json_ = false;
};

}  // namespace nodegen::cli
