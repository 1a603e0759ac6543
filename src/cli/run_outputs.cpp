#include "run_outputs.hpp"

#include <cstdio>
#include <vector>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/io/output_commit.hpp"
#include "nodegen/io/temporary_name.hpp"
#include "rank_parts.hpp"

namespace nodegen::cli {

namespace fs = std::filesystem;

namespace {

// Rank 0 makes the default folder (only that one), then removes the temporaries of killed runs from
// the folders this run's temporaries will go to. A removal is said even under --quiet, like the
// warnings: a file of the user's folder disappears.
CreatedDirectory folder_swept(const RunArgs& args, const fs::path& output, bool root) {
  if (!root) return {};
  CreatedDirectory made = args.output ? CreatedDirectory() : CreatedDirectory(output.parent_path());
  std::vector<fs::path> folders{io::temporaries_folder(output)};
  // The report's folder may be the output's: the second sweep then finds nothing left.
  if (args.report && !report_to_stdout(args)) folders.push_back(io::temporaries_folder(*args.report));
  for (const fs::path& folder : folders)
    for (const fs::path& removed : io::remove_dead_temporaries(folder))
      std::fprintf(stderr, "nodegen: removed the temporary %s of a run that was killed\n",
                   printable(removed.string()).c_str());  // a file name may hold a newline
  return made;
}

// Holds a terminating signal while the files are renamed into place.
class HeldDuringCommit final : public io::CommitWatch {
 public:
  explicit HeldDuringCommit(RemoveOnSignal& handler) : handler_(handler) {}
  void changing() override { handler_.hold_for_commit(); }
  void changed(bool committed) noexcept override { handler_.commit_ended(committed); }

 private:
  RemoveOnSignal& handler_;
};

// A report path that is standard output, a pipe or a device (/dev/stdout, /proc/self/fd/1) cannot be
// replaced by a finished file: the way to print the report is --report -.
void refuse_stream_report(const fs::path& report) {
  std::error_code ec;
  const fs::file_status status = fs::status(report, ec);
  const bool stream = (!ec && fs::exists(status) && !fs::is_regular_file(status) && !fs::is_directory(status)) ||
                      report.string().starts_with("/proc/self/fd/") || report.string().starts_with("/dev/fd/");
  if (stream)
    throw InputError(report.string(), "report",
                     "is not a regular file (standard output, a pipe or a device), which the finished report would "
                     "replace: give --report - to print the report on standard output, or a file path");
}

}  // namespace

RunOutputs::RunOutputs(const RunArgs& args, const fs::path& output, bool root)
    : made_here_(folder_swept(args, output, root)), files_(output, args.mpi) {
  on_every_rank(args.mpi, [&] {
    if (!args.report || !root || report_to_stdout(args)) return;
    refuse_stream_report(*args.report);
    report_.emplace(*args.report, "report");
  });
  std::vector<fs::path> temporaries = files_.temporaries();
  if (report_) temporaries.push_back(report_->temp_path());
  share_rank_zeros_temporaries(args.mpi, temporaries);
  interrupted_.register_files(temporaries);
}

void RunOutputs::commit(const RunArgs& args) {
  // Rank 0 renames the temporaries every rank registered: the others stop removing them on a signal
  // before it starts (the agreement orders it).
  on_every_rank(args.mpi, [&] {
    if (rank_of(args.mpi) != 0) interrupted_.forget_files();
  });
  HeldDuringCommit held(interrupted_);
  std::vector<io::PendingFile*> also;
  if (report_) also.push_back(&*report_);
  files_.commit(also, &held);
  made_here_.keep();
}

}  // namespace nodegen::cli
