#include "thread_start.hpp"

#include <atomic>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::cli {

void require_threads_start(int threads) {
  std::vector<std::thread> started;
  started.reserve(threads > 1 ? static_cast<std::size_t>(threads - 1) : 0);
  std::atomic<bool> release{false};
  std::string failure;
  for (int t = 1; t < threads; ++t) {
    try {
      // Each waits until every one exists, so they hold their stacks at the same time, as a team does.
      started.emplace_back([&release] { release.wait(false); });
    } catch (const std::system_error& e) {
      failure = e.code().message();
      break;
    }
  }
  release.store(true);
  release.notify_all();
  for (std::thread& t : started) t.join();
  if (!failure.empty())
    throw InputError("--threads", "value",
                     "cannot start " + std::to_string(threads) + " threads here (" + failure + " after " +
                         std::to_string(started.size() + 1) +
                         "): the process's limits (virtual memory, ulimit -v; stack size per thread, ulimit -s; threads, ulimit -u) allow fewer; "
                         "ask for fewer threads");
}

}  // namespace nodegen::cli
