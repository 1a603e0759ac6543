// libFuzzer target: the mesh loader as the domain file loader runs it: the bytes go to a temporary
// file, which is checked (mesh_file_check) and read (CGAL, orientation and volume checks, voxel cache).
// Failures must be the exceptions the loader turns into InputError. Two builds of this file:
//  - fuzz_mesh_{stl,off,ply,obj}: one format each (the extension NODEGEN_FUZZ_MESH_EXT), the strict
//    path ("repair": "none"), inputs up to fuzz.sh's -max_len;
//  - fuzz_mesh_repair (NODEGEN_FUZZ_MESH_REPAIR): the repairing path ("repair": "auto", CGAL's Polygon
//    Mesh Processing) for all four formats, the first byte choosing the format; inputs are capped at
//    kRepairMaxBytes so that each run stays fast (a mesh that size holds a few hundred faces at most).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nodegen/geometry/input_file.hpp>

#include "geometry/files/mesh_file_check.hpp"
#include "geometry/shapes/shape.hpp"

namespace {

#ifdef NODEGEN_FUZZ_MESH_REPAIR
constexpr bool kRepair = true;
constexpr std::size_t kRepairMaxBytes = 4096;
#else
constexpr bool kRepair = false;
#endif

void load(const std::string& file) {
  try {
    nodegen::geometry_detail::check_mesh_file(file);
  } catch (const nodegen::InputFileError&) {
    return;
  }
  try {
    nodegen::geometry_detail::MeshOptions options;
    options.repair = kRepair;
    std::vector<std::string> notes;
    nodegen::geometry_detail::MeshCache meshes;
    nodegen::geometry_detail::make_mesh(file, "fuzz", options, notes, meshes);
  } catch (const std::exception&) {  // the loader reports any of them as the mesh's InputError
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string stem = (std::filesystem::temp_directory_path() / ("nodegen-fuzz-" + std::to_string(::getpid()))).string();
#ifdef NODEGEN_FUZZ_MESH_REPAIR
  if (size == 0 || size > kRepairMaxBytes) return 0;
  static const char* const extensions[] = {".stl", ".off", ".ply", ".obj"};
  const std::string file = stem + extensions[data[0] % 4];
  ++data, --size;
#else
  const std::string file = stem + NODEGEN_FUZZ_MESH_EXT;
#endif
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  load(file);
  return 0;
}
