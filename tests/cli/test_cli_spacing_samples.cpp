// Spacing from samples end to end: a domain file's {"samples": FILE, "values": DATASET, ...} read from
// HDF5 in both layouts; the node density follows the sampled h; a previous run's output resampled at
// half its h gives about four times the nodes; scale, min and max reach the output's h; the same nodes
// at any thread count; every bad file, dataset or field one error line naming it, with no output left;
// a file that crashes libhdf5 is the file's error, not the run's crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nodegen/io/hdf5_reader.hpp"
#include "support/cli_test_support.hpp"
#include "support/sample_file_support.hpp"

namespace {

using namespace nodegen::test;

// A unit square (or cube) whose spacing is the JSON object `spacing`.
std::string samples_domain(const std::string& spacing, int dim = 2) {
  const std::string box = dim == 2 ? R"({"type": "box", "name": "sq", "min": [0, 0], "max": [1, 1]})"
                                   : R"({"type": "box", "name": "sq", "min": [0, 0, 0], "max": [1, 1, 1]})";
  return R"({"dim": )" + std::to_string(dim) + R"(, "spacing": )" + spacing + R"(, "shape": )" + box + "}";
}

std::string fingerprint(const std::string& summary) {
  std::smatch m;
  return std::regex_search(summary, m, std::regex("nodes_sha256 ([0-9a-f]{64})")) ? m[1].str() : "";
}

std::size_t nodes_in(const std::string& summary) {
  std::smatch m;
  return std::regex_search(summary, m, std::regex(R"(nodegen: (\d+) nodes)")) ? std::stoul(m[1].str()) : 0;
}

// Nodes of an output inside [x0, x1] x [y0, y1].
std::size_t count_in(const nodegen::io::NodeArrays& nodes, double x0, double x1, double y0, double y1) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < nodes.node_count(); ++i) {
    const double x = nodes.coord(i, 0), y = nodes.coord(i, 1);
    n += x >= x0 && x <= x1 && y >= y0 && y <= y1;
  }
  return n;
}

class SampleSpacing : public CliTest {
 protected:
  // The inputs a test wrote, left out of the check that a failed run leaves nothing behind.
  std::vector<std::string> inputs() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }
  void expect_refused(const std::string& spacing, const std::vector<std::string>& pieces, int dim = 2) {
    write("d.json", samples_domain(spacing, dim));
    expect_input_error({"run", "d.json", "-o", "out.h5"}, pieces, "", inputs());
  }
};

// Samples of h = 0.01 on the left half of the unit square and 0.02 on the right: away from the
// boundary and from the step, nodes per area are c / h^2, c the density times h^2 that a constant
// h = 0.01 gives on the same square in the same window.
TEST_F(SampleSpacing, DensityFollowsTheSampledSpacing) {
  const SampleSet step = grid_samples(2, 41, 0.0, 1.0, [](double x, double, double) { return x < 0.5 ? 0.01 : 0.02; });
  ASSERT_TRUE(write_sample_rows(dir_ / "step.h5", step));
  write("step.json", samples_domain(R"({"samples": "step.h5", "values": "/values"})"));
  write("flat.json", samples_domain("0.01"));
  ASSERT_EQ(run({"run", "step.json", "-o", "step_out.h5"}).status, 0);
  ASSERT_EQ(run({"run", "flat.json", "-o", "flat_out.h5"}).status, 0);
  const auto flat = nodegen::io::read_hdf5(dir_ / "flat_out.h5").nodes;
  const auto stepped = nodegen::io::read_hdf5(dir_ / "step_out.h5").nodes;
  const double c = static_cast<double>(count_in(flat, 0.1, 0.9, 0.1, 0.9)) * 1e-4 / 0.64;
  EXPECT_GT(c, 0.8);  // hexagonal packing at h: 2 / sqrt(3) = 1.15 nodes per h^2; the fill's is less dense
  EXPECT_LT(c, 1.2);
  const double left = static_cast<double>(count_in(stepped, 0.08, 0.42, 0.08, 0.92)) / (0.34 * 0.84);
  const double right = static_cast<double>(count_in(stepped, 0.58, 0.92, 0.08, 0.92)) / (0.34 * 0.84);
  EXPECT_NEAR(left / (c / 1e-4), 1.0, 0.1) << "c " << c << ", left " << left;
  EXPECT_NEAR(right / (c / 4e-4), 1.0, 0.1) << "c " << c << ", right " << right;
  // The output's h is the samples' there.
  for (std::size_t i = 0; i < stepped.node_count(); ++i) {
    const double x = stepped.coord(i, 0);
    if (x < 0.475) {
      ASSERT_NEAR(stepped.h[i], 0.01, 1e-17) << x;
    } else if (x > 0.5) {
      ASSERT_NEAR(stepped.h[i], 0.02, 1e-17) << x;
    }
  }
}

// A run's output as the samples of the next, at half its h (written into the output as /domain/h_new):
// about four times the nodes (the interior's four times, the boundary's twice).
TEST_F(SampleSpacing, APreviousRunsOutputResampledAtHalfItsSpacing) {
  write("first.json", samples_domain(R"("0.015 + 0.02*x")"));
  const Result first = run({"run", "first.json", "-o", "first.h5"});
  ASSERT_EQ(first.status, 0) << first.err;
  const auto previous = nodegen::io::read_hdf5(dir_ / "first.h5").nodes;
  std::vector<double> half(previous.h);
  for (double& h : half) h *= 0.5;
  ASSERT_TRUE(write_hdf5_dataset(dir_ / "first.h5", "/domain/h_new", {half.size()}, half));
  write("second.json", samples_domain(R"({"samples": "first.h5", "values": "/domain/h_new"})"));
  const Result second = run({"run", "second.json", "-o", "second.h5"});
  ASSERT_EQ(second.status, 0) << second.err;
  const double ratio = static_cast<double>(nodes_in(second.out)) / static_cast<double>(nodes_in(first.out));
  EXPECT_GT(ratio, 3.5) << first.out << second.out;
  EXPECT_LT(ratio, 4.5) << first.out << second.out;
  // The first run's nodes are samples: at each of them the second run's h is exactly half the first's.
  const auto resampled = nodegen::io::read_hdf5(dir_ / "second.h5");
  const std::string* spacing = nodegen::io::find_string(resampled.metadata, "spacing");
  ASSERT_NE(spacing, nullptr);
  EXPECT_NE(spacing->find("samples"), std::string::npos) << *spacing;
  EXPECT_NE(spacing->find("/domain/h_new"), std::string::npos) << *spacing;
  const Result stats = run({"stats", "second.h5"});  // the domain rebuilt from the stored text reads the samples again
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(stats.err, "");
  EXPECT_NE(stats.out.find("packing"), std::string::npos) << stats.out;
  // The positions named explicitly, as rows: the same nodes.
  SampleSet rows;
  rows.positions = previous.positions;
  rows.values = half;
  ASSERT_TRUE(write_sample_rows(dir_ / "rows.h5", rows, "/xy", "/h"));
  write("rows.json", samples_domain(R"({"samples": "rows.h5", "positions": "xy", "values": "h"})"));
  const Result third = run({"run", "rows.json", "-o", "third.h5"});
  ASSERT_EQ(third.status, 0) << third.err;
  EXPECT_EQ(fingerprint(third.out), fingerprint(second.out));
}

// scale multiplies every value, then min and max clamp it: the output's h shows each.
TEST_F(SampleSpacing, ScaleMinAndMaxReachTheOutputsSpacing) {
  const SampleSet ramp = grid_samples(2, 11, 0.0, 1.0, [](double x, double, double) { return 0.02 + 0.04 * x; });
  ASSERT_TRUE(write_sample_nodes(dir_ / "ramp.h5", ramp, "/domain/h"));
  write("d.json", samples_domain(R"({"samples": "ramp.h5", "values": "/domain/h", "scale": 0.5, "min": 0.015, "max": 0.02})"));
  const Result r = run({"run", "d.json", "-o", "out.h5"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto out = nodegen::io::read_hdf5(dir_ / "out.h5").nodes;
  // The samples' values scaled and clamped, then interpolated: linear in x between the grid's columns.
  auto at_column = [](int i) { return std::clamp(0.5 * (0.02 + 0.04 * i / 10.0), 0.015, 0.02); };
  for (std::size_t i = 0; i < out.node_count(); ++i) {
    const double x = out.coord(i, 0);
    const int column = std::min(static_cast<int>(x * 10), 9);
    const double t = x * 10 - column, expected = (1 - t) * at_column(column) + t * at_column(column + 1);
    ASSERT_NEAR(out.h[i], expected, 1e-15) << "x " << x;
  }
  EXPECT_NEAR(*std::min_element(out.h.begin(), out.h.end()), 0.015, 1e-17);
  EXPECT_NEAR(*std::max_element(out.h.begin(), out.h.end()), 0.02, 1e-17);
}

// A samples file named in a domain file is found beside it, whatever the current folder, and a run
// may not write its output over it.
TEST_F(SampleSpacing, TheFileIsFoundBesideTheDomainFileAndNeverOverwritten) {
  fs::create_directory(dir_ / "sub");
  const SampleSet flat = grid_samples(2, 3, 0.0, 1.0, [](double, double, double) { return 0.05; });
  ASSERT_TRUE(write_sample_rows(dir_ / "sub" / "s.h5", flat));
  write("sub/d.json", samples_domain(R"({"samples": "s.h5", "values": "/values"})"));
  const Result r = run({"run", "sub/d.json", "-o", "out.h5"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto before = fs::last_write_time(dir_ / "sub" / "s.h5");
  const Result over = run({"run", "sub/d.json", "-o", "sub/s.h5"});
  EXPECT_EQ(over.status, 2) << over.err;
  EXPECT_NE(over.err.find("s.h5"), std::string::npos) << over.err;
  EXPECT_EQ(fs::last_write_time(dir_ / "sub" / "s.h5"), before);
  EXPECT_EQ(nodegen::io::read_hdf5(dir_ / "out.h5").nodes.h.front(), 0.05);
}

TEST_F(SampleSpacing, SameNodesAtOneTwoAndSevenThreads) {
  const SampleSet wavy = grid_samples(2, 30, -0.1, 1.1, [](double x, double y, double) {
    return 0.006 + 0.004 * std::sin(7 * x) * std::cos(5 * y) + 0.004 * x;
  });
  ASSERT_TRUE(write_sample_rows(dir_ / "wavy.h5", wavy));
  write("d.json", samples_domain(R"({"samples": "wavy.h5", "values": "/values"})"));
  std::string first;
  for (const char* threads : {"1", "2", "7"}) {
    const Result r = run({"run", "d.json", "-o", "out.h5", "--threads", threads});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_GT(nodes_in(r.out), 10000u);
    if (first.empty()) first = fingerprint(r.out);
    EXPECT_EQ(fingerprint(r.out), first) << threads << " threads";
  }
  // In 3D too.
  const SampleSet cube = grid_samples(3, 6, 0.0, 1.0, [](double x, double y, double z) { return 0.04 + 0.03 * x * y + 0.02 * z; });
  ASSERT_TRUE(write_sample_nodes(dir_ / "cube.h5", cube, "/h"));
  write("c.json", samples_domain(R"({"samples": "cube.h5", "values": "/h"})", 3));
  std::string first3;
  for (const char* threads : {"1", "2", "7"}) {
    const Result r = run({"run", "c.json", "-o", "out3.h5", "--threads", threads});
    ASSERT_EQ(r.status, 0) << r.err;
    if (first3.empty()) first3 = fingerprint(r.out);
    EXPECT_EQ(fingerprint(r.out), first3) << threads << " threads";
  }
}

// Each bad file, dataset or field: exit 2, one line naming the file and the dataset or the field, no
// output file.
TEST_F(SampleSpacing, BadSampleFilesAreOneErrorLineNamingTheFileAndDataset) {
  const SampleSet good = grid_samples(2, 3, 0.0, 1.0, [](double, double, double) { return 0.1; });
  write("junk.h5", "{\"not\": \"hdf5\"}\n");
  expect_refused(R"({"samples": "junk.h5", "values": "/values"})", {"junk.h5", "not an HDF5 file"});
  expect_refused(R"({"samples": "missing.h5", "values": "/values"})", {"missing.h5", "does not exist"});
  ASSERT_TRUE(write_sample_rows(dir_ / "good.h5", good));
  expect_refused(R"({"samples": "good.h5", "values": "/nope"})", {"good.h5", "/nope", "missing"});
  expect_refused(R"({"samples": "good.h5", "positions": "/nope", "values": "/values"})", {"good.h5", "/nope", "missing"});
  expect_refused(R"({"samples": "good.h5", "values": "/"})", {"good.h5: /: not a dataset"});  // was "is a link"
  expect_refused(R"({"samples": "", "values": "/values"})", {"spacing.samples: is empty"});
  ASSERT_TRUE(write_hdf5_dataset(dir_ / "flat.h5", "/positions", {9, 2}, good.positions));
  ASSERT_TRUE(write_hdf5_dataset(dir_ / "flat.h5", "/values", {3, 3}, good.values));
  expect_refused(R"({"samples": "flat.h5", "values": "/values"})", {"flat.h5", "/values", "expected a 1D array"});
  ASSERT_TRUE(write_hdf5_dataset(dir_ / "wide.h5", "/positions", {3, 4}, std::vector<double>(12, 0.5)));
  ASSERT_TRUE(write_hdf5_dataset(dir_ / "wide.h5", "/values", {3}, {0.1, 0.1, 0.1}));
  expect_refused(R"({"samples": "wide.h5", "values": "/values"})", {"wide.h5", "/positions", "3 x 4"});
  ASSERT_TRUE(write_hdf5_dataset(dir_ / "count.h5", "/positions", {9, 2}, good.positions));
  ASSERT_TRUE(write_hdf5_dataset(dir_ / "count.h5", "/values", {8}, std::vector<double>(8, 0.1)));
  expect_refused(R"({"samples": "count.h5", "values": "/values"})", {"count.h5", "/values", "holds 8 values", "9 positions"});
  auto bad = [&](const std::string& file, auto change) {
    SampleSet s = good;
    change(s);
    EXPECT_TRUE(write_sample_rows(dir_ / file, s));
    return R"({"samples": ")" + file + R"(", "values": "/values"})";
  };
  expect_refused(bad("zero.h5", [](SampleSet& s) { s.values[4] = 0.0; }), {"zero.h5", "/values", "sample 4 has the value 0"});
  expect_refused(bad("nan.h5", [](SampleSet& s) { s.values[1] = std::nan(""); }), {"nan.h5", "/values", "sample 1 has the value nan"});
  expect_refused(bad("xnan.h5", [](SampleSet& s) { s.positions[7] = std::nan(""); }),
                 {"xnan.h5: /positions: sample 3 has a coordinate that is not finite (nan)"});
  expect_refused(bad("few.h5", [](SampleSet& s) { s.values.resize(2), s.positions.resize(4); }),
                 {"few.h5", "2 samples, fewer than the 3"});
  expect_refused(bad("corner.h5", [](SampleSet& s) { std::fill(s.positions.begin(), s.positions.end(), 0.0); }),
                 {"corner.h5", "9 samples at 1 distinct positions, fewer than the 3"});
  const SampleSet cube = grid_samples(3, 2, 0.0, 1.0, [](double, double, double) { return 0.1; });
  ASSERT_TRUE(write_sample_rows(dir_ / "cube.h5", cube));
  expect_refused(R"({"samples": "cube.h5", "values": "/values"})", {"spacing.samples", "cube.h5", "3 coordinates", "dim 2"});
  expect_refused(R"({"samples": "good.h5", "values": "/values"})", {"spacing.samples", "good.h5", "2 coordinates", "dim 3"}, 3);
}

// A coordinate that is not finite is the positions dataset's fault: its line names that dataset.
TEST_F(SampleSpacing, ANonFiniteCoordinateNamesThePositionsDataset) {
  SampleSet s = grid_samples(2, 3, 0.0, 1.0, [](double, double, double) { return 0.1; });
  s.positions[7] = std::nan("");
  ASSERT_TRUE(write_sample_rows(dir_ / "xnan.h5", s, "/xy", "/h"));
  expect_refused(R"({"samples": "xnan.h5", "positions": "/xy", "values": "/h"})",
                 {"xnan.h5: /xy: sample 3 has a coordinate that is not finite"});
}

TEST_F(SampleSpacing, BadSpacingFieldsAreOneErrorLineNamingTheField) {
  const SampleSet good = grid_samples(2, 3, 0.0, 1.0, [](double, double, double) { return 0.1; });
  ASSERT_TRUE(write_sample_rows(dir_ / "good.h5", good));
  const std::string file = R"("samples": "good.h5", "values": "/values")";
  expect_refused("{" + file + R"(, "scale": 0})", {"spacing.scale"});
  expect_refused("{" + file + R"(, "scale": -2})", {"spacing.scale"});
  expect_refused("{" + file + R"(, "min": 0.2, "max": 0.1})", {"spacing.min", "spacing.max"});
  expect_refused("{" + file + R"(, "valuez": "/values"})", {"spacing.valuez", "unknown field"});
  expect_refused(R"({"samples": "good.h5"})", {"spacing", "values"});
  expect_refused(R"({"samples": "good.h5", "values": ""})", {"spacing.values", "is empty"});
  expect_refused(R"({"values": "/values"})", {"spacing", "samples"});
}

// A file whose metadata crashes libhdf5 (tests/data, found by fuzz_hdf5_reader) is read in a child
// process: the crash is this file's error; one whose metadata claims a terabyte is refused as corrupt.
TEST_F(SampleSpacing, ACorruptFileIsTheFilesErrorNotACrash) {
  fs::copy_file(kSource / "tests" / "data" / "hdf5_heap_undefined_address.h5", dir_ / "crash.h5");
  expect_refused(R"({"samples": "crash.h5", "values": "/values"})", {"crash.h5", "libhdf5 crashed reading it"});
  fs::copy_file(kSource / "tests" / "data" / "hdf5_heap_1tb.h5", dir_ / "heap.h5");
  expect_refused(R"({"samples": "heap.h5", "values": "/values"})", {"heap.h5", "corrupt or truncated"});
}

}  // namespace
