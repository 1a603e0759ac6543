#pragma once
// The output of a run on several MPI ranks: one FILE.h5 that every rank writes its slab of, with
// parallel HDF5 (MPI-IO, collective writes), in the layout of a single process's file (io/layout.hpp)
// plus /domain/partition and the attribute `ranks`; and its FILE.xdmf sidecar. Same guarantees as
// io::OutputFiles: rank 0 reserves the temporaries before the fill, the files appear at their final
// paths only when every rank has written its part, and any failure (agreed across the ranks,
// agreement.hpp) leaves no file behind. The ranks must see the output folder on a shared file system.
#include <mpi.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nodegen/io/file_slabs.hpp"
#include "nodegen/io/node_arrays.hpp"
#include "nodegen/io/output.hpp"

namespace nodegen::mpi {

class ParallelOutputFiles {
 public:
  // Collective. Throws InputError "<h5_path>: output: <reason>" on every rank when rank 0 cannot
  // create the files there.
  ParallelOutputFiles(MPI_Comm comm, const std::filesystem::path& h5_path);

  // The temporaries (rank 0 only; empty on the others), for a signal handler that removes them.
  std::optional<std::filesystem::path> h5_temp_path() const;
  std::optional<std::filesystem::path> xdmf_temp_path() const;
  const std::filesystem::path& h5_path() const { return shown_; }

  // Collective: every rank writes `local` (its nodes, in the file rows `slabs` gives) into the file;
  // `metadata` must be the same on every rank. Returns the nodes' fingerprint (io/fingerprint.hpp),
  // which rank 0 computes by reading the finished arrays back in file order, on every rank.
  std::string write(const io::NodeArraysView& local, const io::FileSlabs& slabs, const io::RunMetadata& metadata);
  // Collective: rank 0 puts both files in place as one with `also` (files of its own describing the
  // output, such as a report), telling `watch` (io::OutputFiles::commit); the other ranks pass none.
  void commit(const std::vector<io::PendingFile*>& also = {}, io::CommitWatch* watch = nullptr);

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::optional<io::OutputFiles> files_;  // rank 0
  std::filesystem::path temp_, shown_;    // every rank
};

}  // namespace nodegen::mpi
