#include "run_output.hpp"

#include "nodegen/io/file_slabs.hpp"
#ifdef NODEGEN_WITH_MPI
#include "nodegen/mpi/session.hpp"
#endif

namespace nodegen::cli {

namespace fs = std::filesystem;

RunOutput::RunOutput(const fs::path& h5_path, [[maybe_unused]] const mpi::Session* session) {
#ifdef NODEGEN_WITH_MPI
  if (session) {
    ranks_.emplace(session->comm(), h5_path);
    return;
  }
#endif
  single_.emplace(h5_path);
}

const fs::path& RunOutput::h5_path() const {
#ifdef NODEGEN_WITH_MPI
  if (ranks_) return ranks_->h5_path();
#endif
  return single_->h5_path();
}

std::vector<fs::path> RunOutput::temporaries() const {
#ifdef NODEGEN_WITH_MPI
  if (ranks_) {
    std::vector<fs::path> paths;
    if (auto p = ranks_->h5_temp_path()) paths.push_back(*p);
    if (auto p = ranks_->xdmf_temp_path()) paths.push_back(*p);
    return paths;
  }
#endif
  return {single_->h5_temp_path(), single_->xdmf_temp_path()};
}

std::string RunOutput::write(const io::NodeArraysView& nodes, [[maybe_unused]] const io::FileSlabs& slabs,
                             const io::RunMetadata& metadata) {
#ifdef NODEGEN_WITH_MPI
  if (ranks_) return ranks_->write(nodes, slabs, metadata);
#endif
  return single_->write(nodes, metadata);
}

void RunOutput::commit(const std::vector<io::PendingFile*>& also, io::CommitWatch* watch) {
#ifdef NODEGEN_WITH_MPI
  if (ranks_) return ranks_->commit(also, watch);
#endif
  single_->commit(also, watch);
}

}  // namespace nodegen::cli
