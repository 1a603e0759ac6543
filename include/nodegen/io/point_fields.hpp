#pragma once
// Values at points as a small HDF5 file, in the layout a spacing's samples read (sample_file.hpp):
// /positions {N, d} and one dataset {N} per field ("/error", "/h", ...). `nodegen solve --error-out`
// writes one; a script adds "/h_new" to it and the next run's spacing reads it.
#include <filesystem>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace nodegen::io {

// Written to a temporary beside `file` and renamed into place when complete. `positions`: N x dim
// interleaved; each field N values. Throws InputError "<file>: output: <reason>" (unwritable, full).
void write_point_fields(const std::filesystem::path& file, int dim, std::span<const double> positions,
                        const std::vector<std::pair<std::string, std::span<const double>>>& fields);

}  // namespace nodegen::io
