// `nodegen run` under mpirun: the MPI runtime starts only under a launcher, a one-rank run writes the
// nodes of a plain run (same fingerprint) through the parallel writer, with /domain/partition; a run
// the fill cannot serve ends every rank with one error line and no file.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test_support.hpp"

namespace {

using namespace nodegen::test;

// The launcher line for `ranks` ranks (as root Open MPI needs the two variables; -q keeps its own
// notices off stderr, so the error line is all a failed run prints).
std::string mpirun(int ranks) {
  return std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") + NODEGEN_MPIEXEC + " -q -np " +
         std::to_string(ranks) + " --oversubscribe ";
}

// The int32 values of a dataset; empty when the file has no such dataset.
std::vector<std::int32_t> int32_dataset(const fs::path& file, const char* name) {
  std::vector<std::int32_t> values;
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (H5Lexists(f, name, H5P_DEFAULT) > 0) {
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    values.resize(static_cast<std::size_t>(H5Sget_simple_extent_npoints(s)));
    H5Dread(d, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
    H5Sclose(s);
    H5Dclose(d);
  }
  H5Fclose(f);
  return values;
}

class MpiRun : public CliTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(MpiRun, OneRankWritesThePlainRunsNodesAndItsPartition) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  const std::string domain = (kSource / "domains" / (GetParam() + ".json")).string();
  const Result plain = run({"run", domain, "-o", "plain.h5", "--threads", "2", "--quiet", "--report", "plain.json"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  const Result one = run({"run", domain, "-o", "mpi.h5", "--threads", "2", "--quiet", "--report", "mpi.json"}, mpirun(1));
  ASSERT_EQ(one.status, 0) << one.err;
  const auto fingerprint = [&](const char* report) { return nlohmann::json::parse(slurp(dir_ / report))["nodes_sha256"]; };
  EXPECT_EQ(fingerprint("mpi.json"), fingerprint("plain.json"));
  const std::size_t nodes = nlohmann::json::parse(slurp(dir_ / "plain.json"))["nodes"];
  EXPECT_EQ(int32_dataset(dir_ / "mpi.h5", "/domain/partition"), std::vector<std::int32_t>(nodes, 0));
  // A plain run starts no MPI runtime and writes no partition.
  EXPECT_TRUE(int32_dataset(dir_ / "plain.h5", "/domain/partition").empty());
  const Result stats = run({"stats", "mpi.h5", "--json", "--samples", "1000"});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(nlohmann::json::parse(stats.out)["nodes_sha256"], fingerprint("plain.json"));
  EXPECT_EQ(outputs(), (std::vector<std::string>{"mpi.h5", "mpi.xdmf", "plain.h5", "plain.xdmf"}));
}

INSTANTIATE_TEST_SUITE_P(Domains, MpiRun, ::testing::Values("square_variable", "cube"));

TEST_F(CliTest, SeveralRanksEndEveryRankWithOneErrorLineAndNoFile) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  const std::string domain = (kSource / "domains" / "square.json").string();
  expect_input_error({"run", domain, "-o", "out.h5"}, {"mpirun: ranks: 2 ranks were started"}, mpirun(2));
  expect_input_error({"stats", "missing.h5"}, {"mpirun: ranks: 3 ranks were started"}, mpirun(3));
}

TEST_F(CliTest, BadOutputPathUnderMpirunIsOneErrorLine) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  const std::string domain = (kSource / "domains" / "square.json").string();
  expect_input_error({"run", domain, "-o", "no/such/dir/out.h5"}, {"out.h5: output: directory"}, mpirun(1));
}

}  // namespace
