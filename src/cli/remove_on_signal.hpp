#pragma once
// Ctrl-C (SIGINT), SIGTERM, SIGHUP or another terminating signal (SIGQUIT, SIGUSR1/2, SIGALRM,
// SIGXCPU: the list is in remove_on_signal.cpp) during a run would skip the destructors that delete the output
// temporaries and leave hidden ".FILE.h5.tmp-XXXXXX" files behind. While a RemoveOnSignal is alive, those
// signals first unlink the registered files (unlink is async-signal-safe), then terminate the process
// the way the signal would have (default action re-raised), so the exit status still says "killed by
// SIGINT". Signals that were ignored when the run started (nohup) stay ignored. An exit() from inside a
// library during the run (libgomp's, when a thread cannot be created) removes them too (atexit).
#include <csignal>
#include <filesystem>
#include <vector>

namespace nodegen::cli {

class RemoveOnSignal {
 public:
  explicit RemoveOnSignal(const std::vector<std::filesystem::path>& files);
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;
  ~RemoveOnSignal();  // restores the previous handlers
};

// Whether the handler says in one line which signal ended the run (default yes): under MPI only the
// rank that prints errors does, so a signal that ends every rank prints one line, not one per rank.
void say_when_interrupted(bool yes);

// Holds back those signals in the calling thread while it lives; one that arrives meanwhile
// is delivered when it ends. The run creates its temporaries and then registers them: a signal in
// between would otherwise kill the process before the handler exists and leave them behind. (The run
// has no other threads then, so no other thread can take the signal.)
class HoldSignals {
 public:
  HoldSignals();
  HoldSignals(const HoldSignals&) = delete;
  HoldSignals& operator=(const HoldSignals&) = delete;
  ~HoldSignals();  // restores the previous mask

 private:
  sigset_t previous_;
};

}  // namespace nodegen::cli
