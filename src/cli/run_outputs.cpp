#include "run_outputs.hpp"

#include <vector>

#include "rank_parts.hpp"

namespace nodegen::cli {

namespace fs = std::filesystem;

namespace {

// Only the default folder is made, and by rank 0 only.
CreatedDirectory default_folder(const RunArgs& args, const fs::path& output, bool root) {
  if (args.output || !root) return {};
  return CreatedDirectory(output.parent_path());
}

}  // namespace

RunOutputs::RunOutputs(const RunArgs& args, const fs::path& output, bool root)
    : made_here_(default_folder(args, output, root)), files_(output, args.mpi) {
  on_every_rank(args.mpi, [&] {
    if (args.report && root && !report_to_stdout(args)) report_.emplace(*args.report, "report");
  });
  std::vector<fs::path> temporaries = files_.temporaries();
  if (report_) temporaries.push_back(report_->temp_path());
  share_rank_zeros_temporaries(args.mpi, temporaries);
  interrupted_.register_files(temporaries);
}

void RunOutputs::commit(const RunArgs& args) {
  files_.commit();
  on_every_rank(args.mpi, [&] {
    if (!report_) return;
    try {
      report_->commit();
    } catch (...) {
      files_.remove_committed();
      throw;
    }
  });
  made_here_.keep();
}

}  // namespace nodegen::cli
