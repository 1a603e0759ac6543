#pragma once
// The files of one `nodegen run`, reserved before the fill and committed as one after it: the HDF5
// file and its XDMF sidecar (RunOutput), the report, the default output folder when the run made it,
// and the handler that removes the temporaries on a signal. A bad output path fails here, in
// milliseconds, not after the fill; a run that fails leaves none of them behind. Before reserving,
// rank 0 removes the temporaries that killed runs left in the output's and the report's folders
// (io/temporary_name.hpp), one line each on stderr.
#include <filesystem>
#include <optional>

#include "nodegen/io/pending_file.hpp"
#include "remove_on_signal.hpp"
#include "run_command.hpp"
#include "run_output.hpp"
#include "run_paths.hpp"

namespace nodegen::cli {

class RunOutputs {
 public:
  // Creates the temporaries (collective under MPI; rank 0 makes the report's), and registers every
  // rank's copy of rank 0's paths for removal on a signal. A signal from the first line on is held
  // until they are registered.
  RunOutputs(const RunArgs& args, const std::filesystem::path& output, bool root);

  RunOutput& files() { return files_; }
  const std::optional<io::PendingFile>& report() const { return report_; }

  // Every file is written: only now do they replace older ones, as one (io/output_commit.hpp), with a
  // signal held until the last is in place. A failure leaves no new file in place.
  void commit(const RunArgs& args);

 private:
  RemoveOnSignal interrupted_;  // first: installed before any temporary exists
  CreatedDirectory made_here_;
  RunOutput files_;
  std::optional<io::PendingFile> report_;
};

}  // namespace nodegen::cli
