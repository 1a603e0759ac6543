#include "nodegen/io/pending_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "nodegen/io/output_error.hpp"
#include "nodegen/io/temporary_name.hpp"

namespace nodegen::io {

namespace fs = std::filesystem;

namespace {

// The file a symbolic link at `path` leads to (links to links followed; a relative target is relative
// to the link's folder); `path` itself when it is no link. A dangling link resolves to its missing
// target, which is then created.
fs::path through_links(fs::path path) {
  std::error_code ec;
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(path, ec)); ++hops) {
    const fs::path target = fs::read_symlink(path, ec);
    if (ec) break;
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  return path;
}

}  // namespace

PendingFile::PendingFile(fs::path final_path, std::string field)
    : final_(through_links(std::move(final_path))), field_(std::move(field)) {
  if (final_.filename().empty()) detail::throw_io_error(final_, field_, "not a file name");
  // Found now, not when the finished file is renamed into place (temporary_name.hpp cuts its own name).
  if (const std::size_t length = final_.filename().string().size(); length > 255)
    detail::throw_io_error(final_, field_, "the file name is " + std::to_string(length) +
                                               " bytes long, more than the 255 a file system takes");
  const fs::path dir = final_.has_parent_path() ? final_.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) detail::throw_io_error(final_, field_, "directory " + dir.string() + " does not exist");
  const fs::file_status existing = fs::status(final_, ec);
  if (fs::is_directory(existing)) detail::throw_io_error(final_, field_, "is a directory");
  if (fs::exists(existing) && !fs::is_regular_file(existing))
    detail::throw_io_error(final_, field_, "is not a regular file (a device, FIFO or socket), which the finished file "
                                           "would replace; give a file path");

  // A hidden name beside the final file that tells which process writes it (temporary_name.hpp).
  const std::string pattern = temporary_template(dir, final_.filename().string());
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) detail::throw_io_error(final_, field_, std::string("cannot create a file there: ") + std::strerror(errno));
  // mkstemp makes 0600; an output file should get the usual permissions (0666 minus umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  ::close(fd);
  temp_ = fs::path(name.data());
  pending_ = true;
}

PendingFile::PendingFile(PendingFile&& other) noexcept
    : final_(std::move(other.final_)),
      temp_(std::move(other.temp_)),
      field_(std::move(other.field_)),
      pending_(std::exchange(other.pending_, false)),
      committed_(std::exchange(other.committed_, false)) {}

PendingFile::~PendingFile() { discard(); }

void PendingFile::commit() {
  if (!pending_) detail::throw_io_error(final_, field_, "nothing to commit");
  if (::rename(temp_.c_str(), final_.c_str()) != 0) {
    const int err = errno;
    discard();
    detail::throw_io_error(final_, field_, std::string("cannot rename the finished file into place: ") + std::strerror(err));
  }
  pending_ = false;
  committed_ = true;
}

void PendingFile::discard() noexcept {
  if (pending_) {
    ::unlink(temp_.c_str());
    pending_ = false;
  }
}

void PendingFile::remove_older() {
  if (::unlink(final_.c_str()) != 0 && errno != ENOENT)
    detail::throw_io_error(final_, field_, std::string("cannot remove the older file: ") + std::strerror(errno));
}

void PendingFile::remove_committed() noexcept {
  if (committed_) ::unlink(final_.c_str());
  committed_ = false;
}

fs::path temporaries_folder(const fs::path& final_path) { return through_links(final_path).parent_path(); }

}  // namespace nodegen::io
