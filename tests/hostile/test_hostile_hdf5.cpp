// Hostile HDF5 files for `stats` (and `solve`), end to end (the fixture it builds on:
// support/hostile_input_support.hpp): dimensions, ranks and types that do not fit, non-finite or
// coincident nodes, array and many attributes, chunks and filters that allocate beyond the data, links
// to other files, and files found by fuzz_hdf5_reader (tests/data) whose metadata misleads libhdf5 or
// crashes it. Each ends in one error line naming the dataset, or in a normal report.
#include <gtest/gtest.h>
#include <hdf5.h>
#include <zlib.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/hostile_input_support.hpp"
#include "support/sanitized_build.hpp"

namespace {

using namespace nodegen::test;

// Class 4: HDF5 files for `stats`, crafted with the C API.
class HostileHdf5 : public HostileInput {
 protected:
  // A file with /domain and the given datasets; each is created by its callback.
  struct Dataset {
    const char* name;
    std::vector<hsize_t> dims;
    hid_t type;
    std::vector<double> values;  // written when not empty (converted to `type`)
    bool late = false;           // no storage allocated: the dims alone claim the size
  };
  fs::path make(const std::string& file, const std::vector<Dataset>& sets) {
    const fs::path path = dir_ / file;
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t g = H5Gcreate2(f, "/domain", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    for (const Dataset& d : sets) {
      const hid_t space = H5Screate_simple(static_cast<int>(d.dims.size()), d.dims.data(), nullptr);
      const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
      if (d.late) H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_LATE);
      const hid_t set = H5Dcreate2(f, d.name, d.type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
      if (!d.values.empty()) H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, d.values.data());
      H5Dclose(set);
      H5Pclose(dcpl);
      H5Sclose(space);
    }
    H5Gclose(g);
    H5Fclose(f);
    return path;
  }
  // A valid 2D node set of n nodes at `positions` (x row then y row), all interior.
  std::vector<Dataset> nodes(std::vector<double> positions, std::vector<double> h = {}) {
    const auto n = static_cast<hsize_t>(positions.size() / 2);
    if (h.empty()) h.assign(n, 0.1);
    return {{"/domain/pos", {2, n}, H5T_IEEE_F64LE, std::move(positions)},
            {"/domain/types", {n}, H5T_STD_I32LE, std::vector<double>(n, 1.0)},
            {"/domain/bmap", {n}, H5T_STD_I32LE, std::vector<double>(n, -1.0)},
            {"/domain/normals", {2, 0}, H5T_IEEE_F64LE, {}},
            {"/domain/h", {n}, H5T_IEEE_F64LE, std::move(h)}};
  }
  void expect_stats_error(const std::string& file, const std::vector<std::string>& expected) {
    std::vector<std::string> keep;
    for (const auto& e : fs::directory_iterator(dir_)) keep.push_back(e.path().filename().string());
    std::vector<std::string> pieces = {file};
    pieces.insert(pieces.end(), expected.begin(), expected.end());
    expect_error({"stats", file}, pieces, keep);
  }
};

TEST_F(HostileHdf5, DimensionsThatClaimMoreThanTheFileHolds) {
  // 3 x 1e12 doubles: "cannot create std::vector larger than max_size()" (an internal error).
  make("huge.h5", {{"/domain/pos", {3, 1'000'000'000'000ull}, H5T_IEEE_F64LE, {}, true}});
  expect_stats_error("huge.h5", {"/domain/pos", "claims 3 x 1000000000000 values", "the file stores 0 bytes"});
  // Allocatable, but far beyond the file: 2 x 1e8 doubles never written (1.6 GB).
  make("late.h5", {{"/domain/pos", {2, 100'000'000}, H5T_IEEE_F64LE, {}, true}});
  expect_stats_error("late.h5", {"/domain/pos", "claims 2 x 100000000 values"});
}

// Found by fuzz_hdf5_reader: an array of no columns claiming 1e15 rows. The transposing loop ran once
// per row (for minutes; an optimised build may drop the empty loop, the asan preset's does not).
TEST_F(HostileHdf5, RowsOfNoColumns) {
  const hsize_t rows = 1'000'000'000'000'000ull;
  auto sets = nodes({0, 1, 0, 1});
  sets[3].dims = {rows, 0};  // normals
  make("normals.h5", sets);
  const Result r = run({"stats", "normals.h5"}, kBounded);
  EXPECT_EQ(r.status, 0) << r.err;
  make("pos.h5", {{"/domain/pos", {rows, 0}, H5T_IEEE_F64LE, {}}});
  expect_stats_error("pos.h5", {"/domain/pos", "expected 2 or 3 coordinate rows"});
}

TEST_F(HostileHdf5, RanksAndTypesThatDoNotFit) {
  make("rank.h5", {{"/domain/pos", {2, 2, 2}, H5T_IEEE_F64LE, std::vector<double>(8, 0.0)}});
  expect_stats_error("rank.h5", {"/domain/pos", "expected a 2D array"});
  make("rows.h5", {{"/domain/pos", {7, 2}, H5T_IEEE_F64LE, std::vector<double>(14, 0.0)}});
  expect_stats_error("rows.h5", {"/domain/pos", "expected 2 or 3 coordinate rows"});
  auto sets = nodes({0, 1, 0, 1});
  sets[1].type = H5T_IEEE_F64LE;  // types as doubles
  make("types.h5", sets);
  expect_stats_error("types.h5", {"/domain/types", "expected integers"});
  sets = nodes({0, 1, 0, 1});
  sets[2].dims = {5};  // bmap longer than the node count
  sets[2].values.assign(5, -1.0);
  make("bmap.h5", sets);
  expect_stats_error("bmap.h5", {"/domain/bmap", "expected 2 values"});
}

TEST_F(HostileHdf5, NonFiniteAndCoincidentNodesAndBadSpacing) {
  make("nan.h5", nodes({0, std::nan(""), 0, 1}));
  expect_stats_error("nan.h5", {"/domain/pos", "node 1 has a non-finite coordinate (nan)"});
  make("inf.h5", nodes({0, 1, 0, HUGE_VAL}));
  expect_stats_error("inf.h5", {"/domain/pos", "non-finite coordinate (inf)"});
  make("h.h5", nodes({0, 1, 0, 1}, {0.1, -2}));
  expect_stats_error("h.h5", {"/domain/h", "at node 1 is not positive and finite"});
  // 100 nodes at one point: the k-d tree's depth limit was an internal error.
  make("same.h5", nodes(std::vector<double>(200, 0.5)));
  expect_stats_error("same.h5", {"/domain/pos", "coincident nodes"});
}

// A copy of `from` named `to` whose dataset `name` (read as doubles, its dims given) `change` edits.
template <class Change>
void copy_changed(const fs::path& from, const fs::path& to, const char* name, Change change) {
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  const hid_t f = H5Fopen(to.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t set = H5Dopen2(f, name, H5P_DEFAULT);
  const hid_t space = H5Dget_space(set);
  std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  std::vector<double> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  H5Dread(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  change(values, dims);
  EXPECT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
  H5Sclose(space);
  H5Dclose(set);
  H5Fclose(f);
}

// `solve` checks a file's nodes as `stats` does, with the same line (input/stored_nodes.hpp): an h of
// -0.05, 0 or NaN at a node, a normal that is NaN, zero or not of unit length, a boundary id beyond the
// file's part names. solve gave a result for all of them, and under --neumann reported a NaN normal as
// a singular stencil.
TEST_F(HostileHdf5, SolveRefusesTheNodesStatsRefuses) {
  write("sq.json", R"({"dim": 2, "spacing": 0.1, "shape": )" + kBox2 + "}");
  ASSERT_EQ(run({"run", "sq.json", "-o", "sq.h5", "--quiet", "--threads", "1"}).status, 0);
  const fs::path good = dir_ / "sq.h5";
  const auto expect_both = [&](const std::string& file, const std::vector<std::string>& pieces) {
    std::vector<std::string> keep;
    for (const auto& e : fs::directory_iterator(dir_)) keep.push_back(e.path().filename().string());
    std::vector<std::string> expected = {file};
    expected.insert(expected.end(), pieces.begin(), pieces.end());
    expect_error({"stats", file}, expected, keep);
    expect_error({"solve", file}, expected, keep);
    expect_error({"solve", file, "--neumann", "shape:x-,shape:y-", "--ghost-nodes"}, expected, keep);
  };
  for (const char* h : {"-0.05", "0", "nan"}) {
    copy_changed(good, dir_ / "h.h5", "/domain/h", [&](std::vector<double>& v, auto&) { v[50] = std::strtod(h, nullptr); });
    expect_both("h.h5", {"/domain/h", std::string("h = ") + h + " at node 50 is not positive and finite"});
  }
  // Normals are stored {d, Nb}: every x, then every y. Row 5 is a boundary node's.
  const auto normal = [&](double x, double y) {
    copy_changed(good, dir_ / "n.h5", "/domain/normals", [&](std::vector<double>& v, const std::vector<hsize_t>& dims) {
      v[5] = x, v[dims[1] + 5] = y;
    });
  };
  normal(std::nan(""), 0);
  expect_both("n.h5", {"/domain/normals", ": normal (nan, 0) is not finite"});
  normal(0, 0);
  expect_both("n.h5", {"/domain/normals", ": normal (0, 0) has length 0, not 1"});
  normal(0.6, 0.8001);
  expect_both("n.h5", {"/domain/normals", ": normal (0.6, 0.8001) has length 1.00008, not 1"});
  copy_changed(good, dir_ / "t.h5", "/domain/types", [](std::vector<double>& v, auto&) { v[3] = -9; });
  expect_both("t.h5", {"/domain/types", "boundary id 9 has no name: the file's boundary_names lists 4 parts"});
  // A normal that was rounded to single precision once is still a unit vector.
  copy_changed(good, dir_ / "f.h5", "/domain/normals", [](std::vector<double>& v, auto&) {
    for (double& c : v) c = static_cast<float>(c);
  });
  EXPECT_EQ(run({"solve", "f.h5"}, kBounded).status, 0);
}

// Attributes of /domain that hold arrays were read into a one-value buffer (a heap overflow that
// the asan preset reports); they are skipped now, and the rest of the file is read.
TEST_F(HostileHdf5, ArrayAttributesAreSkipped) {
  const fs::path path = make("attrs.h5", nodes({0, 1, 0, 1}));
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t g = H5Gopen2(f, "/domain", H5P_DEFAULT);
  const hsize_t many = 4096;
  const hid_t space = H5Screate_simple(1, &many, nullptr);
  const std::vector<std::int64_t> values(many, 7);
  const hid_t a = H5Acreate2(g, "seed", H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_INT64, values.data());
  H5Aclose(a);
  H5Sclose(space);
  H5Gclose(g);
  H5Fclose(f);
  const Result r = run({"stats", "attrs.h5"}, kBounded);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("nodes       2"), std::string::npos) << r.out;
}

// Many attributes on /domain: up to 1024 are read in one pass (the i-th opened by name order rebuilt a
// sorted table of them at each call: 8000 attributes took minutes), more are refused (finding one by name
// walks them all, so reading n takes time in n^2).
TEST_F(HostileHdf5, ManyAttributesAreBounded) {
  const auto add_attributes = [&](const fs::path& path, int count) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t g = H5Gopen2(f, "/domain", H5P_DEFAULT);
    const hid_t space = H5Screate(H5S_SCALAR);
    for (int i = 0; i < count; ++i) {
      const std::int64_t value = i;
      char name[16];
      std::snprintf(name, sizeof name, "a%d", i);
      const hid_t a = H5Acreate2(g, name, H5T_STD_I64LE, space, H5P_DEFAULT, H5P_DEFAULT);
      H5Awrite(a, H5T_NATIVE_INT64, &value);
      H5Aclose(a);
    }
    H5Sclose(space);
    H5Gclose(g);
    H5Fclose(f);
  };
  add_attributes(make("many.h5", nodes({0, 1, 0, 1})), 1000);
  const Result r = run({"stats", "many.h5"}, kBounded);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("nodes       2"), std::string::npos) << r.out;
  add_attributes(make("more.h5", nodes({0, 1, 0, 1})), 2000);
  expect_stats_error("more.h5", {"/domain", "holds 2000 attributes, more than the 1024 read"});
}

// A file whose stored domain text has another dimension than its nodes (a 3D domain over 2D nodes):
// the report is made without the domain, and a warning says why (it sampled no point before).
TEST_F(HostileHdf5, DomainTextOfAnotherDimensionIsSetAside) {
  const fs::path path = make("dim.h5", nodes({0, 1, 0, 1}));
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  const hid_t g = H5Gopen2(f, "/domain", H5P_DEFAULT);
  auto put = [&](const char* name, const std::string& text) {
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, text.size());
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t a = H5Acreate2(g, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, type, text.data());
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
  };
  put("domain_file", (dir_ / "cube.json").string());
  put("domain_file_text", R"({"dim": 3, "spacing": 0.5, "shape": {"type": "box", "min": [0, 0, 0], "max": [1, 1, 1]}})");
  H5Gclose(g);
  H5Fclose(f);
  const Result r = run({"stats", "dim.h5"}, kBounded);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("holds 2D nodes but its domain file text is 3D: packing density and holes not measured"), std::string::npos)
      << r.err;
}

// Chunked, filtered data: HDF5 allocates a chunk's size for each chunk it reads, some filters size
// their output by parameters in the file, and its deflate filter inflates a chunk's stream until it
// ends, whatever the chunk's size: a 1 MB file whose one chunk of 64 KiB held a gigabyte of zeros took
// over a gigabyte to read. Here a stream of 1 MiB of zeros (stored uncompressed, so cheap to make) in that
// chunk, which the old reader inflated and read as coincident nodes.
TEST_F(HostileHdf5, ChunksAndFiltersThatAllocateBeyondTheData) {
  // The nodes' file with /domain/pos replaced by a chunked one: `setup` sets its creation properties,
  // `raw` (when not empty) is written as its first chunk as stored (already filtered), else `values`.
  auto make_chunked = [&](const std::string& file, hsize_t n, hsize_t chunk, void (*setup)(hid_t), const std::string& raw) {
    std::vector<double> grid(2 * n);
    for (hsize_t i = 0; i < n; ++i) grid[i] = static_cast<double>(i), grid[n + i] = 0.0;
    auto sets = nodes(grid);
    sets.erase(sets.begin());
    const fs::path path = make(file, sets);
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hsize_t dims[2] = {2, n}, max_dims[2] = {2, H5S_UNLIMITED}, chunk_dims[2] = {2, chunk};
    const hid_t space = H5Screate_simple(2, dims, max_dims);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk_dims);
    setup(dcpl);
    const hid_t set = H5Dcreate2(f, "/domain/pos", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    const hsize_t origin[2] = {0, 0};
    if (!raw.empty()) EXPECT_GE(H5Dwrite_chunk(set, H5P_DEFAULT, 0, origin, raw.size(), raw.data()), 0);
    else EXPECT_GE(H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, grid.data()), 0);
    H5Dclose(set);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
  };
  const auto deflate = [](hid_t dcpl) { H5Pset_deflate(dcpl, 1); };
  // A deflate stream of 1 MiB of zeros (level 0: stored blocks) as the one chunk of 4096 nodes (64 KiB).
  const std::string zeros(1u << 20, '\0');
  std::string bomb(compressBound(zeros.size()), '\0');
  uLongf bomb_bytes = bomb.size();
  ASSERT_EQ(compress2(reinterpret_cast<Bytef*>(bomb.data()), &bomb_bytes, reinterpret_cast<const Bytef*>(zeros.data()),
                      zeros.size(), 0), Z_OK);
  bomb.resize(bomb_bytes);
  make_chunked("bomb.h5", 4096, 4096, deflate, bomb);
  expect_stats_error("bomb.h5", {"/domain/pos", "its data is deflated, 1048", "at most 512 KiB of deflated data"});
  // The same chunk deflated as written: read.
  make_chunked("deflated.h5", 4096, 4096, deflate, "");
  const Result r = run({"stats", "deflated.h5"}, kBounded);
  EXPECT_EQ(r.status, 0) << r.err;
  // Chunks of 2 MiB for 10 nodes (160 bytes): HDF5 allocated the whole chunk to read them.
  make_chunked("chunk.h5", 10, 1u << 17, deflate, "");
  expect_stats_error("chunk.h5", {"/domain/pos", "its chunks of 2 x 131072 values (2097152 bytes) are larger than the dataset"});
  // N-bit sizes its output by the element count stored with the filter's parameters.
  make_chunked("nbit.h5", 10, 10, [](hid_t dcpl) { H5Pset_nbit(dcpl); }, "");
  expect_stats_error("nbit.h5", {"/domain/pos", "HDF5 filter 5", "only deflate, shuffle and fletcher32"});
  // Chunks of one node (16 bytes): HDF5 keeps kilobytes for each (a valid file of tens of MB took gigabytes).
  make_chunked("tiny.h5", 5000, 1, [](hid_t) {}, "");
  expect_stats_error("tiny.h5", {"/domain/pos", "stored in 5000 chunks of 2 x 1 values (16 bytes)", "h5repack -l CONTI"});
  make_chunked("few.h5", 4000, 1, [](hid_t) {}, "");
  EXPECT_EQ(run({"stats", "few.h5"}, kBounded).status, 0);
  // A chunk that fails its checksum is a damaged file, not a wrong type.
  make_chunked("sum.h5", 4096, 4096, [](hid_t dcpl) { H5Pset_fletcher32(dcpl); }, std::string(4096 * 16 + 4, '\x5a'));
  expect_stats_error("sum.h5", {"/domain/pos", "a chunk fails its checksum or does not inflate (the file is damaged)"});
}

// Found by fuzz_hdf5_reader: the local heap of /'s symbol table claims a data segment of 1 TB, and
// libhdf5 asks malloc for it before checking it against the file's end (ASan aborts on such a request;
// glibc returns null and HDF5 fails the lookup, as do sizes of 1.5 to 8 GB, allocated but never
// touched). The file is refused as corrupt, not reported as missing its datasets.
TEST_F(HostileHdf5, MetadataSizedBeyondTheFileIsACorruptFile) {
  fs::copy_file(kSource / "tests" / "data" / "hdf5_heap_1tb.h5", dir_ / "heap.h5");
  expect_stats_error("heap.h5", {"/domain", "cannot read the file's metadata here (a corrupt or truncated HDF5 file)"});
}

// Found by fuzz_hdf5_reader: /domain/pos's type reports a size of 0 bytes (HDF5's error value), which
// passed the check of its 2e14 claimed values against the bytes the file stores.
TEST_F(HostileHdf5, ATypeOfNoSizeIsRefused) {
  fs::copy_file(kSource / "tests" / "data" / "hdf5_type_size_0.h5", dir_ / "size0.h5");
  expect_stats_error("size0.h5", {"/domain/pos", "its values' type has a size of 0 bytes"});
}

// Found by fuzz_hdf5_reader: /domain/pos's storage size reads as 2^64 - 1 bytes, which the message
// converted to an integer from a double (undefined: it printed "0 bytes" here, UBSan stopped the fuzzer).
TEST_F(HostileHdf5, AStorageSizeNear2To64IsPrintedAsItIs) {
  fs::copy_file(kSource / "tests" / "data" / "hdf5_storage_size_2e64.h5", dir_ / "stored.h5");
  expect_stats_error("stored.h5", {"/domain/pos", "claims 2 x 23 values", "the file stores 1.84e+19 bytes for it"});
}

// Found by fuzz_hdf5_reader: the local heap's data block is at the undefined address, and libhdf5
// 1.10 writes through a null pointer reading it (SIGSEGV), inside H5Lexists, before any check of
// ours. `stats` reads in a child process and reports the crash as the file's error.
TEST_F(HostileHdf5, CrashInsideLibhdf5IsTheFilesError) {
  fs::copy_file(kSource / "tests" / "data" / "hdf5_heap_undefined_address.h5", dir_ / "heap.h5");
  expect_stats_error("heap.h5", {"(file)", "libhdf5 crashed reading it", "the file is corrupt"});
  // solve reads a written file in a child process too.
  expect_error({"solve", "heap.h5"}, {"heap.h5", "(file)", "libhdf5 crashed reading it"}, {"heap.h5"});
  // A good file still reports through the child.
  make("good.h5", nodes({0, 1, 0, 0}));
  const Result r = run({"stats", "good.h5"}, kBounded);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("nodes       2"), std::string::npos) << r.out;
}

TEST_F(HostileHdf5, LinksToOtherFilesAreRefused) {
  auto sets = nodes({0, 1, 0, 1});
  sets.erase(sets.begin());
  const fs::path path = make("external.h5", sets);
  fifo("other.h5");
  const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
  H5Lcreate_external("other.h5", "/pos", f, "/domain/pos", H5P_DEFAULT, H5P_DEFAULT);
  H5Fclose(f);
  expect_stats_error("external.h5", {"/domain/pos", "is a link"});
}

}  // namespace
