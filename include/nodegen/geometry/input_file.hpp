#pragma once
// Opening the files a run reads (domain files, polygon point files, meshes, HDF5 files for `stats`)
// without trusting them: each must be a regular file (after symbolic links) no larger than a stated
// cap. A FIFO, socket or device is refused by its type before it is opened, so nothing blocks on a
// pipe with no writer and nothing reads /dev/zero until memory runs out. Limits: docs/domain-format.md.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace nodegen {

struct InputFileLimits {
  static constexpr std::uintmax_t kMiB = 1024 * 1024;
  // A parsed JSON document takes many times its text in memory (many small arrays), so domain files
  // are capped well below the other kinds (measured: bench/RESULTS.md, Input checks). Large point
  // lists belong in point files.
  static constexpr std::uintmax_t kDomainFileBytes = 16 * kMiB;
  static constexpr std::uintmax_t kPointFileBytes = 256 * kMiB;
  static constexpr std::uintmax_t kMeshFileBytes = 1024 * kMiB;
};

// The reason an input file cannot be read, without the file's name (callers put it in an InputError
// whose FILE and FIELD say which file and which field named it).
class InputFileError : public std::runtime_error {
 public:
  explicit InputFileError(const std::string& reason, bool missing = false)
      : std::runtime_error(reason), missing_(missing) {}
  // True when nothing exists at the path (the reason is then "file not found").
  bool missing() const noexcept { return missing_; }

 private:
  bool missing_;
};

// "file not found: FILE" when nothing is there, else "KIND FILE REASON" ("mesh m.stl is a FIFO ...").
inline std::string describe_input_file_error(const std::string& kind, const std::string& file, const InputFileError& e) {
  return e.missing() ? "file not found: " + file : kind + " " + file + " " + e.what();
}

// Its size, when `path` names a regular file (following symbolic links) of at most max_bytes; else
// throws InputFileError ("file not found", "is a FIFO, not a regular file", "is 2.0 GiB, above the
// 1 GiB limit of mesh files"). `kind` names the kind of file in that last message ("mesh files").
std::uintmax_t check_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& kind);

// The whole content of a file that check_input_file accepts. Opened without blocking and checked
// again on the open descriptor (a file swapped for a FIFO in between is refused too), and never read
// past max_bytes even if it grows meanwhile. Throws InputFileError.
std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& kind);

}  // namespace nodegen
