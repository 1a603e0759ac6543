// bench/tools/render (bench/tools/render.py in ParaView's pvbatch, offscreen) on small real nodegen outputs: the PNG must exist, have the size
// asked for and show something (many colours, a real share of non-background pixels). Skipped, with the
// reason, where ParaView's pvbatch or xvfb-run is not installed (scripts/install-deps.sh --paraview adds them).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/temp_dir.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kSource = NODEGEN_SOURCE_DIR;
const std::string kCli = NODEGEN_CLI_PATH;

// Single-quoted for the shell (paths here never contain a quote). Built by appending: GCC 12 warns
// falsely (-Wrestrict) on "'" + str + "'".
std::string shell_quoted(const fs::path& p) {
  std::string s(1, '\'');
  s.append(p.string()).push_back('\'');
  return s;
}

// bench/tools/render runs bench/tools/render.py under pvbatch and xvfb-run (with the Xvfb options that make it reliable).
std::string render_command() { return shell_quoted(kSource / "bench/tools/render") + " "; }

bool have_command(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

// Runs a shell command; returns its exit status and stdout (stderr goes to the test log).
std::pair<int, std::string> run(const std::string& command) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return {-1, out};
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe.get())) out += buffer.data();
  const int status = pclose(pipe.release());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

std::string missing_tools() {
  std::string missing;
  for (const char* tool : {"pvbatch", "xvfb-run"})
    if (!have_command(tool)) missing += std::string(missing.empty() ? "" : ", ") + tool;
  if (missing.empty() && std::system("/usr/bin/python3 -c 'import paraview, matplotlib' >/dev/null 2>&1") != 0)
    missing = "python3-paraview or python3-matplotlib";
  return missing;
}

class RenderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    tmp_ = std::make_unique<nodegen::test::TempDir>("render");
    dir_ = tmp_->path();
  }
  static void TearDownTestSuite() { tmp_.reset(); }

  void SetUp() override {
    if (const auto missing = missing_tools(); !missing.empty())
      GTEST_SKIP() << "ParaView rendering not tested: " << missing
                   << " not installed (scripts/install-deps.sh --paraview installs it)";
    if (kCli.empty()) GTEST_SKIP() << "nodegen CLI target not built: no output to render";
  }

  // A small real output of the CLI for a domain under bench/domains/quick/ (made once per suite).
  static fs::path output_for(const std::string& domain_stem) {
    const fs::path h5 = dir_ / (domain_stem + ".h5");
    if (!fs::exists(h5)) {
      const auto [status, out] = run(shell_quoted(kCli) + " run " + shell_quoted(kSource / "bench/domains/quick" / (domain_stem + ".json")) +
                                     " -o " + shell_quoted(h5) + " --quiet");
      EXPECT_EQ(status, 0) << out;
    }
    return h5;
  }

  // Renders and returns the PNG's content summary from tests/support/png_content.py.
  static nlohmann::json render(const fs::path& input, const std::string& name, const std::string& options) {
    const fs::path png = dir_ / (name + ".png");
    const auto [status, out] = run(render_command() + shell_quoted(input) +
                                   " -o " + shell_quoted(png) + " --size 400x300 " + options + " 2>&1");
    EXPECT_EQ(status, 0) << out;
    return content_of(png);
  }

  static nlohmann::json content_of(const fs::path& png) {
    if (!fs::exists(png)) return nlohmann::json::object();
    const auto [status, out] = run("/usr/bin/python3 " + shell_quoted(kSource / "tests/support/png_content.py") + " " + shell_quoted(png));
    EXPECT_EQ(status, 0) << out;
    return nlohmann::json::parse(out, nullptr, false);
  }

  static void expect_picture(const nlohmann::json& content, int min_colours) {
    ASSERT_TRUE(content.is_object() && content.contains("width")) << "no PNG or unreadable: " << content.dump();
    EXPECT_EQ(content["width"], 400);
    EXPECT_EQ(content["height"], 300);
    EXPECT_GE(content["distinct_colours"].get<int>(), min_colours) << content.dump();
    EXPECT_GT(content["foreground_fraction"].get<double>(), 0.05) << content.dump();
  }

  static inline std::unique_ptr<nodegen::test::TempDir> tmp_;  // the suite's outputs, shared by its tests
  static inline fs::path dir_;
};

TEST_F(RenderTest, TwoDimensionalByTypeWithNormals) {
  expect_picture(render(output_for("square_small"), "square_type", "--color type --normals"), 5);
}

TEST_F(RenderTest, TwoDimensionalByHFromTheXdmfSidecar) {
  const fs::path xdmf = output_for("square_small").replace_extension(".xdmf");
  ASSERT_TRUE(fs::exists(xdmf)) << "the CLI wrote no XDMF sidecar " << xdmf;
  expect_picture(render(xdmf, "square_h", "--color h"), 20);
}

TEST_F(RenderTest, ThreeDimensionalClippedByH) {
  expect_picture(render(output_for("cube_small"), "cube_h", "--color h"), 20);
}

TEST_F(RenderTest, ThreeDimensionalByTypeWithNormals) {
  expect_picture(render(output_for("cube_small"), "cube_type", "--color type --normals --clip z"), 5);
}

// The checks above can fail: a blank picture is told apart, and a missing input is an error.
TEST_F(RenderTest, BlankPictureIsRecognised) {
  const fs::path blank = dir_ / "blank.png";
  const auto [status, out] = run("/usr/bin/python3 -c \"import matplotlib.pyplot as p, numpy as n; "
                                 "p.imsave('" + blank.string() + "', n.ones((300, 400, 3)))\" 2>&1");
  ASSERT_EQ(status, 0) << out;
  const auto content = content_of(blank);
  EXPECT_EQ(content["distinct_colours"], 1);
  EXPECT_EQ(content["foreground_fraction"], 0.0);
}

TEST_F(RenderTest, MissingInputFailsWithAMessage) {
  const auto [status, out] = run(render_command() + shell_quoted(dir_ / "absent.h5") + " -o " + shell_quoted(dir_ / "absent.png") + " 2>&1");
  EXPECT_NE(status, 0);
  EXPECT_NE(out.find("render.py: error:"), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(dir_ / "absent.png"));
}

}  // namespace
