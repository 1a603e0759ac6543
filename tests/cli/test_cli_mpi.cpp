// `nodegen run` under mpirun: the MPI runtime starts only under a launcher; one rank or several write
// the nodes of a plain run (same fingerprint) through the parallel writer, with /domain/partition; a
// failure on any rank ends every rank with one error line and no file.
#include <gtest/gtest.h>
#include <hdf5.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>
#include <string>
#include <thread>
#include <vector>

#include "support/cli_test_support.hpp"

namespace {

using namespace nodegen::test;

// The launcher line for `ranks` ranks (as root Open MPI needs the two variables; -q keeps its own
// notices off stderr, so the error line is all a failed run prints; one or two ranks are bound to a
// core each unless --bind-to none, and the tests give them two threads).
std::string mpirun(int ranks, const std::string& binding = "--bind-to none") {
  return std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ") + NODEGEN_MPIEXEC + " -q -np " +
         std::to_string(ranks) + " --oversubscribe " + binding + " ";
}

// Starts a run of 3 ranks long enough to be signalled (big.json in `dir`, -o out.h5, `options`, stderr
// to err.txt), waits until its temporary appears, runs `signal` (the launcher's pid in $launcher), and
// waits for the run to end: 0, or 99 when no temporary appeared.
int signal_a_long_run(const fs::path& dir, const std::string& options, const std::string& signal) {
  std::ofstream(dir / "big.json") << R"({"dim": 2, "spacing": 0.0003, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})";
  std::string script("cd ");
  script.append(quote(dir.string())).append(" && { ").append(mpirun(3)).append(quote(kCli.string()));
  script.append(" run big.json -o out.h5 --quiet --threads 1 ").append(options).append(" 2> err.txt & launcher=$!; ");
  script.append("seen=0; for i in $(seq 400); do if ls -a | grep -q '^[.]out[.]h5[.]tmp-'; then seen=1; break; fi; ");
  script.append("sleep 0.025; done; ").append(signal).append("; wait; [ $seen = 1 ] || exit 99; exit 0; }");
  const int raw = std::system(std::string("sh -c ").append(quote(script)).c_str());
  return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
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

// R ranks fill one domain together: the file holds the nodes of a plain run, byte for byte, each node
// marked with the rank that wrote it; the report gives every rank's share.
class MpiRanks : public CliTest, public ::testing::WithParamInterface<std::tuple<std::string, int>> {};

TEST_P(MpiRanks, SeveralRanksWriteTheOneProcessNodes) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  const auto& [name, ranks] = GetParam();
  const std::string domain = (kSource / "domains" / (name + ".json")).string();
  const Result plain = run({"run", domain, "-o", "plain.h5", "--threads", "2", "--quiet", "--report", "plain.json"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  const Result several = run({"run", domain, "-o", "mpi.h5", "--threads", "2", "--report", "mpi.json"}, mpirun(ranks));
  ASSERT_EQ(several.status, 0) << several.err;
  EXPECT_EQ(several.err, "");
  EXPECT_NE(several.out.find(std::to_string(ranks) + " ranks: "), std::string::npos) << several.out;
  const auto plain_report = nlohmann::json::parse(slurp(dir_ / "plain.json"));
  const auto report = nlohmann::json::parse(slurp(dir_ / "mpi.json"));
  EXPECT_EQ(report["nodes_sha256"], plain_report["nodes_sha256"]);
  EXPECT_EQ(report["nodes"], plain_report["nodes"]);
  // Every rank wrote some of the nodes, and the partition says which.
  const std::size_t nodes = plain_report["nodes"];
  const std::vector<std::int32_t> partition = int32_dataset(dir_ / "mpi.h5", "/domain/partition");
  ASSERT_EQ(partition.size(), nodes);
  std::vector<std::size_t> per_rank(static_cast<std::size_t>(ranks), 0);
  for (std::int32_t r : partition) {
    ASSERT_TRUE(r >= 0 && r < ranks) << r;
    ++per_rank[static_cast<std::size_t>(r)];
  }
  ASSERT_EQ(report["ranks"].size(), static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const auto& figures = report["ranks"][static_cast<std::size_t>(r)];
    EXPECT_GT(per_rank[static_cast<std::size_t>(r)], 0u) << "rank " << r << " wrote nothing";
    EXPECT_EQ(figures["nodes"], per_rank[static_cast<std::size_t>(r)]);
    EXPECT_GT(figures["nodes_sent"].get<std::size_t>(), 0u);  // its neighbours read some of its nodes
    EXPECT_GT(figures["peak_rss_bytes"].get<std::size_t>(), 0u);
  }
  EXPECT_GE(report["load_imbalance"].get<double>(), 1.0);
  const Result stats = run({"stats", "mpi.h5", "--json", "--samples", "1000"});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(nlohmann::json::parse(stats.out)["nodes_sha256"], plain_report["nodes_sha256"]);
}

// 2D and 3D, constant and graded spacing, a mesh.
INSTANTIATE_TEST_SUITE_P(Domains, MpiRanks,
                         ::testing::Combine(::testing::Values("square_variable", "cube", "cube_variable", "torus_mesh"),
                                            ::testing::Values(2, 3, 4)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param)) + "_ranks";
                         });

// A spacing fault that the loader's sampling misses and the fill reaches on one rank only (the band
// lies in the top quarter of the square): every rank ends with the one error line, and no file.
TEST_F(CliTest, AFaultOnOneRankEndsEveryRankWithOneErrorLineAndNoFile) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  std::ofstream(dir_ / "fault.json")
      << R"({"dim": 2, "spacing": "(abs(x - 0.3) < 5e-4 && y > 0.75) ? -1 : 0.005",)"
      << R"( "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})";
  const std::string fault = (dir_ / "fault.json").string();
  for (int ranks : {2, 4})
    expect_input_error({"run", fault, "-o", "out.h5", "--threads", "2"},
                       {"fault.json: spacing: h = -1 at (", "h must be positive and finite"}, mpirun(ranks));
  // The node cap, reached by the ranks together.
  const std::string square = (kSource / "domains" / "square.json").string();
  expect_input_error({"run", square, "-o", "out.h5", "--max-nodes", "30000"}, {"square.json: fill.max_nodes: node cap of 30000"},
                     mpirun(3));
  // Commands other than run take one rank.
  expect_input_error({"stats", "missing.h5"}, {"mpirun: ranks: 3 ranks were started"}, mpirun(3));
}

// A two-rank job in mpirun's MPMD form, cut off after 60 s (exit 124): rank 0 runs `nodegen run DOMAIN
// -o out.h5 --threads 1`, rank 1 what the test gives run(), after `rank_one_prefix` (a ulimit).
std::string two_rank_job(const std::string& domain, const std::string& rank_one_prefix = "") {
  return std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 ") + NODEGEN_MPIEXEC +
         " -q --oversubscribe --bind-to none -np 1 " + quote(kCli.string()) + " run " + quote(domain) +
         " -o out.h5 --threads 1 : -np 1 " + rank_one_prefix;
}

// A rank started with other arguments (an option only it has, a bad value, another output, another
// command, help) ends the job at once with one line: the ranks agree on the command line before any
// other collective step, which they would otherwise wait in for ever.
TEST_F(CliTest, ARankStartedWithOtherArgumentsEndsEveryRankWithOneLine) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  const std::string square = (kSource / "domains" / "square.json").string();
  const std::vector<std::string> common = {"run", square, "-o", "out.h5", "--threads", "1"};
  for (const std::vector<std::string>& extra :
       std::vector<std::vector<std::string>>{{"--frobnicate"}, {"--threads", "0"}, {"--backend", "foo"}, {"--help"}}) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    expect_input_error(args, {"mpirun: arguments: the ranks were started with different command lines"},
                       two_rank_job(square));
  }
  expect_input_error({"stats", "out.h5"}, {"mpirun: arguments: the ranks were started with different command lines"},
                     two_rank_job(square));
}

// A rank that runs out of address space on its own (a virtual-memory limit on it alone) ends every
// rank too, in seconds and with no file left, whatever step the limit stops it at.
TEST_F(CliTest, ARankOutOfMemoryAloneEndsEveryRank) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  std::ofstream(dir_ / "big.json")
      << R"({"dim": 2, "spacing": 0.0005, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})";
  for (const char* limit : {"200000", "600000"}) {
    const Result r = run({"run", "big.json", "-o", "out.h5", "--threads", "1"},
                         two_rank_job("big.json", std::string("sh -c 'ulimit -v ") + limit + "; exec \"$0\" \"$@\"' "));
    EXPECT_NE(r.status, 0) << r.err;
    EXPECT_NE(r.status, 124) << "the job hung: " << r.err;
    EXPECT_LE(r.err_lines().size(), 1u) << r.err;
    EXPECT_EQ(outputs(), std::vector<std::string>{}) << "left behind after a failed run";
  }
}

// mpirun binds one rank to one core: the default thread count is then 1, and more threads asked for
// get a warning naming the way out.
TEST_F(CliTest, ARankBoundToOneCoreDefaultsToOneThreadAndWarnsAboutMore) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one CPU: a binding narrows nothing";
  const std::string domain = (kSource / "domains" / "square.json").string();
  const Result bound = run({"run", domain, "-o", "a.h5", "--quiet", "--report", "a.json"}, mpirun(1, "--bind-to core"));
  ASSERT_EQ(bound.status, 0) << bound.err;
  EXPECT_EQ(bound.err, "");
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "a.json"))["threads"], 1);
  const Result more = run({"run", domain, "-o", "b.h5", "--quiet", "--threads", "2"}, mpirun(1, "--bind-to core"));
  ASSERT_EQ(more.status, 0) << more.err;
  EXPECT_NE(more.err.find("nodegen: warning: --threads 2, but this process may run on 1 of the machine's"), std::string::npos)
      << more.err;
  EXPECT_NE(more.err.find("--bind-to none"), std::string::npos) << more.err;
}

// SIGTERM to one rank mid-run: mpirun ends the others with it, and the line saying so is printed once
// (each rank printed its own), with no file left behind.
TEST_F(CliTest, ASignalToOneRankIsOneLine) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  // A rank of this launcher (its child), not a process of a test running beside this one.
  ASSERT_EQ(signal_a_long_run(dir_, "", "kill -TERM $(pgrep -n -P $launcher)"), 0);
  const std::string err = slurp(dir_ / "err.txt");
  std::size_t lines = 0;
  for (std::size_t at = err.find("interrupted"); at != std::string::npos; at = err.find("interrupted", at + 1)) ++lines;
  EXPECT_EQ(lines, 1u) << err;
  EXPECT_EQ(outputs({"err.txt"}), std::vector<std::string>{});
}

// A full disk under mpirun. Parallel HDF5 cannot fail a write cleanly: a rank whose write fails leaves
// the others waiting in a collective, so the run hung, or failed on close and crashed in MPI_Finalize
// with its temporaries left. The writer reserves the file's space before any rank writes, and a disk
// without it is refused then. A small file system in a mount namespace of the run's own stands in for
// the disk: a tmpfs, which has fallocate (200 KiB: refused at once; 2 MiB held most of the 2.3 MB file
// and hung), and an ext2 image, which has not (the C library reserves by writing into each block; a
// write that fails for want of space makes Open MPI's I/O layer print a line of its own beside the
// error). Each kind runs where it can be mounted (the ext2 image needs a loop device) and skips where
// it cannot.
class FullDisk : public CliTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(FullDisk, UnderMpirunIsOneErrorLineAndNoFile) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  const std::string kind = GetParam();
  fs::create_directory(dir_ / "full");
  write("on_small_disk.sh",
        "kind=$1; size=$2; shift 2\n"
        "if [ \"$kind\" = ext2 ]; then\n"
        "  rm -f disk.img && truncate -s $size disk.img && mkfs.ext2 -q -F disk.img >/dev/null 2>&1 &&\n"
        "    mount -o loop disk.img full && rmdir full/lost+found || exit 77\n"
        "else\n"
        "  mount -t tmpfs -o size=$size tmpfs full || exit 77\n"
        "fi\n"
        "timeout -s KILL 300 \"$@\"; status=$?\n"
        "ls -A full > left.txt\n"
        "exit $status\n");
  if (std::system(("cd " + quote(dir_.string()) + " && unshare -m sh on_small_disk.sh " + kind + " 1m true").c_str()) != 0)
    GTEST_SKIP() << "cannot mount a small " << kind << " in a mount namespace here (not root, or no loop device)";
  const std::vector<std::string> scaffolding{"full", "on_small_disk.sh", "left.txt", "disk.img"};
  const std::string domain = (kSource / "domains" / "square.json").string();
  auto on_disk_of = [&](const char* size) {
    return "unshare -m sh on_small_disk.sh " + kind + " " + size + " env " + mpirun(2);
  };
  for (const char* size : {"200k", "2m"}) {
    SCOPED_TRACE(size);
    expect_input_error({"run", domain, "-o", "full/out.h5", "--quiet"}, {"out.h5: output: no room for the file"},
                       on_disk_of(size), scaffolding);
    EXPECT_EQ(slurp(dir_ / "left.txt"), "");
  }
  // A disk the file fits: the nodes of a plain run.
  const Result fits = run({"run", domain, "-o", "full/out.h5"}, on_disk_of("8m"));
  ASSERT_EQ(fits.status, 0) << fits.err;
  EXPECT_EQ(slurp(dir_ / "left.txt"), "out.h5\nout.xdmf\n");
  const Result plain = run({"run", domain, "-o", "plain.h5"});
  ASSERT_EQ(plain.status, 0) << plain.err;
  const std::size_t at = plain.out.find("nodes_sha256 ");
  ASSERT_NE(at, std::string::npos) << plain.out;
  EXPECT_NE(fits.out.find(plain.out.substr(at, 77)), std::string::npos) << fits.out;
}

INSTANTIATE_TEST_SUITE_P(Disks, FullDisk, ::testing::Values("tmpfs", "ext2"));

// mpirun's MPMD form starts ranks in working folders of their own, where relative paths name other
// files: ranks that read different domain files filled different domains and hung in a collective (or,
// 2D beside 3D, aborted), and ranks that resolved the output in their own folders hung. The ranks
// compare what fixes the nodes before the fill, and write the file rank 0 names, as an absolute path.
TEST_F(CliTest, RanksInOtherFoldersWriteRankZerosFileOrRefuseOtherInputs) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  auto in_folders = [&](const std::string& a, const std::string& b) {
    fs::create_directories(dir_ / "a");
    fs::create_directories(dir_ / "b");
    std::ofstream(dir_ / "a" / "d.json") << a;
    std::ofstream(dir_ / "b" / "d.json") << b;
    // Built with append: GCC 12 reports a false -Wrestrict on chains of "literal" + std::string.
    std::string rank(" ");
    rank.append(quote(kCli.string())).append(" run d.json -o o.h5 --quiet --threads 1");
    std::string cmd("cd ");
    cmd.append(quote(dir_.string())).append(" && ").append(mpirun(1)).append("--wdir a").append(rank);
    cmd.append(" : -np 1 --wdir b").append(rank).append(" > out.txt 2> err.txt");
    const int raw = std::system(std::string("timeout -s KILL 120 sh -c ").append(quote(cmd)).c_str());
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  };
  const std::string square = R"({"dim": 2, "spacing": 0.01, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})";
  EXPECT_EQ(in_folders(square, square), 0) << slurp(dir_ / "err.txt");
  EXPECT_TRUE(fs::exists(dir_ / "a" / "o.h5"));
  EXPECT_FALSE(fs::exists(dir_ / "b" / "o.h5"));
  for (const std::string& other :
       {std::string(R"({"dim": 2, "spacing": 0.0101, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})"),
        std::string(R"({"dim": 3, "spacing": 0.05, "shape": {"type": "box", "min": [0, 0, 0], "max": [1, 1, 1]}})")}) {
    fs::remove_all(dir_ / "a");
    fs::remove_all(dir_ / "b");
    EXPECT_EQ(in_folders(square, other), 2);
    const std::string err = slurp(dir_ / "err.txt");
    EXPECT_EQ(err.rfind("nodegen: error: d.json: ranks: the ranks read different domain files", 0), 0u) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(fs::exists(dir_ / "a" / "o.h5"));
  }
}

// Rank 0 killed outright (SIGKILL, as the out-of-memory killer does) cannot remove its temporaries;
// mpirun then ends the other ranks with SIGTERM, and their handlers remove them.
TEST_F(CliTest, RankZeroKilledOutrightLeavesNoTemporaries) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  // Rank 0 of this launcher, by the rank Open MPI puts in its environment, once every rank has had
  // time to register the temporaries.
  ASSERT_EQ(signal_a_long_run(dir_, "--report r.json",
                              "sleep 0.5; for p in $(pgrep -P $launcher); do if tr '\\0' '\\n' < /proc/$p/environ | "
                              "grep -qx OMPI_COMM_WORLD_RANK=0; then kill -KILL $p; fi; done"),
            0);
  EXPECT_EQ(outputs({"err.txt"}), std::vector<std::string>{}) << slurp(dir_ / "err.txt");
}

TEST_F(CliTest, BadOutputPathUnderMpirunIsOneErrorLine) {
#ifndef NODEGEN_WITH_MPI
  GTEST_SKIP() << "built without MPI";
#endif
  const std::string domain = (kSource / "domains" / "square.json").string();
  for (int ranks : {1, 2})
    expect_input_error({"run", domain, "-o", "no/such/dir/out.h5"}, {"out.h5: output: directory"}, mpirun(ranks));
}

}  // namespace
