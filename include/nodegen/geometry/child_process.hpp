#pragma once
// A child process for work that may crash inside a library on a hostile file (libhdf5 1.10 writes
// through a null pointer on some corrupt files, before any check nodegen can make through its API), so
// that the crash ends in the file's one-line error instead of killing nodegen: `nodegen stats` and
// `solve` run their whole command in one, a spacing's sample file is read in one.
#include <csignal>
#include <string>
#include <sys/types.h>

namespace nodegen {

class ChildProcess {
 public:
  // Forks. While the object lives SIGCHLD has its default action: one ignored by whoever started
  // nodegen (inherited) makes the kernel reap the child itself, and its status is lost. The child ends
  // with its parent (a signal that ends the parent would otherwise leave it running, holding memory).
  ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  // Restores SIGCHLD's action (in the parent).
  ~ChildProcess();

  bool failed() const { return pid_ < 0; }  // fork failed: the caller does the work itself
  bool in_child() const { return pid_ == 0; }
  pid_t pid() const { return pid_; }

  // Waits for the child (parent only) and returns its status as waitpid gives it. Throws InputError
  // (file, "(file)", ...) when it cannot be waited for.
  int wait(const std::string& file);

 private:
  pid_t pid_ = -1;
  struct sigaction old_chld_ {};
};

// How a child ended, as far as it says something of the file it read: `fault` for a crash (a
// segmentation fault, bus error, abort, ...), `killed` for a signal from outside (the OOM killer, a
// CPU-time limit, a scheduler's SIGTERM), `exited` otherwise. `signal` is the signal's number, or 0.
enum class ChildEnd { exited, fault, killed };
ChildEnd child_end(int status, int& signal);

// The one-line reason for a child that `what` (a library) crashed in, or that a signal ended from outside.
std::string crash_reason(const std::string& what, int signal);
std::string killed_reason(int signal);

}  // namespace nodegen
