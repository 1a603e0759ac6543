#pragma once
// Ctrl-C (SIGINT), SIGTERM, SIGHUP or another terminating signal (SIGQUIT, SIGUSR1/2, SIGALRM,
// SIGXCPU: the list is in remove_on_signal.cpp) during a run would skip the destructors that delete the output
// temporaries and leave hidden ".FILE.h5.tmp-..." files behind. While a RemoveOnSignal is alive, those
// signals first unlink the registered files (unlink is async-signal-safe), then terminate the process
// the way the signal would have (default action re-raised), so the exit status still says "killed by
// SIGINT". Signals that were ignored when the run started (nohup) stay ignored. An exit() from inside a
// library during the run (libgomp's, when a thread cannot be created) removes them too (atexit).
//
// The handler is installed before the temporaries exist and holds a signal back until they are
// registered: a signal between their creation and their registration would otherwise end the process
// and leave them behind. The hold is kept by the handler itself, not by a signal mask, because a mask
// holds only in the thread that sets it and the run has other threads by then (the OpenMP team, the
// MPI library's).
//
// The same hold covers the commit: while the finished files are renamed into place, a signal waits
// until the last rename, so the HDF5 file, its sidecar and the report end up all new or all as they
// were, never some of each; the line then says which (the output removed, or in place).
#include <filesystem>
#include <vector>

namespace nodegen::cli {

class RemoveOnSignal {
 public:
  // Installs the handler; a signal from now on is held until register_files() (or the destructor).
  RemoveOnSignal();
  RemoveOnSignal(const RemoveOnSignal&) = delete;
  RemoveOnSignal& operator=(const RemoveOnSignal&) = delete;
  // Restores the previous handlers; a signal still held then ends the process as it would have.
  ~RemoveOnSignal();

  // Registers the files a signal removes (at most 4) and ends the hold: a signal held meanwhile
  // takes effect now.
  void register_files(const std::vector<std::filesystem::path>& files);

  // The files are being put in place (io::CommitWatch::changing): a signal from now on is held until
  // commit_ended().
  void hold_for_commit();
  // Ends that hold: a signal held meanwhile takes effect now, its line saying whether the output is in
  // place (`committed`: no file is removed then) or removed again (the commit failed).
  void commit_ended(bool committed) noexcept;
  // From now on a signal removes no file: the other ranks of an MPI run registered rank 0's
  // temporaries, which they must not unlink while rank 0 renames them into place.
  void forget_files() noexcept;
};

// Whether the handler says in one line which signal ended the run (default yes): under MPI only the
// rank that prints errors does, so a signal that ends every rank prints one line, not one per rank.
// A rank that does not say it ends half a second after removing the files: mpirun (Open MPI 4.1) sends
// every rank SIGKILL as soon as one rank ends after its SIGTERM, which would otherwise end the rank
// that speaks before its line is written.
void say_when_interrupted(bool yes);

}  // namespace nodegen::cli
