#include "isolated_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/geometry/child_process.hpp"

namespace nodegen::cli {

int run_isolated(const std::function<int()>& body, const std::string& file, const std::string& what) {
  std::fflush(stdout);
  std::fflush(stderr);
  int err_pipe[2];
  if (::pipe(err_pipe) != 0) return body();
  ChildProcess child;
  if (child.failed()) {
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    return body();
  }
  if (child.in_child()) {
    ::close(err_pipe[0]);
    ::dup2(err_pipe[1], STDERR_FILENO);
    ::close(err_pipe[1]);
    return body();
  }
  ::close(err_pipe[1]);
  // Standard error is held until the child ends (it is a line or two, unless a sanitizer reports).
  std::string err;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(err_pipe[0], buf, sizeof buf);
    if (n > 0) err.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  ::close(err_pipe[0]);
  const int status = child.wait(file);
  int signal = 0;
  const ChildEnd end = child_end(status, signal);
  if (end == ChildEnd::killed) throw InputError(file, "(file)", killed_reason(signal));
  if (end == ChildEnd::fault || (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 2 &&
                                     err.find("Sanitizer") != std::string::npos))
    throw InputError(file, "(file)", crash_reason(what, signal));
  std::fwrite(err.data(), 1, err.size(), stderr);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

}  // namespace nodegen::cli
