// Spacing samples read from HDF5 (io/sample_file.hpp): nodegen's layout ({d, N} at /domain/pos) and
// rows ({N, d}), the default positions' dataset, names without a leading slash; the same arrays read
// here and in a child process; errors as "<file>: <dataset>: <reason>" from either.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/io/sample_file.hpp"
#include "support/sample_file_support.hpp"
#include "support/temp_dir.hpp"

namespace {

using nodegen::InputError;
using nodegen::io::read_sample_file;
using nodegen::io::SampleArrays;
using namespace nodegen::test;

SampleSet three_dimensional() {
  SampleSet s;
  s.dim = 3;
  for (int i = 0; i < 5; ++i) {
    s.positions.insert(s.positions.end(), {0.1 * i, 1.0 + i, -2.0 * i});
    s.values.push_back(0.01 * (i + 1));
  }
  return s;
}

void expect_same(const SampleArrays& got, const SampleSet& want) {
  EXPECT_EQ(got.dim, want.dim);
  EXPECT_EQ(got.positions, want.positions);
  EXPECT_EQ(got.values, want.values);
}

TEST(SampleFile, BothLayoutsReadHereAndInAChildProcess) {
  const TempDir dir("samples");
  const SampleSet s = three_dimensional();
  ASSERT_TRUE(write_sample_nodes(dir / "nodes.h5", s, "/domain/h"));
  ASSERT_TRUE(write_sample_rows(dir / "rows.h5", s, "/data/xyz", "/data/h"));
  ASSERT_TRUE(write_sample_rows(dir / "default.h5", s));  // /positions, /values
  for (bool isolated : {false, true}) {
    SCOPED_TRACE(isolated);
    expect_same(read_sample_file(dir / "nodes.h5", "", "/domain/h", isolated), s);  // {d, N} interleaved
    expect_same(read_sample_file(dir / "nodes.h5", "/domain/pos", "domain/h", isolated), s);
    expect_same(read_sample_file(dir / "rows.h5", "data/xyz", "/data/h", isolated), s);
    expect_same(read_sample_file(dir / "default.h5", "", "/values", isolated), s);
  }
  // A file with both: /domain/pos is the default.
  SampleSet other = s;
  for (double& x : other.positions) x += 1.0;
  ASSERT_TRUE(write_hdf5_dataset(dir / "nodes.h5", "/positions", {5, 3}, other.positions));
  expect_same(read_sample_file(dir / "nodes.h5", "", "/domain/h"), s);
  expect_same(read_sample_file(dir / "nodes.h5", "/positions", "/domain/h"), other);
}

// The error, the same from the child process as read here: its file, dataset and reason.
void expect_error(const std::filesystem::path& file, const std::string& positions, const std::string& values,
                  const std::string& field, const std::string& reason) {
  for (bool isolated : {false, true}) {
    try {
      read_sample_file(file, positions, values, isolated);
      ADD_FAILURE() << "read " << file << " (isolated " << isolated << ")";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), file.string());
      EXPECT_EQ(e.field(), field) << e.what();
      EXPECT_NE(e.reason().find(reason), std::string::npos) << e.what();
    }
  }
}

TEST(SampleFile, ErrorsNameTheFileAndTheDataset) {
  const TempDir dir("samples");
  const SampleSet s = three_dimensional();
  ASSERT_TRUE(write_sample_rows(dir / "rows.h5", s));
  expect_error(dir / "rows.h5", "", "/h", "/h", "missing");
  expect_error(dir / "rows.h5", "/xyz", "/values", "/xyz", "missing");
  expect_error(dir / "missing.h5", "", "/values", "file", "does not exist");
  ASSERT_TRUE(write_hdf5_dataset(dir / "transposed.h5", "/positions", {3, 5}, s.positions));
  ASSERT_TRUE(write_hdf5_dataset(dir / "transposed.h5", "/values", {5}, s.values));
  expect_error(dir / "transposed.h5", "", "/values", "/positions", "expected one row of 2 or 3 coordinates");
  ASSERT_TRUE(write_hdf5_dataset(dir / "four.h5", "/domain/pos", {4, 2}, std::vector<double>(8, 0.0)));
  ASSERT_TRUE(write_hdf5_dataset(dir / "four.h5", "/values", {2}, {0.1, 0.1}));
  expect_error(dir / "four.h5", "", "/values", "/domain/pos", "expected 2 or 3 coordinate rows");
  ASSERT_TRUE(write_hdf5_dataset(dir / "short.h5", "/positions", {5, 3}, s.positions));
  ASSERT_TRUE(write_hdf5_dataset(dir / "short.h5", "/values", {4}, {0.1, 0.1, 0.1, 0.1}));
  expect_error(dir / "short.h5", "", "/values", "/values", "holds 4 values, but /positions holds 5 positions");
  SampleSet bad = s;
  bad.positions[7] = HUGE_VAL;
  ASSERT_TRUE(write_sample_nodes(dir / "inf.h5", bad, "/h"));
  expect_error(dir / "inf.h5", "", "/h", "/domain/pos", "sample 2 has a coordinate that is not finite (inf)");
}

}  // namespace
