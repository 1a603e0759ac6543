#include "progress_bar.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace nodegen::cli {

ProgressBar::ProgressBar(const std::atomic<std::size_t>& counter, bool enabled, double expected)
    : counter_(counter), expected_(expected) {
  if (!enabled) return;
  terminal_ = ::isatty(STDERR_FILENO);
  thread_ = std::thread([this] { run(); });
}

ProgressBar::~ProgressBar() { stop(); }

void ProgressBar::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
  if (terminal_) {
    std::fputs("\r\033[K", stderr);  // erase the progress line
    std::fflush(stderr);
  }
}

void ProgressBar::run() {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto line = [&] {
    const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
    const auto placed = counter_.load(std::memory_order_relaxed);
    const double rate = elapsed > 0 ? static_cast<double>(placed) / elapsed : 0.0;
    char total[64] = "";
    if (expected_ > 0)
      std::snprintf(total, sizeof total, " of about %.3g (%.0f %%)", expected_,
                    100.0 * static_cast<double>(placed) / expected_);
    char text[192];
    std::snprintf(text, sizeof text, "filling: %zu nodes placed%s, %.3g nodes/s, %.1f s", placed, total, rate, elapsed);
    return std::string(text);
  };
  std::unique_lock lock(mutex_);
  if (terminal_) {
    auto draw = [&] {
      std::fprintf(stderr, "\r\033[K%s", line().c_str());
      std::fflush(stderr);
    };
    draw();  // at once, so even a short run shows that it started
    while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; })) draw();
    return;
  }
  const auto period = std::chrono::duration<double>(kLogSeconds);
  while (!wake_.wait_for(lock, period, [this] { return stopping_; })) {
    std::fprintf(stderr, "nodegen: %s\n", line().c_str());
    std::fflush(stderr);
  }
}

}  // namespace nodegen::cli
