// `nodegen run`'s options around the fill, end to end: a node count asked for (--nodes, fill.nodes)
// reached within 2 % in 2D and 3D, by the same factor at any thread count, and refused above the cap;
// --dry-run; --report - ; a file of another kind given as the domain file; progress lines in a log;
// --supports; --boundary-only.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nodegen/io/hdf5_reader.hpp"
#include "support/cli_test_support.hpp"
#include "support/sanitized_build.hpp"

namespace {

using namespace nodegen::test;

const fs::path kDomains = kSource / "domains";

class RunOptions : public CliTest {
 protected:
  // An example domain file with fill.nodes = n, written into the test's folder.
  std::string with_fill_nodes(const std::string& example, std::size_t n) {
    nlohmann::json doc = nlohmann::json::parse(slurp(kDomains / example));
    doc["fill"]["nodes"] = n;
    write("target_" + example, doc.dump(2));
    return "target_" + example;
  }
  nlohmann::json report() const { return nlohmann::json::parse(slurp(dir_ / "report.json")); }
};

// The nodes land within 2 % of the count, the report and the output say by which factor, and the
// output's h is the example's spacing times that factor.
TEST_F(RunOptions, ANodeCountIsReachedWithinTwoPercentIn2DAnd3D) {
  struct Case {
    std::string domain;
    std::size_t nodes;
    bool from_cli;
  };
  for (const Case& c : {Case{"plate_with_holes.json", 10000, true}, Case{"plate_with_holes.json", 100000, false},
                        Case{"sphere.json", 10000, false}, Case{"sphere.json", 100000, true}}) {
    SCOPED_TRACE(c.domain + " " + std::to_string(c.nodes));
    std::vector<std::string> args = {"run", "-o", "out.h5", "--report", "report.json"};
    args.push_back(c.from_cli ? (kDomains / c.domain).string() : with_fill_nodes(c.domain, c.nodes));
    if (c.from_cli) args.insert(args.end(), {"--nodes", std::to_string(c.nodes)});
    const Result r = run(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json rep = report();
    const double nodes = rep["nodes"].get<double>(), factor = rep["spacing_factor"].get<double>();
    EXPECT_LE(std::abs(nodes - static_cast<double>(c.nodes)), 0.02 * static_cast<double>(c.nodes)) << nodes;
    EXPECT_EQ(rep["target_nodes"], c.nodes);
    const int fills = rep["target_fills"].get<int>();
    EXPECT_TRUE(fills == 1 || fills == 2) << fills;
    char line[160];
    std::snprintf(line, sizeof line, "\nnodegen: spacing x %.6g for %zu nodes (%s; %d fill%s)\n", factor, c.nodes,
                  c.from_cli ? "--nodes" : "fill.nodes", fills, fills == 1 ? "" : "s");
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " in " << r.out;
    const auto stored = nodegen::io::read_hdf5(dir_ / "out.h5");
    ASSERT_NE(nodegen::io::find_double(stored.metadata, "spacing_factor"), nullptr);
    EXPECT_EQ(*nodegen::io::find_double(stored.metadata, "spacing_factor"), factor);
    if (c.domain == "sphere.json") {  // spacing 0.05
      for (double h : stored.nodes.h) ASSERT_NEAR(h, 0.05 * factor, 1e-15);
    }
  }
}

// Both fills are functions of the domain file and the seed: the same factor, fills and nodes at 1 and
// 3 threads (plate_with_holes at 10000 takes a second fill).
TEST_F(RunOptions, ANodeCountGivesTheSameFactorAndNodesAtAnyThreadCount) {
  nlohmann::json first;
  for (const char* threads : {"1", "3"}) {
    const Result r = run({"run", (kDomains / "plate_with_holes.json").string(), "-o", "out.h5", "--nodes", "10000",
                          "--threads", threads, "--report", "report.json"});
    ASSERT_EQ(r.status, 0) << r.err;
    const nlohmann::json rep = report();
    if (first.is_null()) {
      first = rep;
      continue;
    }
    EXPECT_EQ(rep["spacing_factor"].get<double>(), first["spacing_factor"].get<double>());
    EXPECT_EQ(rep["target_fills"], first["target_fills"]);
    EXPECT_EQ(rep["nodes_sha256"], first["nodes_sha256"]);
  }
}

// The count is checked against the cap, not the spacing as written: a spacing that alone would ask for
// far more than the cap is only the shape of h once a count is asked for.
TEST_F(RunOptions, ANodeCountAboveTheCapIsRefusedAndTheSpacingAsWrittenIsNot) {
  const std::string square = (kDomains / "square.json").string();
  expect_input_error({"run", square, "--nodes", "2000", "--max-nodes", "1000"},
                     {"square.json: fill.nodes: 2000 nodes asked for; the run may land up to 2 % above that, beyond the node cap of 1000"});
  expect_input_error({"run", square, "--nodes", "0"}, {"--nodes"});
  expect_input_error({"run", square, "--nodes", "-5"}, {"--nodes"});
  write("huge.json", R"({"dim": 2, "spacing": 0.1, "fill": {"nodes": 3000000000},
      "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})");
  expect_input_error({"run", "huge.json"}, {"huge.json: fill.nodes: must be at most"});
  write("zero.json", R"({"dim": 2, "spacing": 0.1, "fill": {"nodes": 0}, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})");
  expect_input_error({"run", "zero.json"}, {"zero.json: fill.nodes"});
  write("text.json", R"({"dim": 2, "spacing": 0.1, "fill": {"nodes": "many"}, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})");
  expect_input_error({"run", "text.json"}, {"text.json: fill.nodes: expected an integer"});
  // h = 1e-4 alone asks for 1e8 nodes, 1000 times the cap; 10000 nodes are well within it.
  const Result r = run({"run", square, "-o", "out.h5", "--set", "spacing=0.0001", "--max-nodes", "100000", "--nodes",
                        "10000", "--report", "report.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NEAR(report()["nodes"].get<double>(), 10000.0, 200.0);
}

// A count at the cap: the run lands within 2 % and within the cap, or the count is refused at once
// naming fill.nodes. Not a cap error from the fill, whose first try may land above the count.
TEST_F(RunOptions, ANodeCountAtTheCapIsReachedOrRefusedUpFront) {
  const Result r = run({"run", (kDomains / "sphere.json").string(), "-o", "out.h5", "--nodes", "100000", "--max-nodes",
                        "100000", "--report", "report.json"});
  if (r.status == 0) {
    const double nodes = report()["nodes"].get<double>();
    EXPECT_LE(nodes, 100000.0);
    EXPECT_GE(nodes, 98000.0);
  } else {
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("sphere.json: fill.nodes: "), std::string::npos) << r.err;
  }
}

TEST_F(RunOptions, DryRunPrintsTheEstimateAndThePartsAndWritesNothing) {
  const std::string plate = (kDomains / "plate_with_holes.json").string();
  const Result r = run({"run", plate, "--dry-run", "--report", "report.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(plate_with_holes\.json: 2D, about \d+ nodes \(\d+ inside, \d+ on the boundary\))")))
      << r.out;
  for (const char* part : {"\n  1  plate:x-\n", "\n  5  hole_left:surface\n", "\n  11  hole_square:y+\n"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << " in " << r.out;
  EXPECT_NE(r.out.find("nodegen: 11 boundary parts:"), std::string::npos) << r.out;
  const Result target = run({"run", plate, "--dry-run", "--nodes", "5000", "-o", "out.h5"});
  ASSERT_EQ(target.status, 0) << target.err;
  EXPECT_TRUE(std::regex_search(target.out, std::regex(R"(nodegen: 5000 nodes asked for: spacing x [0-9.]+ )"))) << target.out;
  EXPECT_EQ(outputs(), std::vector<std::string>{}) << "a dry run wrote a file or a folder";
  // Bad input is still refused.
  write("bad.json", R"({"dim": 2, "spacing": -1, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})");
  expect_input_error({"run", "bad.json", "--dry-run"}, {"bad.json: spacing"});
}

// Whole-number options refuse a fraction, each with its one line; a whole number written with a
// fraction of zero or an exponent is taken. --threads, parsed by the command-line library, had refused
// 2.0 with a line of that library's own.
TEST_F(RunOptions, WholeNumberOptionsRefuseFractions) {
  const std::string square = (kDomains / "square.json").string();
  expect_input_error({"run", square, "--max-nodes", "100.5"}, {"--max-nodes: value: expected a whole number", "got 100.5"});
  expect_input_error({"run", square, "--nodes", "300.5"}, {"--nodes: value: expected a whole number", "got 300.5"});
  expect_input_error({"run", square, "--seed", "2.5"}, {"--seed: value: expected a whole number", "got 2.5"});
  expect_input_error({"run", square, "--supports", "3.5"}, {"--supports: value: expected a whole number", "got 3.5"});
  expect_input_error({"run", square, "--threads", "1.5"}, {"--threads: value: expected a whole number from 1 to 1024, got 1.5"});
  expect_input_error({"solve", square, "--threads", "1.5"}, {"--threads: value: expected a whole number from 1 to 1024"});
  expect_input_error({"solve", square, "--k", "15.5"}, {"--k: value: expected a whole number", "got 15.5"});
  expect_input_error({"stats", "any.h5", "--samples", "10.5"}, {"--samples: value: expected a whole number", "got 10.5"});
  const Result r = run({"run", square, "--dry-run", "--threads", "2.0", "--max-nodes", "1e5", "--seed", "7.0"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("cap 100000\n"), std::string::npos) << r.out;
}

// --report -: the report alone on standard output, valid JSON; the summary on standard error.
TEST_F(RunOptions, ReportOnStandardOutputIsJsonAloneAndTheSummaryGoesToStandardError) {
  const Result r = run({"run", (kDomains / "square.json").string(), "-o", "out.h5", "--report", "-", "--nodes", "5000"});
  ASSERT_EQ(r.status, 0) << r.err;
  nlohmann::json rep;
  ASSERT_NO_THROW(rep = nlohmann::json::parse(r.out)) << r.out;
  ASSERT_TRUE(rep.is_object());
  EXPECT_EQ(rep["target_nodes"], 5000);
  EXPECT_EQ(rep["output"], "out.h5");
  EXPECT_NE(r.err.find("nodes_sha256 " + rep["nodes_sha256"].get<std::string>() + "\n"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nodegen: " + std::to_string(rep["nodes"].get<std::size_t>()) + " nodes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nodegen: spacing x "), std::string::npos) << r.err;
  EXPECT_EQ(outputs(), (std::vector<std::string>{"out.h5", "out.xdmf"}));  // no file named "-"
}

// A file of another kind given as the domain file: one line saying what it is.
TEST_F(RunOptions, AFileOfAnotherKindIsNamedAsSuch) {
  ASSERT_EQ(run({"run", (kDomains / "square.json").string(), "-o", "nodes.h5", "-q"}).status, 0);
  fs::copy_file(dir_ / "nodes.h5", dir_ / "nodes.json");
  const std::vector<std::string> keep = {"nodes.h5", "nodes.xdmf", "nodes.json", "part.stl", "PART.OBJ", "nul.json", "block.h5"};
  expect_input_error({"run", "nodes.h5", "-o", "out.h5"}, {"nodes.h5: (file): is an HDF5 file", "nodegen stats"}, "", keep);
  expect_input_error({"run", "nodes.json", "-o", "out.h5"}, {"nodes.json: (file): is an HDF5 file"}, "", keep);
  write("part.stl", "solid part\nendsolid part\n");
  expect_input_error({"run", "part.stl", "-o", "out.h5"}, {"part.stl: (file): is a mesh file", R"("file": "part.stl")"}, "", keep);
  write("PART.OBJ", "v 0 0 0\n");
  expect_input_error({"run", "PART.OBJ", "-o", "out.h5"}, {"PART.OBJ: (file): is a mesh file"}, "", keep);
  std::ofstream(dir_ / "nul.json", std::ios::binary) << std::string(R"({"dim": 2, "spacing": 0.1,)") << '\0'
                                                     << R"( "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})";
  expect_input_error({"run", "nul.json", "-o", "out.h5"}, {"nul.json: (file): holds a NUL byte at offset 26"}, "", keep);
  // An HDF5 file with a user block of 512 bytes before its signature.
  const hid_t create = H5Pcreate(H5P_FILE_CREATE);
  H5Pset_userblock(create, 512);
  H5Fclose(H5Fcreate((dir_ / "block.h5").c_str(), H5F_ACC_TRUNC, create, H5P_DEFAULT));
  H5Pclose(create);
  expect_input_error({"run", "block.h5", "-o", "out.h5"}, {"block.h5: (file): is an HDF5 file"}, "", keep);
  // Outputs and meshes are often larger than a domain file may be: named as such all the same.
  fs::copy_file(dir_ / "nodes.h5", dir_ / "large.h5");
  fs::resize_file(dir_ / "large.h5", 17u << 20);
  std::ofstream(dir_ / "large.stl") << "solid large\n";
  fs::resize_file(dir_ / "large.stl", 17u << 20);
  const std::vector<std::string> more = {"nodes.h5", "nodes.xdmf", "nodes.json", "part.stl", "PART.OBJ", "nul.json", "block.h5",
                                         "large.h5", "large.stl"};
  expect_input_error({"run", "large.h5", "-o", "out.h5"}, {"large.h5: (file): is an HDF5 file"}, "", more);
  expect_input_error({"run", "large.stl", "-o", "out.h5"}, {"large.stl: (file): is a mesh file"}, "", more);
  // A missing file is missing, whatever its name.
  expect_input_error({"run", "missing.stl", "-o", "out.h5"}, {"missing.stl: (file): file not found"}, "", more);
}

// With standard error in a file, a line "filling: N nodes placed of about M ..." every 5 s. The run is
// stopped (SIGSTOP) for 5.5 s once its fill has begun, so the fill outlasts the period on any machine
// while using a second of CPU; the run's own fill time says whether the stop fell within the fill.
TEST_F(RunOptions, ALogGetsProgressLinesEveryFiveSeconds) {
  const std::string cmd = "cd " + quote(dir_.string()) + " && { " + quote(kCli.string()) + " run " +
                          quote((kDomains / "square.json").string()) +
                          " --set spacing=0.0006 --threads 1 -o big.h5 >out.log 2>err.log & pid=$!; sleep 0.15; "
                          "kill -STOP $pid; sleep 5.5; kill -CONT $pid; wait $pid; }";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir_ / "err.log");
  const std::string out = slurp(dir_ / "out.log"), err = slurp(dir_ / "err.log");
  std::smatch fill;
  ASSERT_TRUE(std::regex_search(out, fill, std::regex(R"(\(fill ([0-9.]+) s)"))) << out;
  if (std::stod(fill[1].str()) < 5.0) GTEST_SKIP() << "the stop fell outside the fill (a loaded machine): " << out;
  EXPECT_TRUE(std::regex_search(err, std::regex(R"(^nodegen: filling: \d+ nodes placed of about [0-9.e+]+ \(\d+ %\), )"
                                                R"([0-9.e+]+ nodes/s, [0-9.]+ s\n)")))
      << err;
  EXPECT_EQ(err.find('\r'), std::string::npos) << "terminal control characters in a log";
  EXPECT_EQ(err.find('\033'), std::string::npos) << "terminal control characters in a log";
}

}  // namespace

namespace {

// --supports K writes /domain/supports {N, K}: each node first in its own row, then its nearest by
// distance (checked against all nodes on a small domain), the same at 1 and 3 threads; bad K refused.
TEST_F(RunOptions, SupportsAreWrittenAsTheNearestNodesItselfFirst) {
  write("small.json", R"({"dim": 2, "spacing": 0.08, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})");
  for (const char* threads : {"1", "3"}) {
    const Result r = run({"run", "small.json", "-o", std::string("t") + threads + ".h5", "--supports", "7", "--threads", threads, "-q"});
    ASSERT_EQ(r.status, 0) << r.err;
  }
  const auto one = nodegen::io::read_hdf5(dir_ / "t1.h5").nodes, three = nodegen::io::read_hdf5(dir_ / "t3.h5").nodes;
  ASSERT_EQ(one.support_size, 7u);
  ASSERT_EQ(one.supports.size(), one.node_count() * 7);
  EXPECT_EQ(one.supports, three.supports);
  const std::size_t n = one.node_count();
  for (std::size_t i = 0; i < n; ++i) {
    auto d2 = [&](std::size_t j) {
      const double dx = one.coord(j, 0) - one.coord(i, 0), dy = one.coord(j, 1) - one.coord(i, 1);
      return dx * dx + dy * dy;
    };
    std::vector<std::size_t> all(n);
    for (std::size_t j = 0; j < n; ++j) all[j] = j;
    std::partial_sort(all.begin(), all.begin() + 7, all.end(),
                      [&](std::size_t a, std::size_t b) { return d2(a) < d2(b) || (d2(a) == d2(b) && a < b); });
    for (std::size_t j = 0; j < 7; ++j) ASSERT_EQ(one.supports[i * 7 + j], static_cast<std::int64_t>(all[j])) << i;
  }
  for (const char* bad : {"0", "1001", "x"}) {
    const Result r = run({"run", "small.json", "-o", "bad.h5", "--supports", bad});
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("--supports"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "bad.h5"));
  }
  const Result many = run({"run", "small.json", "-o", "bad.h5", "--supports", "1000"});
  EXPECT_EQ(many.status, 2);
  EXPECT_NE(many.err.find("--supports: value: 1000 nearest nodes asked for, of "), std::string::npos) << many.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad.h5"));
}

// The boundary nodes alone: the whole fill's boundary rows, the same at any thread count, each with its
// normal and part; stats measures their holes on the boundary and no volume; a node count is refused.
TEST_F(RunOptions, BoundaryOnlyWritesTheWholeFillsBoundaryRowsAlone) {
  const std::string domain = (kDomains / "box_minus_ball.json").string();
  ASSERT_EQ(run({"run", domain, "-o", "whole.h5", "-q", "--threads", "2"}).status, 0);
  // Under a sanitizer 1 and 7 threads alone: each boundary is slow there, and 2 adds no other code.
  const std::vector<std::string> thread_counts =
      nodegen::test::kSanitized ? std::vector<std::string>{"1", "7"} : std::vector<std::string>{"1", "2", "7"};
  for (const std::string& threads : thread_counts) {
    const Result r = run({"run", domain, "-o", "b" + threads + ".h5", "-q", "--boundary-only", "--threads", threads});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.err, "");  // no warning that no interior nodes were placed: none were asked for
  }
  const auto whole = nodegen::io::read_hdf5(dir_ / "whole.h5").nodes;
  const auto surface = nodegen::io::read_hdf5(dir_ / "b1.h5").nodes;
  const std::size_t n = surface.node_count();
  ASSERT_GT(n, 1000u);
  ASSERT_EQ(n, static_cast<std::size_t>(std::count_if(whole.types.begin(), whole.types.end(), [](auto t) { return t < 0; })));
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(surface.types[i], whole.types[i]) << i;
    ASSERT_EQ(surface.bmap[i], static_cast<std::int32_t>(i)) << i;
    for (int k = 0; k < 3; ++k) ASSERT_EQ(surface.coord(i, k), whole.coord(i, k)) << i;
  }
  for (std::size_t k = 1; k < thread_counts.size(); ++k) {
    const std::string other = "b" + thread_counts[k] + ".h5";
    const auto again = nodegen::io::read_hdf5(dir_ / other).nodes;
    EXPECT_EQ(again.types, surface.types) << other;
    EXPECT_EQ(again.normals, surface.normals) << other;
    for (std::size_t i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k) ASSERT_EQ(again.coord(i, k), surface.coord(i, k)) << other << " " << i;
  }
  const Result stats = run({"stats", "b1.h5", "--json"});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(stats.err, "");
  const nlohmann::json figures = nlohmann::json::parse(stats.out);
  EXPECT_TRUE(figures["packing_density"].is_null()) << stats.out;
  EXPECT_GT(figures["holes"]["samples"].get<double>(), 2.0 * static_cast<double>(n)) << stats.out;
  EXPECT_LT(figures["holes"]["p999"].get<double>(), 1.2) << stats.out;
  const Result counted = run({"run", domain, "-o", "bad.h5", "--boundary-only", "--nodes", "1000"});
  EXPECT_EQ(counted.status, 2);
  EXPECT_NE(counted.err.find("--nodes: value: counts a whole fill's nodes, not --boundary-only's"), std::string::npos)
      << counted.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad.h5"));
}

}  // namespace
