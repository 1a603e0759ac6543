// Mesh file checks before CGAL reads a file (see mesh_file_check.hpp): the format by the file's
// extension, then that format's checker (stl_, off_, obj_, ply_file_check.cpp) and the checks every
// text format passes (mesh_text.hpp). Only what sizes an allocation or indexes an array is checked; a
// file these checks cannot make sense of is left to CGAL, which refuses it before it allocates by any
// count.
#include "geometry/files/mesh_file_check.hpp"

#include <filesystem>
#include <string_view>

#include "geometry/files/mesh_text.hpp"
#include "nodegen/geometry/input_file.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen::geometry_detail {

using namespace mesh_check;

void check_mesh_file(const std::string& file) {
  const std::string ext = lower(std::filesystem::path(file).extension().string());
  if (ext != ".stl" && ext != ".obj" && ext != ".off" && ext != ".ply")
    refuse("is of an unsupported mesh format \"" + shown(ext) + "\" (supported: .stl ascii/binary, .obj, .off, .ply)");
  const std::string text = read_input_file(file, InputFileLimits::kMeshFileBytes, "mesh files");
  // A UTF-8 byte-order mark, which some Windows editors write: the readers take it for data (it hid an
  // OBJ's first vertex, and made an ASCII STL's "solid" a binary header claiming a billion triangles).
  const std::string_view mark = "\xEF\xBB\xBF";
  if (text.starts_with(mark) && (ext != ".stl" || text.compare(mark.size(), 5, "solid") == 0))
    refuse("starts with a UTF-8 byte-order mark (bytes EF BB BF), which mesh readers take for data: save it without one");
  // The text formats' bytes and numbers (a PLY's are checked in check_ply, a binary STL's in check_stl).
  const bool text_format = ext == ".obj" || ext == ".off" || (ext == ".stl" && ascii_stl_keyword(text, text.size()) != std::string_view::npos);
  if (text_format) check_no_nul(text);
  if (ext == ".stl") check_stl(text);
  else if (ext == ".off") check_off(text);
  else if (ext == ".ply") check_ply(text);
  else check_obj(text);
  if (text_format) check_finite_text(text);
}

}  // namespace nodegen::geometry_detail
