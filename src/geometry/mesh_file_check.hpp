#pragma once
// Checks a mesh file before CGAL parses it: a regular file within the size limit of meshes, of a
// supported format, whose header counts fit in the file. CGAL sizes its arrays from those counts (an
// OFF header claiming 1e9 vertices would allocate gigabytes before the read fails) and from each face's
// vertex count (an OFF face or a PLY list), so those are checked here against the file's size.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace nodegen::geometry_detail {

// Throws InputFileError with the reason (without the file's name).
void check_mesh_file(const std::string& file);

// Where the keyword "solid" of an ASCII STL file starts (after leading blanks), given the file's first
// bytes (at least 84, or all of it) and its size; std::string_view::npos for a binary STL. ASCII STL
// starts with "solid"; a file that starts so but whose size is exactly the binary layout's for its
// count is binary (some binary writers put "solid" in the header too).
std::size_t ascii_stl_keyword(std::string_view head, std::uintmax_t file_size);

}  // namespace nodegen::geometry_detail
