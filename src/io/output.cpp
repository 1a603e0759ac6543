#include "nodegen/io/output.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

#include "nodegen/io/hdf5_writer.hpp"
#include "nodegen/io/output_commit.hpp"
#include "nodegen/io/xdmf_writer.hpp"
#include "nodegen/io/output_error.hpp"

namespace nodegen::io {

std::string utc_timestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// The sidecar goes beside the file the HDF5 path resolves to (PendingFile follows a symbolic link),
// since it names that file relative to its own folder.
OutputFiles::OutputFiles(const std::filesystem::path& h5_path) : h5_(h5_path), xdmf_(xdmf_path_for(h5_.final_path())) {
  if (xdmf_.final_path() == h5_.final_path())
    detail::throw_io_error(h5_path, "output", "the HDF5 file must not end in .xdmf (the sidecar takes that name)");
  // The sidecar refers to the data as "NAME.h5:/domain/pos"; ParaView's XDMF readers split that at the
  // first colon, so a name with one would open as an empty or broken dataset.
  if (h5_.final_path().filename().string().find(':') != std::string::npos)
    detail::throw_io_error(h5_path, "output", "the file name must not contain ':' (the XDMF sidecar refers to "
                                              "the data as NAME:/dataset, and ParaView splits at the colon)");
}

std::string OutputFiles::write(const NodeArraysView& nodes, const RunMetadata& metadata) {
  std::string fingerprint = write_hdf5(h5_.temp_path(), nodes, metadata, h5_.final_path());
  write_sidecar(nodes.node_count());
  return fingerprint;
}

void OutputFiles::write_sidecar(std::size_t node_count) {
  std::ofstream out(xdmf_.temp_path(), std::ios::binary | std::ios::trunc);
  out << xdmf_document(h5_.final_path().filename().string(), node_count);
  out.close();
  if (!out) detail::throw_io_error(xdmf_.final_path(), "output", std::string("cannot write: ") + std::strerror(errno));
}

void OutputFiles::commit(const std::vector<PendingFile*>& also, CommitWatch* watch) {
  std::vector<PendingFile*> describing{&xdmf_};
  describing.insert(describing.end(), also.begin(), also.end());
  commit_as_one(h5_, describing, watch);
}

std::string write_output(const std::filesystem::path& h5_path, const NodeArraysView& nodes, const RunMetadata& metadata) {
  OutputFiles files(h5_path);
  std::string fingerprint = files.write(nodes, metadata);
  files.commit();
  return fingerprint;
}

}  // namespace nodegen::io
