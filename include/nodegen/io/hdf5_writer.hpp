#pragma once
// Writes one discretization as HDF5 in Medusa's layout (see layout.hpp). Not atomic by itself:
// output.hpp wraps it in a temporary file that is renamed into place.
#include <filesystem>
#include <string>

#include "nodegen/io/node_arrays.hpp"

namespace nodegen::io {

// Creates (truncates) `file` and writes `nodes` and `metadata` into it. Errors are InputError
// "<shown_name>: output: <reason>" (shown_name is the final path when `file` is a temporary).
std::string write_hdf5(const std::filesystem::path& file, const NodeArraysView& nodes, const RunMetadata& metadata,
                const std::filesystem::path& shown_name);

// For a program's main(), before any other HDF5 call and before MPI_Init: tells the HDF5 library not
// to shut itself down at exit, and starts it. When a write fails for want of space (a full disk, a
// file-size limit), the file's closing flush fails too and HDF5 keeps the file half-closed in its
// tables; its shutdown then crashed on it (SIGSEGV after the error line, HDF5 1.10). The shutdown runs
// from the exit handler, and, when the library starts after MPI_Init, also from MPI_Finalize (a hook
// on MPI_COMM_SELF that H5dont_atexit does not remove): started here, before MPI, it sets no hook.
// Every file nodegen writes is closed explicitly and checked (a failed close fails the write), so the
// shutdown has nothing left to do but free memory.
void skip_hdf5_shutdown_at_exit();

}  // namespace nodegen::io
