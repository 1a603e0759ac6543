#pragma once
// Ctrl-C (SIGINT), SIGTERM or SIGHUP during a run would skip the destructors that delete the output
// temporaries and leave hidden ".FILE.h5.tmp-XXXXXX" files behind. While a RemoveOnSignal is alive, those
// signals first unlink the registered files (unlink is async-signal-safe), then terminate the process
// the way the signal would have (default action re-raised), so the exit status still says "killed by
// SIGINT". Signals that were ignored when the run started (nohup) stay ignored.
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

}  // namespace nodegen::cli
