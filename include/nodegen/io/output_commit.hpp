#pragma once
// Putting a finished set of files in place as one: a data file (the HDF5 file) and the files that
// describe it (its XDMF sidecar, which names it and gives its node count; a run's report, which gives
// its fingerprint). docs/output-format.md, "Committing the output", has the argument in full.
//
// Order: take the folder lock; remove the older describing files; rename the data file into place;
// rename each describing file into place. No step can leave a describing file beside a data file it
// does not describe, so a process stopped between any two steps (SIGKILL, a power cut) leaves an older
// or a newer data file with no stale description, never a mismatched pair.
//
// The lock: flock(2) on the data file's folder, held only for these steps, so two processes that
// finish writing one output at once commit one after the other and the later one's set wins whole,
// while writers of other files in that folder wait no longer than a rename. A folder keeps no trace of
// the lock, where a lock file would be one more file to leave behind. On a file system that cannot
// lock a folder (NFS: flock there needs a file open for writing) the steps run unlocked.
#include <vector>

#include "nodegen/io/pending_file.hpp"

namespace nodegen::io {

// Told when the files start and stop changing, so a caller can hold back what would otherwise stop
// the process in between (the CLI holds a terminating signal until the set is in place).
class CommitWatch {
 public:
  virtual ~CommitWatch() = default;
  // The lock is held and nothing is changed yet.
  virtual void changing() = 0;
  // Every file is in place (`committed`), or a step failed and the new files put in place so far are
  // removed again (the error follows). May end the process.
  virtual void changed(bool committed) noexcept = 0;
};

// Commits `data` and then `describing` as above (null entries are skipped). On failure, throws the
// failing step's InputError with every new file of the set removed from its final place; an older
// data file then stays, without the describing files removed before.
void commit_as_one(PendingFile& data, const std::vector<PendingFile*>& describing, CommitWatch* watch = nullptr);

}  // namespace nodegen::io
