#include "nodegen/io/hdf5_writer.hpp"

#include <hdf5.h>

#include <string>

#include "nodegen/io/hdf5_handle.hpp"
#include "nodegen/io/file_slabs.hpp"
#include "nodegen/io/fingerprint.hpp"
#include "nodegen/io/layout.hpp"
#include "nodegen/io/node_writer.hpp"
#include "nodegen/io/output_error.hpp"

namespace nodegen::io {

void skip_hdf5_shutdown_at_exit() {
  H5dont_atexit();
  H5open();
}

std::string write_hdf5(const std::filesystem::path& file, const NodeArraysView& nodes, const RunMetadata& metadata,
                       const std::filesystem::path& shown_name) {
  const detail::WriterTeam alone;
  const FileSlabs slabs = FileSlabs::whole(nodes.node_count(), nodes.boundary_count());
  detail::NodeWriter::check_consistent(nodes, slabs, alone, shown_name);
  detail::H5QuietErrors quiet;
  detail::H5Handle handle(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!handle) detail::throw_io_error(shown_name, "output", "cannot create an HDF5 file there");
  NodesFingerprint fingerprint;
  detail::NodeWriter w(std::move(handle), slabs, alone, shown_name, &fingerprint);
  w.write_domain(nodes, metadata);
  const std::string hex = fingerprint.finish();
  w.write_domain_attribute(layout::fingerprint_attribute, hex);
  w.write_display_arrays(nodes);
  w.close();
  return hex;
}

}  // namespace nodegen::io
