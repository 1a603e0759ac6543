#pragma once
// Checks a mesh file before CGAL parses it: a regular file within the size limit of meshes, of a
// supported format, whose header counts fit in the file. CGAL sizes its arrays from those counts (an
// OFF header claiming 1e9 vertices would allocate gigabytes before the read fails) and from each face's
// vertex count (an OFF face or a PLY list), so those are checked here against the file's size.
#include <cstddef>
#include <string>

namespace nodegen::geometry_detail {

// Throws InputFileError with the reason (without the file's name).
void check_mesh_file(const std::string& file);

// Where an ASCII STL file (by check_mesh_file's rule) holds, right after its keyword "solid", a blank
// other than a space or a line break (a tab): CGAL reads such a file as binary triangles wherever the
// bytes where a binary header keeps its count make a small one. std::string::npos for any other file.
std::size_t stl_blank_cgal_misreads(const std::string& file);

}  // namespace nodegen::geometry_detail
