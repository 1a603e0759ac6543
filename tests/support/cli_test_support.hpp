#pragma once
// The end-to-end harness of the CLI suites: runs the built `nodegen` binary in a temporary directory
// and checks a bad input's exit status, its single error line and that nothing is left behind.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/temp_dir.hpp"

namespace nodegen::test {

namespace fs = std::filesystem;

const fs::path kCli = NODEGEN_CLI_PATH;
const fs::path kSource = NODEGEN_SOURCE_DIR;

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Result {
  int status = -1;
  std::string out, err;
  // The lines nodegen printed: under AddressSanitizer with allocator_may_return_null (the asan preset),
  // an allocation the input asks to be absurdly large fails as in release, and the sanitizer notes it
  // with a line of its own ("==PID==WARNING: AddressSanitizer failed to allocate ..."), left out here.
  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string l; std::getline(in, l);)
      if (!(l.starts_with("==") && l.find("==WARNING: AddressSanitizer failed to allocate") != std::string::npos))
        lines.push_back(l);
    return lines;
  }
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(kCli.empty()) << "the nodegen target was not built";
  }

  // Runs nodegen with the arguments in the temporary directory (the current directory of the run).
  // `shell_setup` runs first in the same shell (e.g. "ulimit -f 100; "); `stdout_to` replaces the
  // captured stdout (r.out is then empty).
  Result run(const std::vector<std::string>& args, const std::string& shell_setup = "", const std::string& stdout_to = "") {
    // Built with append: GCC 12 reports a false -Wrestrict on chains of "literal" + std::string.
    std::string cmd("cd ");
    cmd.append(quote(dir_.string())).append(" && ").append(shell_setup).append(quote(kCli.string()));
    for (const auto& a : args) cmd.append(" ").append(quote(a));
    cmd.append(" >").append(stdout_to.empty() ? quote((dir_ / ".stdout").string()) : stdout_to);
    cmd.append(" 2>").append(quote((dir_ / ".stderr").string()));
    const int raw = std::system(cmd.c_str());
    Result r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    if (stdout_to.empty()) r.out = slurp(dir_ / ".stdout");
    r.err = slurp(dir_ / ".stderr");
    fs::remove(dir_ / ".stdout");
    fs::remove(dir_ / ".stderr");
    return r;
  }

  fs::path write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return dir_ / name;
  }

  // Runs `nodegen ARGS` in the test folder (stderr to err.txt), waits up to 10 s for its output's
  // temporary to appear (the run is then mid-fill), runs the shell command `then` (which may signal
  // $pid), and waits for the run: its exit status, or 99 when the temporary never appeared.
  int signalled_run(const std::string& args, const std::string& then) const {
    const std::string script = "cd " + quote(dir_.string()) + " && { " + quote(kCli.string()) + " " + args +
                               " 2> err.txt & pid=$!; seen=0; for i in $(seq 400); do if ls -a | grep -q "
                               "'^[.]out[.]h5[.]tmp-'; then seen=1; break; fi; sleep 0.025; done; " +
                               then + "; wait $pid; status=$?; [ $seen = 1 ] || exit 99; exit $status; }";
    const int raw = std::system(("sh -c " + quote(script)).c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  }

  // Every file under the temporary directory except the inputs we wrote (*.json) and `except`.
  std::vector<std::string> outputs(const std::vector<std::string>& except = {}) const {
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      const std::string name = fs::relative(e.path(), dir_).string();
      if (e.path().extension() != ".json" && std::find(except.begin(), except.end(), name) == except.end())
        found.push_back(name);
    }
    std::sort(found.begin(), found.end());
    return found;
  }

  // A bad input: exit 2, exactly one stderr line "nodegen: error: ..." containing every piece of
  // `expected`, nothing on stdout, and no output file or folder left behind (but `except`, files the
  // test put there).
  void expect_input_error(const std::vector<std::string>& args, const std::vector<std::string>& expected,
                          const std::string& shell_setup = "", const std::vector<std::string>& except = {}) {
    const Result r = run(args, shell_setup);
    EXPECT_EQ(r.status, 2) << r.err;
    const auto lines = r.err_lines();
    ASSERT_EQ(lines.size(), 1u) << r.err;
    EXPECT_EQ(lines[0].rfind("nodegen: error: ", 0), 0u) << lines[0];
    for (const auto& piece : expected) EXPECT_NE(lines[0].find(piece), std::string::npos) << "missing '" << piece << "' in: " << lines[0];
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(outputs(except), std::vector<std::string>{}) << "left behind after a failed run";
  }

  const TempDir tmp_{"cli"};  // removed after each test, also a failed one
  const fs::path dir_ = tmp_.path();
};

}  // namespace nodegen::test
