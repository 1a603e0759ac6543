#pragma once
// Progress while the fill runs. On a terminal: one line on stderr, redrawn a few times a second, with
// the nodes placed of about how many, nodes/s and the elapsed time. In a log (stderr not a terminal): a
// line every few seconds with the same figures, the first after a few seconds, so short runs write
// nothing. A thread polls the fill's relaxed counter (FillOptions::progress).
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>

namespace nodegen::cli {

class ProgressBar {
 public:
  // Starts reporting if `enabled`; `expected`: the nodes the run should place (0: unknown).
  ProgressBar(const std::atomic<std::size_t>& counter, bool enabled, double expected = 0.0);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  // Stops the thread and erases the terminal's line, so the summary starts on a clean line.
  ~ProgressBar();
  void stop();

  // Seconds between two lines in a log.
  static constexpr double kLogSeconds = 5.0;

 private:
  void run();

  const std::atomic<std::size_t>& counter_;
  const double expected_;
  bool terminal_ = false;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace nodegen::cli
