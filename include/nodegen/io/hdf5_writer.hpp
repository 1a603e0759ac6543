#pragma once
// Writes one discretization as HDF5 in Medusa's layout (see layout.hpp). Not atomic by itself:
// output.hpp wraps it in a temporary file that is renamed into place.
#include <filesystem>

#include "nodegen/io/node_arrays.hpp"

namespace nodegen::io {

// Creates (truncates) `file` and writes `nodes` and `metadata` into it. Errors are InputError
// "<shown_name>: output: <reason>" (shown_name is the final path when `file` is a temporary).
void write_hdf5(const std::filesystem::path& file, const NodeArraysView& nodes, const RunMetadata& metadata,
                const std::filesystem::path& shown_name);

}  // namespace nodegen::io
