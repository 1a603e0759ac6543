#pragma once
// The named groups of a mesh file's faces, which become the mesh's boundary parts: OBJ groups and
// objects (a face belongs to the group of the latest `g NAME` line since the latest `o` line, else to
// the object of that `o NAME` line; faces before any have none) and PLY face labels (the first integer
// scalar face property named label, part, region, group, marker or patch; its value as text names the
// group). STL and OFF have none. The faces are kept as the file has them, before any repair changes
// them: the loaded surface labels its own triangles by the nearest of these faces
// (mesh/face_group_labels.hpp).
//
// Read from a file that check_mesh_file has passed and CGAL has read, by a reader of its own that takes
// only the lines (OBJ) or the elements (PLY) it needs; bounded by the file's size. A file without any
// group costs one pass over its lines (OBJ) or a read of its header (PLY).
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nodegen/spatial/point.hpp>
#include "nodegen/geometry/input_error.hpp"

namespace nodegen::geometry_detail {

// A group's name is at most this long (it is repeated in its part's name), and a mesh has at most this
// many groups (each is a part, listed in the output and the report).
inline constexpr std::size_t kMaxGroupNameLength = 256;
inline constexpr std::size_t kMaxMeshGroups = 4096;

// Why a part name a mesh or CAD file gives cannot name a part ("" when it can): longer than
// kMaxGroupNameLength, or holding a control character (a carriage return inside an OBJ group's name
// reached the output's part list, and a terminal printing it).
inline std::string part_name_problem(const std::string& name) {
  if (name.size() > kMaxGroupNameLength)
    return "is " + std::to_string(name.size()) + " characters long, above the limit of " + std::to_string(kMaxGroupNameLength);
  for (const char c : name)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return "holds the control character " + hex_byte(static_cast<unsigned char>(c));
  return "";
}

struct MeshFaceGroups {
  std::vector<std::string> names;  // in the order their first faces come in the file; empty: no groups
  std::vector<Vec<3>> points;      // the file's vertices
  std::vector<std::uint32_t> corners;   // every face's corners (indices into points), face after face
  std::vector<std::size_t> face_start = {0};  // face f's corners: [face_start[f], face_start[f + 1])
  std::vector<int> face_group;          // per face: index into names, -1 for a face of no group

  std::size_t faces() const { return face_group.size(); }
  bool any_ungrouped() const;
  // Appends a face of the group named `name` ("" for none) whose corners were appended to `corners`
  // since the last face. Throws std::runtime_error ("mesh FILE: ...") past kMaxMeshGroups.
  void add_face(const std::string& name, const std::string& file);

 private:
  std::map<std::string, int> index_;  // names' indices
};

// Throws std::runtime_error ("mesh FILE: ...") for a group name or count beyond the limits, or data the
// reader cannot follow.
MeshFaceGroups read_mesh_face_groups(const std::string& file);

namespace mesh_groups {
// Whether the file may hold groups, read only as far as that takes (an OBJ's lines up to the first
// `g` or `o`, a PLY's header): a file without any is not read in full again.
bool obj_may_have_groups(const std::string& file);
bool ply_may_have_labels(const std::string& file);
// The readers of each format, given the file's whole text; `file` names it in messages.
void read_obj(const std::string& text, const std::string& file, MeshFaceGroups& out);
void read_ply(const std::string& text, const std::string& file, MeshFaceGroups& out);
}  // namespace mesh_groups

}  // namespace nodegen::geometry_detail
