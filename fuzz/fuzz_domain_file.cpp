// libFuzzer target: the domain file loader (JSON -> shape tree, spacing, fill parameters). Bad input
// must end in an InputError; any other exception, a crash, a sanitizer report, a timeout or memory
// beyond libFuzzer's -rss_limit_mb is a finding.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "nodegen/input/domain_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Relative file names in the input (meshes, point files) resolve against a folder that holds nothing.
  static const std::filesystem::path path = std::filesystem::temp_directory_path() / "nodegen-fuzz-empty" / "domain.json";
  try {
    nodegen::parse_domain_text(std::string(reinterpret_cast<const char*>(data), size), path);
  } catch (const nodegen::InputError&) {
  }
  return 0;
}
