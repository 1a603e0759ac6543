// The tests' temporary folders (temp_dir.hpp): below one per-process root under $TMPDIR, removed
// with their contents also when a test fails, and the root gone at exit once it is empty.
#include "support/temp_dir.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using nodegen::test::temp_root;
using nodegen::test::TempDir;

namespace {

// Run as a child of the test below (the binary re-executed with NODEGEN_TEMP_DIR_CHILD set): makes a
// folder with a file in it, then exits through exit() as a finished test process does. With "keep" it
// also leaves a file directly in the root, which must then stay.
[[maybe_unused]] const int child_mode = [] {
  const char* mode = std::getenv("NODEGEN_TEMP_DIR_CHILD");
  if (mode == nullptr) return 0;
  {
    TempDir dir("child");
    std::ofstream(dir / "file") << "x";
  }
  if (std::string(mode) == "keep") std::ofstream(temp_root() / "left") << "x";
  std::exit(0);
}();

int run_child(const fs::path& tmpdir, const std::string& mode) {
  const std::string cmd = "TMPDIR='" + tmpdir.string() + "' NODEGEN_TEMP_DIR_CHILD=" + mode + " /proc/" +
                          std::to_string(::getpid()) + "/exe";
  const int raw = std::system(cmd.c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

TEST(TempDir, IsAFreshFolderBelowTheRootOfThisProcess) {
  const TempDir a("x"), b("x");
  EXPECT_TRUE(fs::is_directory(a.path()));
  EXPECT_NE(a.path(), b.path());
  EXPECT_EQ(a.path().parent_path(), temp_root());
  EXPECT_EQ(temp_root().filename(), "nodegen-tests-" + std::to_string(::getpid()));
  EXPECT_TRUE(fs::equivalent(temp_root().parent_path(), fs::temp_directory_path()));
  EXPECT_EQ(a.entries(), 0u);
}

TEST(TempDir, RemovesItsContentsWhenItGoes) {
  fs::path kept;
  {
    const TempDir dir;
    kept = dir.path();
    fs::create_directories(dir / "a" / "b");
    std::ofstream(dir / "a" / "b" / "file") << "x";
  }
  EXPECT_FALSE(fs::exists(kept));
}

fs::path seen_in_failing_test;

TEST(TempDir, IsRemovedWhenAnAssertionFails) {
  EXPECT_FATAL_FAILURE(
      {
        const TempDir dir;
        seen_in_failing_test = dir.path();
        std::ofstream(dir / "file") << "x";
        ASSERT_TRUE(false) << "a failing test";
      },
      "a failing test");
  ASSERT_FALSE(seen_in_failing_test.empty());
  EXPECT_FALSE(fs::exists(seen_in_failing_test));
}

TEST(TempDir, RootUnderTmpdirIsRemovedAtExitOnlyWhenEmpty) {
  const TempDir outer("tmpdir");
  ASSERT_EQ(run_child(outer.path(), "clean"), 0);
  EXPECT_EQ(outer.entries(), 0u) << "the child's root outlived it";

  ASSERT_EQ(run_child(outer.path(), "keep"), 0);
  ASSERT_EQ(outer.entries(), 1u) << "a root holding a file must stay";
  const fs::path root = fs::directory_iterator(outer.path())->path();
  EXPECT_EQ(root.filename().string().rfind("nodegen-tests-", 0), 0u) << root;
  EXPECT_TRUE(fs::exists(root / "left"));
  EXPECT_EQ(nodegen::test::entries_in(root), 1u) << "the child's TempDir was not removed";
}

}  // namespace
