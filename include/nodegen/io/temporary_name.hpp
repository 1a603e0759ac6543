#pragma once
// The names of the temporaries a PendingFile writes, and the removal of those left behind by a writer
// that no longer exists (a run ended by SIGKILL, the out-of-memory killer, a crash or a power cut
// cannot remove its own).
//
// A temporary is named ".<name>.tmp-<pid>-<boot>-<host>-XXXXXX": the writing process's id, the first 8
// hex digits of the machine's boot id (/proc/sys/kernel/random/boot_id, new at every boot), 8 hex
// digits that tell the machine and the process-id namespace apart (a hash of the host name and of the
// namespace's inode) and mkstemp's 6 random characters. From the name alone a later run can tell
// that the writer is surely gone:
//  - same host tag, same boot: no process has its pid any more (kill(pid, 0) fails with ESRCH), or the
//    one that has it is a zombie (ended, not yet waited for by its parent);
//  - same host tag, another boot: the machine was restarted since.
// A temporary with another host tag is never judged: it was written on another machine sharing the
// folder (NFS between a cluster's nodes) or in another pid namespace (a container's bind mount), where
// its pid means nothing here and its writer may be running. Neither is a file whose name does not
// follow the pattern exactly.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace nodegen::io {

// The template mkstemp fills in: "<dir>/.<final_name>.tmp-<pid>-<boot>-<host>-XXXXXX", the final name
// cut so that the temporary's own name stays within the file system's 255 bytes.
std::string temporary_template(const std::filesystem::path& dir, const std::string& final_name);

// Whether `name` (a file name, no folder) is a temporary's name whose writer is surely gone.
bool names_a_dead_writers_temporary(std::string_view name);

// Removes the regular files in `dir` (empty: the current folder) named as temporaries of writers that
// are surely gone, and returns their paths (dir / name). Never throws: a folder that cannot be read
// has none, and a file another process removed first is not counted.
std::vector<std::filesystem::path> remove_dead_temporaries(const std::filesystem::path& dir);

}  // namespace nodegen::io
