#pragma once
// Writes the arrays of one discretization into an open HDF5 file in Medusa's layout (layout.hpp), for
// one process writing the whole file (write_hdf5) and for several processes writing their slabs of one
// file together (src/mpi/parallel_output.cpp): the same datasets, rows and blocks either way.
//
// With several writers every HDF5 call that touches the file's structure or data is collective, so
// each writer makes the same calls in the same order: the data go in `rounds` blocks per array, the
// same count on every writer (a writer with fewer rows writes empty blocks), and every step's outcome
// is agreed through the WriterTeam before the next, so one writer's failure ends them all together
// instead of leaving the others waiting in a collective call.
#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <initializer_list>
#include <span>
#include <string>

#include "nodegen/io/hdf5_handle.hpp"
#include "nodegen/io/file_slabs.hpp"
#include "nodegen/io/fingerprint.hpp"
#include "nodegen/io/node_arrays.hpp"

namespace nodegen::io::detail {

// What a writer shares with the others writing the same file. One writer alone: nothing.
class WriterTeam {
 public:
  virtual ~WriterTeam() = default;
  // Called by every writer after each step with its failure (null: none); throws on every writer when
  // any failed (the exception of the first failing writer).
  virtual void agree(std::exception_ptr failure) const {
    if (failure) std::rethrow_exception(failure);
  }
  // The same for a failure given as a reason: InputError "<shown>: output: <reason>" ("" : none).
  void agree(const std::filesystem::path& shown, const std::string& failure) const;
  // The largest of the writers' values.
  virtual std::size_t max(std::size_t value) const { return value; }
  // The data transfer property list of the writes (collective with several writers).
  virtual hid_t transfer() const { return H5P_DEFAULT; }
};

// Nodes per block when transposing interleaved positions into rows, evaluating h, and building the
// display arrays: bounded buffers, so writing 1e8 nodes costs a few MB beyond the nodes themselves.
inline constexpr std::size_t kWriteBlock = std::size_t{1} << 16;

class NodeWriter {
 public:
  // `file`: an open file; `fingerprint`: fed with the /domain arrays as they are written (null: the
  // caller computes the fingerprint another way).
  NodeWriter(H5Handle file, const FileSlabs& slabs, const WriterTeam& team, const std::filesystem::path& shown,
             NodesFingerprint* fingerprint);

  // An upper bound of the bytes of the file these writes make (without supports, which the writers of
  // several processes never have): the arrays of write_domain,
  // write_node_int32 (one) and write_display_arrays for `slabs`, the metadata, and HDF5's own headers.
  // Keep it in step with the writes below (a test compares it with written files).
  static std::uint64_t file_bytes_bound(const FileSlabs& slabs, int dim, const RunMetadata& metadata);

  // Checks the local arrays against the slabs (sizes, types/bmap/normals consistent); agreed.
  static void check_consistent(const NodeArraysView& nodes, const FileSlabs& slabs, const WriterTeam& team,
                               const std::filesystem::path& shown);

  // /domain with attribute N and the metadata, then the five /domain arrays, and the supports when the
  // nodes have them.
  void write_domain(const NodeArraysView& nodes, const RunMetadata& metadata);
  // An int32 array of one value per node, in the node rows (/domain/partition).
  void write_node_int32(const char* name, std::span<const std::int32_t> values);
  // The string attribute `name` of /domain.
  void write_domain_attribute(const std::string& name, const MetadataValue& value);
  // /paraview with the display arrays.
  void write_display_arrays(const NodeArraysView& nodes);
  // Closes the file (collective), checking the flush.
  void close();

  // Agreed check of one step: `ok` false fails every writer with `reason`.
  void ensure(bool ok, const std::string& reason) const { team_.agree(shown_, ok ? std::string() : reason); }

 private:
  void write_supports(const NodeArraysView& nodes);
  H5Handle group(const char* name);
  H5Handle dataset(const char* name, hid_t file_type, std::initializer_list<hsize_t> dims);
  // Writes local elements [first, first + len) of `runs` into a dataset: `row` selects the coordinate
  // row of a transposed {d, N} dataset (-1: a {N} or {N, width} dataset); `width` the columns of an
  // {N, width} one (0: none).
  void write_rows(const H5Handle& set, const RowRuns& runs, int row, hsize_t width, hid_t mem_type, const void* data,
                  std::size_t first, std::size_t len, const char* what);
  void write_transposed(const char* name, std::span<const double> interleaved, int dim, const RowRuns& runs,
                        std::size_t total, NodesFingerprint::Array array);
  void write_int32(const char* name, std::span<const std::int32_t> values, NodesFingerprint::Array array);
  void write_spacing(const NodeArraysView& nodes);
  void write_attribute(hid_t owner, const std::string& name, const MetadataValue& value);
  void write_count_attribute(hid_t owner, std::size_t n);
  void add_to_fingerprint(NodesFingerprint::Array array, const void* data, std::size_t bytes) {
    if (fingerprint_ && array < NodesFingerprint::kArrays) fingerprint_->add(array, data, bytes);
  }

  H5Handle file_;
  FileSlabs slabs_;
  const WriterTeam& team_;
  std::filesystem::path shown_;
  NodesFingerprint* fingerprint_;
  std::size_t node_rounds_, normal_rounds_;  // blocks per node array / normals array, on every writer
};

// The fingerprint of the /domain arrays of an open file, read back block by block (io/fingerprint.hpp).
std::string stored_nodes_sha256(hid_t file, const std::filesystem::path& shown);

}  // namespace nodegen::io::detail
