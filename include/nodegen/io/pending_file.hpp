#pragma once
// A file that appears at its final path only when complete: it is written under a temporary name in
// the same directory (so the final rename(2) is atomic: same file system) and renamed into place by
// commit(). If commit() is never reached (an exception, a failed write), the destructor deletes the
// temporary, so a failed run leaves nothing behind and never clobbers an older good file.
//
// A final path that is a symbolic link is written through: the file it points to is replaced, not the
// link (the temporary lies beside that file). A final path that exists and is not a regular file (a
// device such as /dev/null, a FIFO, a socket) is refused: renaming over it would destroy it.
#include <filesystem>
#include <string>

namespace nodegen::io {

class PendingFile {
 public:
  // Creates the temporary ("<dir>/.<name>.tmp-<pid>-<boot>-<host>-XXXXXX", temporary_name.hpp; mode
  // 0644 like an ordinary new file).
  // Throws InputError "<final>: <field>: <reason>" when the directory is missing or not writable, or
  // the path is a directory or another kind of non-regular file. `field` names the option in errors.
  explicit PendingFile(std::filesystem::path final_path, std::string field = "output");
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  PendingFile(PendingFile&& other) noexcept;
  PendingFile& operator=(PendingFile&&) = delete;
  ~PendingFile();

  const std::filesystem::path& temp_path() const { return temp_; }
  // Where the file will be: the given path, or the file a symbolic link there points to.
  const std::filesystem::path& final_path() const { return final_; }

  // Renames the temporary onto the final path (replacing an older file). Throws InputError on failure
  // (the temporary is then deleted by the destructor).
  void commit();
  // Deletes the temporary now (idempotent).
  void discard() noexcept;
  // Before commit(): removes an older file at the final path, so that nothing stale is left there while
  // the file it describes is replaced (output_commit.hpp). A missing file is no error; throws InputError
  // when it cannot be removed.
  void remove_older();
  // After commit(): removes the committed file again (a later file of the set failed); else nothing.
  void remove_committed() noexcept;

 private:
  std::filesystem::path final_;
  std::filesystem::path temp_;
  std::string field_;
  bool pending_ = false;
  bool committed_ = false;
};

// The folder a PendingFile for `final_path` writes its temporary in: that of the file a symbolic link
// there leads to; empty for the current folder.
std::filesystem::path temporaries_folder(const std::filesystem::path& final_path);

}  // namespace nodegen::io
