// End to end: a run's .h5, .xdmf and report are put in place as one (docs/output-format.md,
// "Committing the output"). A terminating signal at any moment, also in the middle of the commit,
// leaves either the older set or the new one whole, with one line saying why however many signals
// come; two runs writing one output at once leave one run's whole set; and the temporaries of a run
// killed outright are removed by the next run writing into that folder, never those of a process that
// may still run.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "nodegen/io/hdf5_reader.hpp"

#include "support/cli_test_support.hpp"

namespace {

using namespace nodegen::test;
using namespace std::chrono_literals;

// Two quick fills with different node counts, so that a sidecar or report of the one beside the other's
// .h5 shows.
const char* kCoarse = R"({"dim": 2, "spacing": 0.05, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})";
const char* kFine = R"({"dim": 2, "spacing": 0.04, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})";

class OutputCommit : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    write("coarse.json", kCoarse);
    write("fine.json", kFine);
  }

  // Starts nodegen in the temporary folder with stdout and stderr to files there; the handled signals
  // at their default (a test runner started in the background may ignore SIGINT, and the run would too).
  pid_t start(const std::vector<std::string>& args, const std::string& out, const std::string& err) const {
    std::vector<std::string> words{kCli.string()};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    const std::string folder = dir_.string(), out_path = (dir_ / out).string(), err_path = (dir_ / err).string();
    // Not an earlier run's: the caller waits for this one's summary.
    fs::remove(out_path);
    fs::remove(err_path);
    const pid_t pid = ::fork();
    if (pid == 0) {
      for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (o < 0 || e < 0 || ::chdir(folder.c_str()) != 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(97);
      ::execv(argv[0], argv.data());
      ::_exit(98);
    }
    return pid;
  }

  static int wait_for(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
  }

  // Waits until the run has printed its summary (it then commits next), at most a few seconds.
  bool summary_printed(const std::string& out) const {
    for (int i = 0; i < 1000; ++i) {
      if (slurp(dir_ / out).find("nodes_sha256 ") != std::string::npos) return true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }

  // The fingerprint a run printed ("" when it printed none).
  std::string printed_fingerprint(const std::string& out) const {
    std::smatch m;
    const std::string text = slurp(dir_ / out);
    return std::regex_search(text, m, std::regex("nodes_sha256 ([0-9a-f]{64})")) ? m[1].str() : "";
  }

  // The folder's own lock, as a commit takes it (flock on the folder); not inherited by the runs.
  int lock_folder() const {
    const int fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::flock(fd, LOCK_EX), 0);
    return fd;
  }

  // Checks that o.h5, o.xdmf and r.json are one run's whole set: the sidecar's node count and the
  // report's count and fingerprint are those of the .h5. Returns the .h5's fingerprint.
  std::string whole_set(const std::string& context) const {
    EXPECT_TRUE(fs::exists(dir_ / "o.h5") && fs::exists(dir_ / "o.xdmf") && fs::exists(dir_ / "r.json")) << context;
    if (!fs::exists(dir_ / "o.h5") || !fs::exists(dir_ / "o.xdmf") || !fs::exists(dir_ / "r.json")) return "";
    const nodegen::io::StoredDiscretization stored = nodegen::io::read_hdf5(dir_ / "o.h5");
    const std::size_t nodes = stored.nodes.node_count();
    const std::string* sha = nodegen::io::find_string(stored.metadata, "nodes_sha256");
    EXPECT_NE(sha, nullptr) << context;
    std::smatch m;
    const std::string xdmf = slurp(dir_ / "o.xdmf");
    EXPECT_TRUE(std::regex_search(xdmf, m, std::regex("NumberOfElements=\"([0-9]+)\""))) << context;
    EXPECT_EQ(m.size() > 1 ? m[1].str() : "", std::to_string(nodes)) << context << ": the sidecar of another .h5";
    const auto report = nlohmann::json::parse(slurp(dir_ / "r.json"));
    EXPECT_EQ(report["nodes"].get<std::size_t>(), nodes) << context << ": the report of another .h5";
    EXPECT_EQ(report["nodes_sha256"].get<std::string>(), sha ? *sha : "") << context;
    return sha ? *sha : "";
  }

  // The files in the temporary folder named as temporaries.
  std::vector<std::string> temporaries() const {
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(dir_))
      if (e.path().filename().string().find(".tmp-") != std::string::npos) found.push_back(e.path().filename().string());
    return found;
  }
};

const std::vector<std::string> kOutputs = {"-o", "o.h5", "--report", "r.json", "--threads", "1"};

std::vector<std::string> run_args(const std::string& domain) {
  std::vector<std::string> args{"run", domain};
  args.insert(args.end(), kOutputs.begin(), kOutputs.end());
  return args;
}

const std::string kBefore = ": interrupted; the unfinished output is removed and older files are left as they were\n";
const std::string kAfter = ": interrupted after the output was put in place; the new files are complete\n";

// SIGINT, SIGTERM or SIGHUP at a random moment of a short run, at the moment its commit waits for the
// folder's lock, or a few microseconds after the lock is given up, so some arrive during the renames.
// Each run ends by the signal or finishes first; the set in place is then the older one (the line says
// the older files are left) or the run's own (it says the new files are complete, or the run
// finished), always whole, and no temporary is left.
TEST_F(OutputCommit, ASignalAtAnyMomentLeavesTheOlderOrTheNewSetWhole) {
  ASSERT_EQ(run(run_args("fine.json")).status, 0);
  std::string in_place = whole_set("first run");
  std::mt19937 random(20240611);
  const std::vector<std::pair<int, std::string>> signals = {{SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}};
  for (int trial = 0; trial < 36; ++trial) {
    const auto& [sig, name] = signals[static_cast<std::size_t>(trial / 3) % signals.size()];
    const int moment = trial % 3;  // 0: during the run; 1: while the commit waits; 2: just after it may go on
    const std::string context = "trial " + std::to_string(trial) + ", " + name + ", moment " + std::to_string(moment);
    const int lock = moment == 0 ? -1 : lock_folder();
    const pid_t pid = start(run_args(trial % 2 ? "coarse.json" : "fine.json"), "out.txt", "err.txt");
    if (moment == 0) std::this_thread::sleep_for(std::chrono::microseconds(random() % 80000));
    if (moment != 0) {
      ASSERT_TRUE(summary_printed("out.txt")) << context;
    }
    if (moment == 2) {
      ::close(lock);
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(random() % 400);
      while (std::chrono::steady_clock::now() < until) {
      }
    }
    ::kill(pid, sig);
    if (moment == 1) ::close(lock);
    const int status = wait_for(pid);
    const std::string err = slurp(dir_ / "err.txt");
    const std::string set = whole_set(context);
    if (WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), 0) << context << ": " << err;
      EXPECT_EQ(err, "") << context;
      EXPECT_EQ(set, printed_fingerprint("out.txt")) << context;
    } else {
      ASSERT_TRUE(WIFSIGNALED(status)) << context;
      EXPECT_EQ(WTERMSIG(status), sig) << context;
      // Ended by the signal's default action, before the handler was installed or after the run
      // restored the previous one: the set is the older or the new one, whole.
      if (err.empty()) {
        EXPECT_TRUE(set == in_place || set == printed_fingerprint("out.txt")) << context;
      } else if (err == "nodegen: error: " + name + kBefore) {
        EXPECT_EQ(set, in_place) << context << ": the older files were to be left as they were";
      } else if (err == "nodegen: error: " + name + kAfter) {
        EXPECT_EQ(set, printed_fingerprint("out.txt")) << context << ": the new files were to be in place";
      } else {
        ADD_FAILURE() << context << ": " << err;
      }
    }
    EXPECT_EQ(temporaries(), std::vector<std::string>{}) << context;
    in_place = set;
  }
}

// Two runs writing one output at once, each with a different node count, half the time both held at
// the commit by the folder's lock until both wait there. Both succeed, and the set in place is one of
// them whole: the sidecar and the report of the .h5 beside it.
TEST_F(OutputCommit, TwoRunsWritingOneOutputLeaveOneWholeSet) {
  for (int round = 0; round < 20; ++round) {
    const std::string context = "round " + std::to_string(round);
    const int lock = round % 2 ? lock_folder() : -1;
    const pid_t a = start(run_args("coarse.json"), "a.txt", "a_err.txt");
    const pid_t b = start(run_args("fine.json"), "b.txt", "b_err.txt");
    if (lock >= 0) {
      EXPECT_TRUE(summary_printed("a.txt") && summary_printed("b.txt")) << context;
      std::this_thread::sleep_for(10ms);  // both at the lock
      ::close(lock);
    }
    const int status_a = wait_for(a), status_b = wait_for(b);
    EXPECT_TRUE(WIFEXITED(status_a) && WEXITSTATUS(status_a) == 0) << context << ": " << slurp(dir_ / "a_err.txt");
    EXPECT_TRUE(WIFEXITED(status_b) && WEXITSTATUS(status_b) == 0) << context << ": " << slurp(dir_ / "b_err.txt");
    const std::string set = whole_set(context);
    EXPECT_TRUE(set == printed_fingerprint("a.txt") || set == printed_fingerprint("b.txt")) << context;
    EXPECT_EQ(temporaries(), std::vector<std::string>{}) << context;
  }
}

// The state letter of process `pid` (Z for a zombie), from /proc; 0 when unreadable.
char slurp_proc_state(pid_t pid) {
  const std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t end = stat.rfind(')');
  return end != std::string::npos && end + 2 < stat.size() ? stat[end + 2] : '\0';
}

// A run killed outright (SIGKILL) leaves its temporaries beside the output and the report; the next
// run into those folders removes them, one line each. Left alone: a temporary whose pid runs (this
// test's), one of another machine or pid namespace (another host tag), a name not of the pattern, and
// a folder or a link of a dead run's name. One of an earlier boot of this machine is removed.
TEST_F(OutputCommit, TheNextRunRemovesTheTemporariesOfAKilledRun) {
  write("big.json", R"({"dim": 2, "spacing": 0.0003, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})");
  fs::create_directory(dir_ / "reports");
  const pid_t killed = start({"run", "big.json", "-o", "o.h5", "--report", "reports/r.json", "--quiet"}, "out.txt", "err.txt");
  for (int i = 0; i < 400 && temporaries().size() < 3; ++i) std::this_thread::sleep_for(10ms);
  ::kill(killed, SIGKILL);
  wait_for(killed);
  const std::vector<std::string> left = temporaries();
  ASSERT_EQ(left.size(), 3u) << "the killed run's .h5, .xdmf and report temporaries";
  std::smatch parts;
  std::string h5_temp;
  for (const std::string& name : left)
    if (name.starts_with(".o.h5.tmp-")) h5_temp = name;
  const std::regex pattern(R"(^(\.o\.h5\.tmp-)([0-9]+)-([0-9a-f]{8})-([0-9a-f]{8})-([A-Za-z0-9]{6})$)");
  ASSERT_TRUE(std::regex_match(h5_temp, parts, pattern)) << h5_temp;
  EXPECT_EQ(parts[2].str(), std::to_string(killed));
  auto named = [&](const std::string& pid, const std::string& boot, const std::string& host, const std::string& random) {
    return parts[1].str() + pid + "-" + boot + "-" + host + "-" + random;
  };
  auto other = [](std::string hex) {  // another tag of the same form
    hex[0] = hex[0] == '0' ? '1' : '0';
    return hex;
  };
  const std::string pid = parts[2], boot = parts[3], host = parts[4], rnd = parts[5];
  const std::vector<std::string> kept = {named(std::to_string(::getpid()), boot, host, "aliveA"),
                                         named(pid, boot, other(host), "otherH"), named(pid, boot, host, "long123"),
                                         named(pid, boot, host, "adirec"), named(pid, boot, host, "alinkk")};
  for (std::size_t i = 0; i < 3; ++i) write(kept[i], "");
  fs::create_directory(dir_ / kept[3]);
  fs::create_symlink("o.h5", dir_ / kept[4]);
  const std::string earlier_boot = named(pid, other(boot), host, "bootAA");
  write(earlier_boot, "");
  // A writer that ended but was not waited for (a zombie, as under a container's first process) is
  // gone too, though its pid still answers.
  const pid_t zombie = ::fork();
  if (zombie == 0) ::_exit(0);
  for (int i = 0; i < 200 && ::kill(zombie, 0) == 0 && slurp_proc_state(zombie) != 'Z'; ++i)
    std::this_thread::sleep_for(5ms);
  const std::string zombies = named(std::to_string(zombie), boot, host, "zombie");
  write(zombies, "");

  const Result r = run({"run", "coarse.json", "-o", "o.h5", "--report", "reports/r.json", "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::string> lines = r.err_lines();
  std::set<std::string> said(lines.begin(), lines.end()), expected;
  for (const std::string& name : left)
    expected.insert("nodegen: removed the temporary " + std::string(name.starts_with(".r.json") ? "reports/" : "") +
                    name + " of a run that was killed");
  if (boot != "00000000") expected.insert("nodegen: removed the temporary " + earlier_boot + " of a run that was killed");
  expected.insert("nodegen: removed the temporary " + zombies + " of a run that was killed");
  wait_for(zombie);
  EXPECT_EQ(said, expected) << r.err;
  std::vector<std::string> remaining = temporaries(), kept_sorted = kept;
  std::sort(remaining.begin(), remaining.end());
  std::sort(kept_sorted.begin(), kept_sorted.end());
  EXPECT_EQ(remaining, kept_sorted);
}

// Two signals at once (`timeout` signals the process, then its group; Ctrl-C pressed twice) land on two
// of the run's threads: one line still says why it ended, not two written into each other.
TEST_F(CliTest, TwoSignalsAtOnceGiveOneLine) {
  write("big.json", R"({"dim": 2, "spacing": 0.0003, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})");
  for (int round = 0; round < 12; ++round) {  // the second signal finds the first handler at work now and then
    EXPECT_EQ(signalled_run("run big.json -o out.h5 --quiet --threads 4", "kill -TERM $pid; kill -TERM $pid"), 128 + SIGTERM)
        << round;
    EXPECT_EQ(slurp(dir_ / "err.txt"),
              "nodegen: error: SIGTERM: interrupted; the unfinished output is removed and older files are left as they were\n")
        << round;
    EXPECT_EQ(outputs({"err.txt"}), std::vector<std::string>{}) << round;
  }
}

}  // namespace
