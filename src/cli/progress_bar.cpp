#include "progress_bar.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace nodegen::cli {

ProgressBar::ProgressBar(const std::atomic<std::size_t>& counter, bool enabled) : counter_(counter) {
  if (enabled && ::isatty(STDERR_FILENO)) thread_ = std::thread([this] { run(); });
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
  std::fputs("\r\033[K", stderr);  // erase the progress line
  std::fflush(stderr);
}

void ProgressBar::run() {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  auto draw = [&] {
    const double elapsed = std::chrono::duration<double>(clock::now() - start).count();
    const auto placed = counter_.load(std::memory_order_relaxed);
    const double rate = elapsed > 0 ? static_cast<double>(placed) / elapsed : 0.0;
    std::fprintf(stderr, "\r\033[Kfilling: %zu nodes placed  %.3g nodes/s  %.1f s", placed, rate, elapsed);
    std::fflush(stderr);
  };
  std::unique_lock lock(mutex_);
  draw();  // at once, so even a short run shows that it started
  while (!wake_.wait_for(lock, std::chrono::milliseconds(250), [this] { return stopping_; })) draw();
}

}  // namespace nodegen::cli
