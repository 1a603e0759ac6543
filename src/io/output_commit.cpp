#include "nodegen/io/output_commit.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

namespace nodegen::io {

namespace {

// An exclusive flock on a folder, held while alive; none when the folder cannot be opened or locked
// (the commit then runs unlocked, as output_commit.hpp says).
class FolderLock {
 public:
  explicit FolderLock(const std::filesystem::path& folder) {
    fd_ = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) return;
    int result = 0;
    while ((result = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (result != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock() {
    if (fd_ >= 0) ::close(fd_);  // closing the only descriptor releases the lock
  }

 private:
  int fd_ = -1;
};

}  // namespace

void commit_as_one(PendingFile& data, const std::vector<PendingFile*>& describing, CommitWatch* watch) {
  const FolderLock lock(data.final_path().parent_path());
  if (watch) watch->changing();
  try {
    for (PendingFile* d : describing)
      if (d) d->remove_older();
    data.commit();
    for (PendingFile* d : describing)
      if (d) d->commit();
  } catch (...) {
    data.remove_committed();
    for (PendingFile* d : describing)
      if (d) d->remove_committed();
    if (watch) watch->changed(false);
    throw;
  }
  if (watch) watch->changed(true);
}

}  // namespace nodegen::io
