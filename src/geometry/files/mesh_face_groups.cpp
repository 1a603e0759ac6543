// The face groups of a mesh file (mesh_face_groups.hpp): the format by the file's extension, then its
// reader (obj_face_groups.cpp, ply_face_groups.cpp).
#include "geometry/files/mesh_face_groups.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "geometry/files/mesh_text.hpp"
#include "nodegen/geometry/input_file.hpp"

namespace nodegen::geometry_detail {

bool MeshFaceGroups::any_ungrouped() const {
  return std::find(face_group.begin(), face_group.end(), -1) != face_group.end();
}

void MeshFaceGroups::add_face(const std::string& name, const std::string& file) {
  face_start.push_back(corners.size());
  if (name.empty()) {
    face_group.push_back(-1);
    return;
  }
  const auto [it, fresh] = index_.emplace(name, static_cast<int>(names.size()));
  if (fresh) {
    if (names.size() >= kMaxMeshGroups)
      throw std::runtime_error("mesh " + file + " has more than " + std::to_string(kMaxMeshGroups) +
                               " face groups, the limit (each is a boundary part)");
    names.push_back(name);
  }
  face_group.push_back(it->second);
}

MeshFaceGroups read_mesh_face_groups(const std::string& file) {
  const std::string ext = mesh_check::lower(std::filesystem::path(file).extension().string());
  MeshFaceGroups groups;
  if (ext == ".obj" ? !mesh_groups::obj_may_have_groups(file)
                    : ext != ".ply" || !mesh_groups::ply_may_have_labels(file))
    return groups;
  std::string text;
  try {
    text = read_input_file(file, InputFileLimits::kMeshFileBytes, "mesh files");
  } catch (const InputFileError& e) {
    throw std::runtime_error("mesh " + file + ": " + e.what());
  }
  if (ext == ".obj") mesh_groups::read_obj(text, file, groups);
  else mesh_groups::read_ply(text, file, groups);
  if (groups.names.empty()) return {};  // faces without any group: the mesh is one part, as STL's
  return groups;
}

}  // namespace nodegen::geometry_detail
