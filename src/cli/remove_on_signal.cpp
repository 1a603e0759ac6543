#include "remove_on_signal.hpp"

#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace nodegen::cli {

namespace {

constexpr int kMaxFiles = 4;
constexpr std::size_t kMaxPath = 4096;
// The signals that end a process by default and that a user, a scheduler (SIGUSR1/2, SIGXCPU on
// HPC batch systems), a timer or a profiler may send, with the names the handler's line gives them.
// SIGXFSZ and SIGPIPE are ignored by main() instead (a write then fails with its error). Not the
// real-time signals, which libraries may use for themselves.
struct NamedSignal {
  int number;
  const char* name;
};
constexpr std::array<NamedSignal, 13> kSignals = {{{SIGINT, "SIGINT"},
                                                   {SIGTERM, "SIGTERM"},
                                                   {SIGHUP, "SIGHUP"},
                                                   {SIGQUIT, "SIGQUIT"},
                                                   {SIGUSR1, "SIGUSR1"},
                                                   {SIGUSR2, "SIGUSR2"},
                                                   {SIGALRM, "SIGALRM"},
                                                   {SIGXCPU, "SIGXCPU"},
                                                   {SIGVTALRM, "SIGVTALRM"},
                                                   {SIGPROF, "SIGPROF"},
                                                   {SIGSTKFLT, "SIGSTKFLT"},
                                                   {SIGPWR, "SIGPWR"},
                                                   {SIGIO, "SIGIO"}}};

// Fixed storage: the handler may not allocate or touch std::filesystem objects.
char g_paths[kMaxFiles][kMaxPath];
std::atomic<int> g_count{0};
std::atomic<bool> g_speak{true};
struct sigaction g_previous[kSignals.size()];
// kActing once the files are registered; before, 0 (holding) or the number of the first signal held.
constexpr int kActing = -1;
std::atomic<int> g_state{kActing};
static_assert(std::atomic<int>::is_always_lock_free, "the handler's state must be async-signal-safe");
// What became of the output, for the handler's line: still unfinished, in place, or removed after a
// commit that failed.
enum Outcome : int { kUnfinished, kCommitted, kCommitFailed };
std::atomic<int> g_outcome{kUnfinished};
// Set by the first handler that acts: a second signal, on another of the run's threads (a `timeout`
// signals the process and then its group; a user presses Ctrl-C twice), waits for the first to end the
// process instead of writing its own line into the middle of it.
std::atomic<bool> g_acting{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the handler's state must be async-signal-safe");

// Async-signal-safe: unlink only.
void unlink_registered() {
  const int n = g_count.load(std::memory_order_acquire);
  for (int i = 0; i < n; ++i) ::unlink(g_paths[i]);
}

// Async-signal-safe: nanosleep only. Half a second, so the rank that speaks (sent the same signal at the
// same time) ends first; mpirun's own pause between its SIGTERM and its SIGKILL is one second.
void give_the_speaking_rank_time() {
  timespec left{0, 500'000'000};
  for (int tries = 0; tries < 100 && ::nanosleep(&left, &left) != 0 && errno == EINTR; ++tries) {
  }
}

// Async-signal-safe: write only. The line the user sees before the process ends by the signal (its
// exit status stays the signal's, as shells and schedulers expect).
void say_interrupted(int sig) {
  const char* name = "a signal";
  for (const NamedSignal& s : kSignals)
    if (s.number == sig) name = s.name;
  auto put = [](const char* text) {
    const std::size_t n = std::strlen(text);
    ssize_t ignored = ::write(STDERR_FILENO, text, n);
    (void)ignored;
  };
  put("nodegen: error: ");
  put(name);
  switch (g_outcome.load(std::memory_order_acquire)) {
    case kCommitted:
      put(": interrupted after the output was put in place; the new files are complete\n");
      break;
    case kCommitFailed:
      put(": interrupted; putting the output in place failed, and the new output is removed\n");
      break;
    default:
      put(": interrupted; the unfinished output is removed and older files are left as they were\n");
  }
}

extern "C" void remove_and_reraise(int sig) {
  // Held: the first signal is noted for register_files(), commit_ended() or the destructor to act on.
  int state = g_state.load(std::memory_order_acquire);
  while (state != kActing)
    if (state != 0 || g_state.compare_exchange_weak(state, sig, std::memory_order_acq_rel)) return;
  if (g_acting.exchange(true, std::memory_order_acq_rel))
    for (;;) ::pause();  // async-signal-safe; the first handler's raise ends the process
  const bool speaks = g_speak.load(std::memory_order_relaxed);
  if (speaks) say_interrupted(sig);
  unlink_registered();
  if (!speaks) give_the_speaking_rank_time();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// A library that ends the process with exit() in the middle of a run (libgomp when it cannot create a
// thread) skips the destructors too; exit() still runs atexit handlers. Outside a run none is registered.
extern "C" void remove_at_exit() { unlink_registered(); }

}  // namespace

RemoveOnSignal::RemoveOnSignal() {
  static const bool at_exit_registered = std::atexit(remove_at_exit) == 0;
  (void)at_exit_registered;
  g_count.store(0, std::memory_order_release);
  g_outcome.store(kUnfinished, std::memory_order_release);
  g_state.store(0, std::memory_order_release);
  struct sigaction action {};
  action.sa_handler = remove_and_reraise;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < kSignals.size(); ++i) {
    // An ignored signal stays ignored (nohup, background jobs of a non-interactive shell).
    sigaction(kSignals[i].number, nullptr, &g_previous[i]);
    if (g_previous[i].sa_handler != SIG_IGN) sigaction(kSignals[i].number, &action, nullptr);
  }
}

void RemoveOnSignal::register_files(const std::vector<std::filesystem::path>& files) {
  int n = 0;
  for (const auto& f : files) {
    const std::string s = f.string();
    if (n == kMaxFiles || s.size() >= kMaxPath) continue;
    std::memcpy(g_paths[n], s.c_str(), s.size() + 1);
    ++n;
  }
  g_count.store(n, std::memory_order_release);
  if (const int held = g_state.exchange(kActing, std::memory_order_acq_rel); held > 0) std::raise(held);
}

void RemoveOnSignal::hold_for_commit() { g_state.store(0, std::memory_order_release); }

void RemoveOnSignal::commit_ended(bool committed) noexcept {
  g_outcome.store(committed ? kCommitted : kCommitFailed, std::memory_order_release);
  if (committed) g_count.store(0, std::memory_order_release);  // renamed: nothing of the run's to remove
  if (const int held = g_state.exchange(kActing, std::memory_order_acq_rel); held > 0) std::raise(held);
}

void RemoveOnSignal::forget_files() noexcept { g_count.store(0, std::memory_order_release); }

void say_when_interrupted(bool yes) { g_speak.store(yes, std::memory_order_relaxed); }

RemoveOnSignal::~RemoveOnSignal() {
  for (std::size_t i = 0; i < kSignals.size(); ++i) sigaction(kSignals[i].number, &g_previous[i], nullptr);
  g_count.store(0, std::memory_order_release);
  // A signal held until now (the run ended before registering its files) ends the process as it would
  // have, with its line.
  if (const int held = g_state.exchange(kActing, std::memory_order_acq_rel); held > 0) remove_and_reraise(held);
}

}  // namespace nodegen::cli
