#pragma once
// Temporary folders for the tests. Each test process writes below one root,
// $TMPDIR/nodegen-tests-<pid> (std::filesystem::temp_directory_path() honours $TMPDIR), so a run's
// files are found in one place and a crashed run leaves one folder, not a scatter of names in /tmp.
// A TempDir removes itself and its contents in its destructor, which also runs when an ASSERT_*
// returns early from a failing test; the root is removed when the process exits, if it is empty.
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <iterator>
#include <filesystem>
#include <string>
#include <system_error>

namespace nodegen::test {

// The per-process root, created on first use. Only the process that created it removes it: a forked
// child exiting through exit() runs this destructor too, while its parent may still be writing there.
inline const std::filesystem::path& temp_root() {
  struct Root {
    ::pid_t owner = ::getpid();
    std::filesystem::path path = std::filesystem::temp_directory_path() / ("nodegen-tests-" + std::to_string(owner));
    Root() { std::filesystem::create_directories(path); }
    ~Root() {
      std::error_code ignored;
      if (::getpid() == owner) std::filesystem::remove(path, ignored);  // fails, as wanted, unless empty
    }
  };
  static const Root root;
  return root.path;
}

// How many files and folders `dir` holds (not counting those inside its subfolders).
inline std::size_t entries_in(const std::filesystem::path& dir) {
  return static_cast<std::size_t>(
      std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()));
}

// A fresh folder temp_root()/<name>-XXXXXX, removed with everything in it when the object goes.
class TempDir {
 public:
  explicit TempDir(const std::string& name = "tmp") {
    std::string pattern = (temp_root() / (name + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::filesystem::path& name) const { return path_ / name; }
  std::size_t entries() const { return entries_in(path_); }

 private:
  std::filesystem::path path_;
};

}  // namespace nodegen::test
