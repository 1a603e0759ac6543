// Bounded, non-blocking reads of input files (see input_file.hpp).
#include <nodegen/geometry/input_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace nodegen {
namespace {

std::string type_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

std::string size_text(std::uintmax_t bytes) {
  char buf[48];
  const double b = static_cast<double>(bytes);
  if (bytes >= InputFileLimits::kMiB * 1024) std::snprintf(buf, sizeof buf, "%.1f GiB", b / (1024.0 * 1024 * 1024));
  else if (bytes >= InputFileLimits::kMiB) std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
  else std::snprintf(buf, sizeof buf, "%ju bytes", bytes);
  return buf;
}

// The same checks for stat() of the path and fstat() of the opened descriptor.
std::uintmax_t check_stat(const struct stat& st, std::uintmax_t max_bytes, const std::string& kind) {
  if (!S_ISREG(st.st_mode)) throw InputFileError("is " + type_of(st.st_mode) + ", not a regular file");
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  if (size > max_bytes)
    throw InputFileError("is " + size_text(size) + ", above the " + size_text(max_bytes) + " limit of " + kind);
  return size;
}

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::uintmax_t check_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& kind) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) throw InputFileError("file not found", true);
    throw InputFileError(std::string("cannot read it: ") + std::strerror(errno));
  }
  return check_stat(st, max_bytes, kind);
}

std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& kind) {
  check_input_file(path, max_bytes, kind);
  // O_NONBLOCK: should the path have become a FIFO since the stat, open() returns at once instead of
  // waiting for a writer; the fstat below then refuses it.
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (fd.get() < 0) throw InputFileError(std::string("cannot open for reading: ") + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw InputFileError(std::string("cannot read it: ") + std::strerror(errno));
  std::string text;
  text.resize(static_cast<std::size_t>(check_stat(st, max_bytes, kind)));
  std::size_t used = 0;
  for (;;) {
    if (used == text.size()) {
      if (text.size() > max_bytes) throw InputFileError("grew beyond the " + size_text(max_bytes) + " limit of " + kind + " while being read");
      text.resize(std::min<std::uintmax_t>(max_bytes + 1, std::max<std::size_t>(4096, 2 * text.size())));
    }
    const ssize_t got = ::read(fd.get(), text.data() + used, text.size() - used);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputFileError(std::string("cannot read it: ") + std::strerror(errno));
    }
    if (got == 0) break;
    used += static_cast<std::size_t>(got);
  }
  text.resize(used);
  return text;
}

}  // namespace nodegen
