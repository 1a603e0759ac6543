// libFuzzer target: the HDF5 reader behind `nodegen stats` (io::read_hdf5) on a temporary file holding
// the input. Bad files must end in an InputError. It runs libhdf5 in this process, so it also finds
// crashes inside libhdf5 1.10 on corrupt metadata (a local heap at the undefined address), which
// nodegen cannot check for through the API: `nodegen stats` reads in a child process and reports
// them as the file's error (src/cli/isolated_run.hpp).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/io/hdf5_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("nodegen-fuzz-" + std::to_string(::getpid()) + ".h5");
  std::ofstream(file, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    nodegen::io::read_hdf5(file);
  } catch (const nodegen::InputError&) {
  }
  return 0;
}
