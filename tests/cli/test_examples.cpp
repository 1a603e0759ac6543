// The shipped examples run as documented: examples/adaptive/adaptive.py refines over three rounds and
// the max error falls in every one (it exits 1 otherwise), on /usr/bin/python3 with h5py and numpy.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <string>

#include "support/cli_test_support.hpp"
#include "support/sanitized_build.hpp"

namespace {

using namespace nodegen::test;

class Examples : public CliTest {};

TEST_F(Examples, AdaptiveRefinementErrorFallsEveryRound) {
  // Under the sanitizers the fills and solves are slow, and the release run checks the same script.
  if (kSanitized) GTEST_SKIP() << "release builds run the example";
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3";
  const std::string script = (kSource / "examples/adaptive/adaptive.py").string();
  std::string cmd("cd ");
  cmd.append(quote(dir_.string())).append(" && /usr/bin/python3 ").append(quote(script)).append(" --rounds 3 --nodegen ");
  cmd.append(quote(kCli.string())).append(" --out rounds > out.txt 2> err.txt");
  const int raw = std::system(cmd.c_str());
  const std::string out = slurp(dir_ / "out.txt"), err = slurp(dir_ / "err.txt");
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << out << err;
  EXPECT_NE(out.find("the max error fell in every round"), std::string::npos) << out;
  EXPECT_NE(out.find("round  nodes"), std::string::npos) << out;
}

}  // namespace
