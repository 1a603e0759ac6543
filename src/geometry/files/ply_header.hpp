#pragma once
// A PLY file's header as CGAL reads it (its elements, their counts and properties, where the data
// starts), and the property types: shared by the PLY check (ply_file_check.cpp) and the reader of face
// labels (mesh_face_groups.hpp).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nodegen::geometry_detail::mesh_check {

struct PlyProperty {
  std::string name;
  std::string type;  // scalar: its type; list: its items' type (as written, e.g. "float32")
  bool list = false;
  int count_bytes = 0;  // list: the size of its length's type
  int item_bytes = 0;   // scalar: its size; list: the size of an item
  bool real = false;    // scalar float or double
  bool item_signed = false;  // its items (a list's) or it (a scalar) are of a signed integer type
};
struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;
};

struct PlyHeader {
  std::string format;  // ascii, binary_little_endian, binary_big_endian (anything else: CGAL refuses it)
  std::vector<PlyElement> elements;
  std::size_t data = std::string::npos;  // the data's first byte, after end_header
};

// The size in bytes of a PLY type ("float32", "uchar", ...); 0 for a type PLY does not define.
int ply_type_bytes(std::string_view type);
bool is_real(std::string_view type);  // float, float32, float64, double

// The element names CGAL's two PLY readers (polygon soup, Surface_mesh) take for vertices and faces.
inline bool ply_vertices(const PlyElement& e) { return e.name == "vertex" || e.name == "vertices"; }
inline bool ply_faces(const PlyElement& e) { return e.name == "face" || e.name == "faces"; }
// A face's corners (other lists on a face, texture coordinates, are not corners).
inline bool is_ply_corner_list(const PlyProperty& p) { return p.name == "vertex_indices" || p.name == "vertex_index"; }

// The unsigned integer of `bytes` bytes at `at` (which the caller has checked lie in the text).
std::uint64_t read_binary_count(const std::string& text, std::size_t at, int bytes, bool big_endian);

// The header as CGAL reads it: "ply", a format line, then one keyword per line up to end_header. False
// when the file does not start with "ply" (CGAL refuses it). Throws InputFileError (refuse) for a
// header CGAL would misread.
bool read_ply_header(const std::string& text, PlyHeader& header);

}  // namespace nodegen::geometry_detail::mesh_check
