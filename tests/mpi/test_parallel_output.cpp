// The parallel-HDF5 writer: every rank writes its slab of one file; the file must hold exactly what a
// single process writes from the whole arrays (same /domain and /paraview arrays, same fingerprint),
// plus /domain/partition. Run under mpirun at several rank counts (tests/mpi/CMakeLists.txt).
#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/io_test_support.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "nodegen/io/fingerprint.hpp"
#include "nodegen/io/hdf5_reader.hpp"
#include "nodegen/io/output.hpp"
#include "nodegen/mpi/parallel_output.hpp"

namespace fs = std::filesystem;
using nodegen::InputError;
using nodegen::io::FileSlabs;
using nodegen::io::NodeArrays;
using nodegen::io::RowRun;
using nodegen::io::RowRuns;

namespace {

int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int ranks() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

// A folder every rank sees (made by rank 0, removed by rank 0 after every rank is done with it).
class SharedTempDir {
 public:
  SharedTempDir() {
    std::string name;
    if (rank() == 0) {
      std::string tmpl = (fs::temp_directory_path() / "nodegen-mpi-XXXXXX").string();
      name = ::mkdtemp(tmpl.data());
    }
    unsigned long size = name.size();
    MPI_Bcast(&size, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    name.resize(size);
    MPI_Bcast(name.data(), static_cast<int>(size), MPI_CHAR, 0, MPI_COMM_WORLD);
    path_ = name;
  }
  ~SharedTempDir() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank() == 0) fs::remove_all(path_);
  }
  const fs::path& path() const { return path_; }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  fs::path path_;
};

// One rank's part: a run of boundary rows and a run of interior rows. Rank 0 holds half the interior
// (more than one write block, so the ranks write different numbers of blocks), the last of several ranks
// none; odd ranks list their interior run first, so local order and file order differ.
struct Part {
  RowRun boundary, interior;
  bool interior_first = false;
};
Part part_of(int r, int size, std::size_t nb, std::size_t interior) {
  Part p;
  const auto R = static_cast<std::size_t>(size), k = static_cast<std::size_t>(r);
  p.boundary = {nb * k / R, nb * (k + 1) / R - nb * k / R};
  const std::size_t lead = size == 1 ? interior : interior / 2;
  const std::size_t others = size > 2 ? static_cast<std::size_t>(size - 2) : 1;
  std::size_t first = 0, count = 0;
  if (r == 0) count = lead;
  else if (r < size - 1 || size == 2) {
    first = lead + (interior - lead) * (k - 1) / others;
    count = lead + (interior - lead) * k / others - first;
  }
  p.interior = {nb + first, count};
  p.interior_first = r % 2 == 1;
  return p;
}

// The rows of `all` that one part holds, as local arrays, and their slabs.
struct Local {
  NodeArrays nodes;
  FileSlabs slabs;
};
Local local_part(const NodeArrays& all, const Part& p) {
  Local l;
  l.nodes.dim = all.dim;
  const auto d = static_cast<std::size_t>(all.dim);
  std::vector<RowRun> runs = {p.boundary, p.interior};
  if (p.interior_first) std::swap(runs[0], runs[1]);
  for (const RowRun& run : runs)
    for (std::size_t i = run.first; i < run.first + run.count; ++i) {
      for (std::size_t k = 0; k < d; ++k) l.nodes.positions.push_back(all.positions[i * d + k]);
      l.nodes.types.push_back(all.types[i]);
      l.nodes.bmap.push_back(all.bmap[i]);
      l.nodes.h.push_back(all.h[i]);
    }
  for (std::size_t i = p.boundary.first; i < p.boundary.first + p.boundary.count; ++i)
    for (std::size_t k = 0; k < d; ++k) l.nodes.normals.push_back(all.normals[i * d + k]);
  l.slabs = {RowRuns(runs), RowRuns({p.boundary}), all.node_count(), all.boundary_count()};
  return l;
}

// A dataset's bytes as stored.
std::vector<unsigned char> raw(const fs::path& file, const char* name) {
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t t = H5Dget_type(d);
  hid_t s = H5Dget_space(d);
  std::vector<unsigned char> bytes(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)) * H5Tget_size(t));
  if (!bytes.empty()) H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
  H5Sclose(s);
  H5Tclose(t);
  H5Dclose(d);
  H5Fclose(f);
  return bytes;
}

const nodegen::io::RunMetadata kMetadata = {{"seed", std::int64_t{7}}, {"domain_file_text", std::string("{}")}};

}  // namespace

class ParallelWrite : public ::testing::TestWithParam<int> {};

TEST_P(ParallelWrite, RanksTogetherWriteWhatOneProcessWrites) {
  const int dim = GetParam();
  SharedTempDir dir;
  const std::size_t nb = 777, interior = 140000;
  const NodeArrays all = nodegen::testing::make_nodes(dim, nb, interior, 11);
  std::string serial;
  if (rank() == 0) serial = nodegen::io::write_output(dir.path() / "serial.h5", all.view(), kMetadata);

  const Local mine = local_part(all, part_of(rank(), ranks(), nb, interior));
  nodegen::mpi::ParallelOutputFiles files(MPI_COMM_WORLD, dir.path() / "parallel.h5");
  const std::string fingerprint = files.write(mine.nodes.view(), mine.slabs, kMetadata);
  files.commit();
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() != 0) return;

  EXPECT_EQ(fingerprint, serial);
  const auto back = nodegen::io::read_hdf5(dir.path() / "parallel.h5");
  EXPECT_EQ(back.nodes.positions, all.positions);
  EXPECT_EQ(back.nodes.types, all.types);
  EXPECT_EQ(back.nodes.bmap, all.bmap);
  EXPECT_EQ(back.nodes.normals, all.normals);
  EXPECT_EQ(back.nodes.h, all.h);
  EXPECT_EQ(nodegen::io::nodes_sha256(back.nodes), serial);
  EXPECT_EQ(*nodegen::io::find_string(back.metadata, "nodes_sha256"), serial);
  EXPECT_EQ(*nodegen::io::find_integer(back.metadata, "ranks"), ranks());
  EXPECT_EQ(*nodegen::io::find_integer(back.metadata, "seed"), 7);
  for (const char* name : {"/paraview/points", "/paraview/connectivity", "/paraview/normal"})
    EXPECT_EQ(raw(dir.path() / "parallel.h5", name), raw(dir.path() / "serial.h5", name)) << name;

  // Every node's rank, as the parts gave them out.
  std::vector<std::int32_t> expected(all.node_count(), -1);
  for (int r = 0; r < ranks(); ++r) {
    const Part p = part_of(r, ranks(), nb, interior);
    for (const RowRun& run : {p.boundary, p.interior})
      std::fill_n(expected.begin() + static_cast<std::ptrdiff_t>(run.first), run.count, r);
  }
  const auto bytes = raw(dir.path() / "parallel.h5", "/domain/partition");
  std::vector<std::int32_t> partition(bytes.size() / sizeof(std::int32_t));
  std::copy(bytes.begin(), bytes.end(), reinterpret_cast<unsigned char*>(partition.data()));
  EXPECT_EQ(partition, expected);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"parallel.h5", "parallel.xdmf", "serial.h5", "serial.xdmf"}));
}

INSTANTIATE_TEST_SUITE_P(Dims, ParallelWrite, ::testing::Values(2, 3));

// One rank fails while the file is half written (its h evaluation, after the first block): every rank
// ends with that rank's error, and no file is left.
TEST(ParallelWriteFailure, OneFailingRankEndsEveryRankWithItsErrorAndLeavesNoFile) {
  SharedTempDir dir;
  const std::size_t nb = 50, interior = 150000;
  const NodeArrays all = nodegen::testing::make_nodes(2, nb, interior, 3);
  const Local mine = local_part(all, part_of(rank(), ranks(), nb, interior));
  auto view = mine.nodes.view();
  if (rank() == 0) {
    view.spacing_at = [](std::size_t first, std::span<double> out) {
      if (first > 0) throw InputError("spacing.json", "spacing", "h is negative at the 65537th node");
      for (double& x : out) x = 1.0;
    };
  }
  try {
    nodegen::mpi::ParallelOutputFiles files(MPI_COMM_WORLD, dir.path() / "out.h5");
    files.write(view, mine.slabs, kMetadata);
    files.commit();
    ADD_FAILURE() << "expected the failure on every rank";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "spacing.json: spacing: h is negative at the 65537th node");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) {
    EXPECT_TRUE(dir.entries().empty());
  }
}

TEST(ParallelWriteFailure, MissingFolderIsTheSameInputErrorOnEveryRank) {
  SharedTempDir dir;
  try {
    nodegen::mpi::ParallelOutputFiles files(MPI_COMM_WORLD, dir.path() / "no" / "x.h5");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.field(), "output");
    EXPECT_NE(e.reason().find("does not exist"), std::string::npos) << e.what();
  }
}

// Medusa reads N and bmap as int32: a file of more nodes is refused with one error on every rank, before
// anything is written.
TEST(ParallelWriteFailure, MoreNodesThanInt32IsTheSameInputErrorOnEveryRank) {
  SharedTempDir dir;
  const NodeArrays all = nodegen::testing::make_nodes(2, 0, 10, 5);
  const std::size_t total = std::size_t{1} << 31;
  const FileSlabs slabs{RowRuns({{static_cast<std::size_t>(rank()) * 10, 10}}), RowRuns(), total, 0};
  try {
    nodegen::mpi::ParallelOutputFiles files(MPI_COMM_WORLD, dir.path() / "big.h5");
    files.write(all.view(), slabs, kMetadata);
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), (dir.path() / "big.h5").string().append(": output: 2147483648 nodes: more than the "
                                                                  "2^31 - 1 nodes Medusa's int32 indexes address").c_str());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) {
    EXPECT_TRUE(dir.entries().empty());
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  int failed = RUN_ALL_TESTS();
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
