#pragma once
// The XDMF sidecar FILE.xdmf that lets ParaView open FILE.h5 with its stock readers ("XDMF Reader",
// "Xdmf3ReaderS", "Xdmf3ReaderT" all verified with pvbatch on ParaView 5.11): one Polyvertex grid of
// N points with point attributes `type` (int), `h` (float64) and `normal` (3-vector, zero inside).
#include <cstddef>
#include <filesystem>
#include <string>

namespace nodegen::io {

// FILE.h5 -> FILE.xdmf (same directory and stem).
std::filesystem::path xdmf_path_for(const std::filesystem::path& h5_path);

// Why the document cannot name an HDF5 file of this name, or "" when it can: XML text is UTF-8 without
// control characters (not even as character references), so a name holding an invalid UTF-8 sequence,
// ESC or another control byte would make the sidecar a document no reader parses.
std::string xdmf_unnameable_reason(const std::string& h5_file_name);

// The XDMF document for a file written by write_hdf5. `h5_file_name` is how the document names the
// HDF5 file: the bare file name, so the pair can be moved together to another directory.
std::string xdmf_document(const std::string& h5_file_name, std::size_t node_count);

}  // namespace nodegen::io
