// A file read in a child process (child_read.hpp). The child writes one status byte ('+' for the
// payload, '!' for an error as file, field and reason separated by NUL bytes), then the bytes, and
// exits at once without running destructors or atexit handlers it inherited.
#include "nodegen/geometry/child_read.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstring>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/geometry/child_process.hpp"

namespace nodegen {
namespace {

void write_all(int fd, const std::string& bytes) {
  std::size_t at = 0;
  while (at < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n > 0) at += static_cast<std::size_t>(n);
    else if (n < 0 && errno == EINTR) continue;
    else return;
  }
}

[[noreturn]] void run_child(const std::function<std::string()>& read, const std::string& file, int out) {
  // The child speaks through the pipe alone: what it would print (libhdf5's diagnostics, a sanitizer's
  // report of the crash it dies of) would reach the terminal beside the parent's one line.
  const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) {
    ::dup2(null, STDERR_FILENO);
    ::close(null);
  }
  std::string message;
  try {
    message = '+' + read();
  } catch (const InputError& e) {
    message = '!' + e.file() + '\0' + e.field() + '\0' + e.reason();
  } catch (const std::exception& e) {
    message = '!' + file + '\0' + "(file)" + '\0' + e.what();
  }
  write_all(out, message);
  ::close(out);
  ::_exit(0);
}

// The child's bytes, up to `most` (+1 status byte): more means it misbehaved. With a `limit`, stops
// waiting for more once it has passed (`late`).
std::string read_pipe(int fd, std::size_t most, bool& overflow, std::chrono::seconds limit, bool& late) {
  std::string bytes;
  char buf[1 << 16];
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    if (limit > std::chrono::seconds::zero()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd ready{fd, POLLIN, 0};
      const int polled = left.count() > 0 ? ::poll(&ready, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1 << 30))) : 0;
      if (polled < 0 && errno == EINTR) continue;
      if (polled == 0) {
        late = true;
        break;
      }
    }
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      if (bytes.size() + static_cast<std::size_t>(n) > most + 1) {
        overflow = true;
        break;
      }
      bytes.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  return bytes;
}

}  // namespace

std::string read_in_child(const std::function<std::string()>& read, const std::string& file, const std::string& what,
                          std::size_t most_bytes, std::chrono::seconds limit) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return read();
  ChildProcess child;
  if (child.failed()) {
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return read();
  }
  if (child.in_child()) {
    ::close(pipe_fds[0]);
    run_child(read, file, pipe_fds[1]);
  }
  ::close(pipe_fds[1]);
  bool overflow = false, late = false;
  const std::string bytes = read_pipe(pipe_fds[0], most_bytes, overflow, limit, late);
  ::close(pipe_fds[0]);
  if (overflow || late) ::kill(child.pid(), SIGKILL);
  const int status = child.wait(file);
  int signal = 0;
  const ChildEnd end = child_end(status, signal);
  if (overflow) throw InputError(file, "(file)", "the process reading it returned more than it could hold");
  if (late)
    throw InputError(file, "(file)", what + " did not finish reading it in " + std::to_string(limit.count()) +
                                         " s (a malformed file it loops on, such as a coordinate that is not a number)");
  if (end == ChildEnd::killed) throw InputError(file, "(file)", killed_reason(signal));
  if (end == ChildEnd::fault || WEXITSTATUS(status) != 0 || bytes.empty())
    throw InputError(file, "(file)", crash_reason(what, signal));
  if (bytes[0] == '+') return bytes.substr(1);
  const std::size_t a = bytes.find('\0', 1), b = a == std::string::npos ? a : bytes.find('\0', a + 1);
  if (b == std::string::npos) throw InputError(file, "(file)", "the process reading it failed without saying why");
  throw InputError(bytes.substr(1, a - 1), bytes.substr(a + 1, b - a - 1), bytes.substr(b + 1));
}

}  // namespace nodegen
