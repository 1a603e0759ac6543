// libFuzzer target: one mesh reader (the format is the file name extension NODEGEN_FUZZ_MESH_EXT, a
// build definition): the bytes go to a temporary file, which is checked (mesh_file_check) and read
// (CGAL, orientation and volume checks, voxel cache) exactly as the domain loader does. Failures must be
// the exceptions the loader turns into InputError.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nodegen/geometry/input_file.hpp>

#include "../src/geometry/mesh_file_check.hpp"
#include "../src/geometry/shape.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string file = (std::filesystem::temp_directory_path() /
                                   ("nodegen-fuzz-" + std::to_string(::getpid()) + NODEGEN_FUZZ_MESH_EXT)).string();
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    nodegen::geometry_detail::check_mesh_file(file);
  } catch (const nodegen::InputFileError&) {
    return 0;
  }
  try {
    // The reader and the strict checks ("repair": "none"); the repair path is not fuzzed yet.
    nodegen::geometry_detail::MeshOptions options;
    options.repair = false;
    std::vector<std::string> notes;
    nodegen::geometry_detail::make_mesh(file, "fuzz", options, notes);
  } catch (const std::exception&) {  // the loader reports any of them as the mesh's InputError
  }
  return 0;
}
