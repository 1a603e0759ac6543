#include "isolated_run.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::cli {

int run_isolated(const std::function<int()>& body, const std::string& file, const std::string& what) {
  std::fflush(stdout);
  std::fflush(stderr);
  int err_pipe[2];
  if (::pipe(err_pipe) != 0) return body();
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(err_pipe[0]);
    ::close(err_pipe[1]);
    return body();
  }
  if (child == 0) {
    // Ends with its parent: a signal that ends the parent (kill, a scheduler's SIGTERM) would otherwise
    // leave the child running on its own, holding its memory.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(2);  // the parent ended before the line above took effect
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
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 2 &&
                              err.find("Sanitizer") != std::string::npos)) {
    const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    throw InputError(file, "(file)",
                     what + " crashed reading it" + (signal ? " (signal " + std::to_string(signal) + ", " + strsignal(signal) + ")" : std::string()) +
                         ": the file is corrupt or not one nodegen reads");
  }
  std::fwrite(err.data(), 1, err.size(), stderr);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

}  // namespace nodegen::cli
