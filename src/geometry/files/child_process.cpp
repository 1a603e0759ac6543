#include "nodegen/geometry/child_process.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen {

ChildProcess::ChildProcess() {
  struct sigaction default_chld {};
  default_chld.sa_handler = SIG_DFL;
  ::sigemptyset(&default_chld.sa_mask);
  ::sigaction(SIGCHLD, &default_chld, &old_chld_);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(3);  // the parent ended before the line above took effect
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ != 0) ::sigaction(SIGCHLD, &old_chld_, nullptr);
}

int ChildProcess::wait(const std::string& file) {
  int status = 0;
  pid_t waited = 0;
  while ((waited = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  if (waited < 0)
    throw InputError(file, "(file)", "the process reading it could not be waited for: " + std::string(std::strerror(errno)));
  return status;
}

ChildEnd child_end(int status, int& signal) {
  signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  if (signal == 0) return ChildEnd::exited;
  const bool fault = signal == SIGSEGV || signal == SIGBUS || signal == SIGABRT || signal == SIGFPE || signal == SIGILL ||
                     signal == SIGTRAP || signal == SIGSYS;
  return fault ? ChildEnd::fault : ChildEnd::killed;
}

std::string crash_reason(const std::string& what, int signal) {
  return what + " crashed reading it" +
         (signal ? " (signal " + std::to_string(signal) + ", " + strsignal(signal) + ")" : std::string()) +
         ": the file is corrupt or not one nodegen reads";
}

std::string killed_reason(int signal) {
  return "the process reading it was ended by signal " + std::to_string(signal) + " (" + strsignal(signal) +
         ") from outside: a memory or CPU-time limit, the OOM killer or a signal sent to it; the file itself may be sound";
}

}  // namespace nodegen
