#pragma once
// The progress line on a terminal while the fill runs: nodes placed, nodes/s, elapsed time. A thread
// polls the fill's relaxed counter (FillOptions::progress) a few times per second and redraws one line
// on stderr; nothing is drawn when stderr is not a terminal (logs and pipes stay clean).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

namespace nodegen::cli {

class ProgressBar {
 public:
  // Starts drawing if `enabled` and stderr is a terminal; otherwise does nothing at all.
  ProgressBar(const std::atomic<std::size_t>& counter, bool enabled);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  // Stops the thread and erases the line, so the summary starts on a clean line.
  ~ProgressBar();
  void stop();

 private:
  void run();

  const std::atomic<std::size_t>& counter_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nodegen::cli
