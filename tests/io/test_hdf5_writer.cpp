// HDF5 output: Medusa's layout, round trip through our reader, atomic replacement, error lines.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/io/fingerprint.hpp"
#include "nodegen/io/hdf5_reader.hpp"
#include "nodegen/io/output.hpp"
#include "nodegen/io/xdmf_writer.hpp"
#include "nodegen/io/node_writer.hpp"
#include "support/io_test_support.hpp"
#include "support/temp_dir.hpp"

namespace fs = std::filesystem;
using nodegen::InputError;
using nodegen::io::NodeArrays;
using nodegen::testing::make_nodes;

namespace {

using nodegen::test::TempDir;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Reads a dataset's dims straight through the C API (what Medusa's HDF::readLinearArray sees).
std::vector<hsize_t> raw_dims(const fs::path& file, const char* name, std::vector<double>* values = nullptr) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t s = H5Dget_space(d);
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(s)));
  H5Sget_simple_extent_dims(s, dims.data(), nullptr);
  if (values) {
    hsize_t total = 1;
    for (auto x : dims) total *= x;
    values->resize(total);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values->data());
  }
  H5Sclose(s);
  H5Dclose(d);
  H5Fclose(f);
  return dims;
}

}  // namespace

class RoundTrip : public ::testing::TestWithParam<int> {};

TEST_P(RoundTrip, EveryArrayAndAttributeComesBackExactly) {
  const int dim = GetParam();
  const TempDir dir("io");
  // More nodes than one write block (65536) so the blockwise transposition is exercised across blocks.
  const NodeArrays nodes = make_nodes(dim, 1234, 70000, 7);
  const nodegen::io::RunMetadata meta = {
      {"domain_file_text", std::string("{\"dim\": 2}\n")}, {"seed", std::int64_t{42}}, {"fill_seconds", 1.25},
      {"empty", std::string()}};
  const fs::path file = dir.path() / "nodes.h5";
  const std::string fingerprint = nodegen::io::write_output(file, nodes.view(), meta);

  auto back = nodegen::io::read_hdf5(file);
  EXPECT_EQ(back.nodes.dim, dim);
  EXPECT_EQ(back.nodes.positions, nodes.positions);
  EXPECT_EQ(back.nodes.types, nodes.types);
  EXPECT_EQ(back.nodes.bmap, nodes.bmap);
  EXPECT_EQ(back.nodes.normals, nodes.normals);
  EXPECT_EQ(back.nodes.h, nodes.h);
  // The writer adds the fingerprint of what it wrote, which is also what the reader recomputes.
  ASSERT_EQ(back.metadata.size(), meta.size() + 1);
  EXPECT_EQ(back.metadata.back().first, "nodes_sha256");
  EXPECT_EQ(std::get<std::string>(back.metadata.back().second), fingerprint);
  EXPECT_EQ(nodegen::io::nodes_sha256(back.nodes), fingerprint);
  EXPECT_EQ(fingerprint.size(), 64u);
  back.metadata.pop_back();
  EXPECT_EQ(back.metadata, meta);
  // One changed value anywhere changes the fingerprint.
  NodeArrays changed = back.nodes;
  changed.h.back() = std::nextafter(changed.h.back(), 1e9);
  EXPECT_NE(nodegen::io::nodes_sha256(changed), fingerprint);
  EXPECT_EQ(*nodegen::io::find_integer(back.metadata, "seed"), 42);
  EXPECT_EQ(nodegen::io::find_integer(back.metadata, "missing"), nullptr);
  // The space the parallel writer reserves before any rank writes holds the file (without room to
  // spare, a full disk could still fail a rank's write, which parallel HDF5 cannot survive).
  nodegen::io::RunMetadata stored = meta;
  stored.emplace_back("nodes_sha256", fingerprint);
  const auto bound = nodegen::io::detail::NodeWriter::file_bytes_bound(
      nodegen::io::FileSlabs::whole(nodes.node_count(), nodes.boundary_count()), dim, stored);
  EXPECT_LE(fs::file_size(file), bound);
  EXPECT_GE(fs::file_size(file) + 128 * 1024 + 4 * nodes.node_count(), bound) << "a bound far above the file";
  // Only the two final files remain: no temporaries.
  EXPECT_EQ(dir.entries(), 2u);
  EXPECT_TRUE(fs::exists(dir.path() / "nodes.xdmf"));
}

TEST_P(RoundTrip, PositionsAreStoredTransposedAsMedusaReadsThem) {
  const int dim = GetParam();
  const TempDir dir("io");
  const NodeArrays nodes = make_nodes(dim, 10, 90, 3);
  const fs::path file = dir.path() / "m.h5";
  nodegen::io::write_output(file, nodes.view(), {});
  std::vector<double> rows;
  const auto dims = raw_dims(file, "/domain/pos", &rows);
  ASSERT_EQ(dims.size(), 2u);
  EXPECT_EQ(dims[0], static_cast<hsize_t>(dim));  // Medusa: cols = dims[0] = coordinates
  EXPECT_EQ(dims[1], 100u);                         //         rows = dims[1] = nodes
  // Medusa's read2DArray: value[i][j] = linear[j * rows + i].
  for (std::size_t i = 0; i < 100; ++i)
    for (std::size_t j = 0; j < static_cast<std::size_t>(dim); ++j)
      ASSERT_EQ(rows[j * 100 + i], nodes.coord(i, static_cast<int>(j)));
  const auto ndims = raw_dims(file, "/domain/normals");
  EXPECT_EQ(ndims, (std::vector<hsize_t>{static_cast<hsize_t>(dim), 10}));
  EXPECT_EQ(raw_dims(file, "/domain/types"), std::vector<hsize_t>{100});
  EXPECT_EQ(raw_dims(file, "/paraview/points"), (std::vector<hsize_t>{100, 3}));
}

INSTANTIATE_TEST_SUITE_P(Dims, RoundTrip, ::testing::Values(2, 3));

TEST(HdfWriter, NoBoundaryNodesWritesAnEmptyNormalsArray) {
  const TempDir dir("io");
  const NodeArrays nodes = make_nodes(2, 0, 50, 1);
  nodegen::io::write_output(dir.path() / "e.h5", nodes.view(), {});
  const auto back = nodegen::io::read_hdf5(dir.path() / "e.h5");
  EXPECT_EQ(back.nodes.node_count(), 50u);
  EXPECT_EQ(back.nodes.boundary_count(), 0u);
}

TEST(HdfWriter, FailingWriteLeavesNothingAndKeepsTheOlderFile) {
  const TempDir dir("io");
  const fs::path file = dir.path() / "keep.h5";
  const NodeArrays first = make_nodes(2, 5, 20, 1);
  nodegen::io::write_output(file, first.view(), {});
  const std::string old_xdmf = slurp(dir.path() / "keep.xdmf");

  NodeArrays second = make_nodes(3, 50, 100000, 2);
  auto view = second.view();
  // The spacing evaluation fails in the second block, after the file is half written.
  view.spacing_at = [](std::size_t first, std::span<double> out) {
    if (first > 0) throw std::runtime_error("spacing blew up");
    for (auto& x : out) x = 1.0;
  };
  EXPECT_THROW(nodegen::io::write_output(file, view, {}), std::runtime_error);
  EXPECT_EQ(dir.entries(), 2u);  // the two older files, no temporary
  EXPECT_EQ(nodegen::io::read_hdf5(file).nodes.positions, first.positions);
  EXPECT_EQ(slurp(dir.path() / "keep.xdmf"), old_xdmf);
}

TEST(HdfWriter, FailureBeforeWriteLeavesNothing) {
  const TempDir dir("io");
  {
    nodegen::io::OutputFiles reserved(dir.path() / "never.h5");
    EXPECT_EQ(dir.entries(), 2u);  // the two hidden temporaries exist while reserved
  }
  EXPECT_EQ(dir.entries(), 0u);
}

TEST(HdfWriter, UnwritablePathIsOneLineInputErrorNamingTheFile) {
  const TempDir dir("io");
  const NodeArrays nodes = make_nodes(2, 5, 20, 1);
  const fs::path missing_dir = dir.path() / "no" / "such" / "dir" / "x.h5";
  try {
    nodegen::io::write_output(missing_dir, nodes.view(), {});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\n'), std::string::npos);
    EXPECT_NE(what.find(missing_dir.string()), std::string::npos) << what;
    EXPECT_NE(what.find("does not exist"), std::string::npos) << what;
  }
  // A regular file where a directory should be (root ignores permission bits, so this is the
  // unwritable case that holds for every user).
  std::ofstream(dir.path() / "plain").put('x');
  EXPECT_THROW(nodegen::io::write_output(dir.path() / "plain" / "x.h5", nodes.view(), {}), InputError);
  // An existing directory as the output file name.
  fs::create_directory(dir.path() / "adir.h5");
  EXPECT_THROW(nodegen::io::write_output(dir.path() / "adir.h5", nodes.view(), {}), InputError);
  // Writing to /proc fails at file creation.
  EXPECT_THROW(nodegen::io::write_output("/proc/nodegen-test.h5", nodes.view(), {}), InputError);
  EXPECT_EQ(dir.entries(), 2u);  // plain + adir.h5 only
}

TEST(HdfReader, MissingOrForeignFilesAreInputErrors) {
  const TempDir dir("io");
  EXPECT_THROW(nodegen::io::read_hdf5(dir.path() / "absent.h5"), InputError);
  std::ofstream(dir.path() / "text.h5") << "not hdf5";
  try {
    nodegen::io::read_hdf5(dir.path() / "text.h5");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not an HDF5 file"), std::string::npos) << e.what();
  }
  hid_t f = H5Fcreate((dir.path() / "empty.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(f);
  try {
    nodegen::io::read_hdf5(dir.path() / "empty.h5");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/domain/pos: missing"), std::string::npos) << e.what();
  }
}

TEST(Xdmf, SidecarNamesTheH5FileAndEveryArray) {
  EXPECT_EQ(nodegen::io::xdmf_path_for("out/a.b.h5"), fs::path("out/a.b.xdmf"));
  const std::string doc = nodegen::io::xdmf_document("a&b.h5", 12);
  EXPECT_NE(doc.find("a&amp;b.h5:/paraview/points"), std::string::npos);
  EXPECT_NE(doc.find("a&amp;b.h5:/domain/types"), std::string::npos);
  EXPECT_NE(doc.find("a&amp;b.h5:/domain/h"), std::string::npos);
  EXPECT_NE(doc.find("a&amp;b.h5:/paraview/normal"), std::string::npos);
  EXPECT_NE(doc.find("NumberOfElements=\"12\""), std::string::npos);
  EXPECT_NE(doc.find("TopologyType=\"Polyvertex\""), std::string::npos);
}
