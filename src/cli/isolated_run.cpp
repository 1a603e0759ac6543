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
  // A SIGCHLD ignored by whoever started nodegen (inherited) makes the kernel reap the child itself:
  // waitpid then finds none and the child's exit status is lost (an error line, then exit 0).
  struct sigaction default_chld {}, old_chld {};
  default_chld.sa_handler = SIG_DFL;
  ::sigemptyset(&default_chld.sa_mask);
  ::sigaction(SIGCHLD, &default_chld, &old_chld);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) {
    ::sigaction(SIGCHLD, &old_chld, nullptr);
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
  pid_t waited = 0;
  while ((waited = ::waitpid(child, &status, 0)) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGCHLD, &old_chld, nullptr);
  if (waited < 0) throw InputError(file, "(file)", "the process reading it could not be waited for: " + std::string(std::strerror(errno)));
  const int signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  // Only a fault blames the file: a kill from outside (the OOM killer, a CPU-time limit, a scheduler's
  // SIGTERM, a closed pipe) says nothing about it.
  const bool fault = signal == SIGSEGV || signal == SIGBUS || signal == SIGABRT || signal == SIGFPE || signal == SIGILL ||
                     signal == SIGTRAP || signal == SIGSYS;
  if (signal && !fault)
    throw InputError(file, "(file)",
                     "the process reading it was ended by signal " + std::to_string(signal) + " (" + strsignal(signal) +
                         ") from outside: a memory or CPU-time limit, the OOM killer or a signal sent to it; the file itself may be sound");
  if (fault || (WIFEXITED(status) && WEXITSTATUS(status) != 0 && WEXITSTATUS(status) != 2 &&
                err.find("Sanitizer") != std::string::npos)) {
    throw InputError(file, "(file)",
                     what + " crashed reading it" + (signal ? " (signal " + std::to_string(signal) + ", " + strsignal(signal) + ")" : std::string()) +
                         ": the file is corrupt or not one nodegen reads");
  }
  std::fwrite(err.data(), 1, err.size(), stderr);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}

}  // namespace nodegen::cli
