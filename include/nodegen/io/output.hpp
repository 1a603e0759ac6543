#pragma once
// The output of a run: FILE.h5 (Medusa layout) plus its FILE.xdmf sidecar, both appearing at their
// final paths only when both are complete.
//
// Create the OutputFiles before the fill: that reserves the temporaries, so an unwritable output path
// fails in milliseconds instead of after an hour of filling. If write() is not reached or throws,
// the destructor removes the temporaries and any older FILE.h5 is left untouched.
// Two processes writing one output commit one after the other, each its whole pair (output_commit.hpp).
#include <filesystem>
#include <string>
#include <vector>

#include "nodegen/io/node_arrays.hpp"
#include "nodegen/io/pending_file.hpp"

namespace nodegen::io {

class CommitWatch;  // output_commit.hpp

class OutputFiles {
 public:
  // Throws InputError "<h5_path>: output: <reason>" when the files cannot be created there.
  explicit OutputFiles(const std::filesystem::path& h5_path);

  const std::filesystem::path& h5_path() const { return h5_.final_path(); }
  const std::filesystem::path& xdmf_path() const { return xdmf_.final_path(); }
  // Where the files are written until they are complete (for a signal handler that removes them).
  const std::filesystem::path& h5_temp_path() const { return h5_.temp_path(); }
  const std::filesystem::path& xdmf_temp_path() const { return xdmf_.temp_path(); }

  // Writes both temporaries. Call once, then commit() (a caller with more files to write, such as
  // the CLI's report, writes them all before committing any, so a late failure leaves none behind).
  // Returns the nodes' fingerprint (io/fingerprint.hpp).
  std::string write(const NodeArraysView& nodes, const RunMetadata& metadata);
  // Writes only the sidecar's temporary, for a file of `node_count` nodes written into h5_temp_path()
  // by other means (the MPI ranks' parallel writer).
  void write_sidecar(std::size_t node_count);
  // Puts both in place as one (output_commit.hpp: the older sidecar removed, the h5 renamed, then
  // the sidecar), with `also` after them (a report describing the file) and `watch` told when the
  // files change. On failure no new file is left in place.
  void commit(const std::vector<PendingFile*>& also = {}, CommitWatch* watch = nullptr);

 private:
  PendingFile h5_;
  PendingFile xdmf_;
};

// One-call form: OutputFiles(h5_path).write(nodes, metadata), then commit().
std::string write_output(const std::filesystem::path& h5_path, const NodeArraysView& nodes, const RunMetadata& metadata);

}  // namespace nodegen::io
