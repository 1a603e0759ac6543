#pragma once
// Where `nodegen run` writes: FILE.h5 + FILE.xdmf from one process (io::OutputFiles), or, when started
// by an MPI launcher, one file that the ranks write together with parallel HDF5
// (mpi::ParallelOutputFiles: /domain/partition and the attribute ranks besides the usual arrays).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nodegen/io/file_slabs.hpp"
#include "nodegen/io/node_arrays.hpp"
#include "nodegen/io/output.hpp"
#ifdef NODEGEN_WITH_MPI
#include "nodegen/mpi/parallel_output.hpp"
#endif

namespace nodegen::mpi {
class Session;
}

namespace nodegen::cli {

class RunOutput {
 public:
  // Reserves the files (collective under MPI); `session` null for a run without MPI.
  RunOutput(const std::filesystem::path& h5_path, const mpi::Session* session);

  const std::filesystem::path& h5_path() const;
  // The temporaries this process created (for the signal handler that removes them).
  std::vector<std::filesystem::path> temporaries() const;
  // This process's nodes, in the file rows `slabs` gives (one process: all of them). Collective under
  // MPI. Returns the nodes' fingerprint.
  std::string write(const io::NodeArraysView& nodes, const io::FileSlabs& slabs, const io::RunMetadata& metadata);
  // Puts the files in place as one, with `also` after them (rank 0's report), telling `watch` when
  // they change (io::OutputFiles::commit). Collective under MPI.
  void commit(const std::vector<io::PendingFile*>& also, io::CommitWatch* watch);

 private:
  std::optional<io::OutputFiles> single_;
#ifdef NODEGEN_WITH_MPI
  std::optional<mpi::ParallelOutputFiles> ranks_;
#endif
};

}  // namespace nodegen::cli
