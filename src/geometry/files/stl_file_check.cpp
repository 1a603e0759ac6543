// STL (binary and ASCII): a binary file's triangle count against its size and its coordinates finite;
// an ASCII file's keyword, which decides how CGAL reads it.
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "geometry/files/mesh_file_check.hpp"
#include "geometry/files/mesh_text.hpp"

namespace nodegen::geometry_detail {
namespace mesh_check {
namespace {

// A binary STL's triangle count, after its 80-byte header.
std::uint32_t stl_count(std::string_view text) {
  std::uint32_t count = 0;
  if (text.size() >= 84) std::memcpy(&count, text.data() + 80, 4);  // little-endian on every platform nodegen builds on
  return count;
}

}  // namespace

// Where the keyword "solid" of an ASCII STL file starts (after leading blanks), given the file's first
// bytes (at least 84, or all of it) and its size; std::string_view::npos for a binary STL. ASCII STL
// starts with "solid"; a file that starts so but whose size is exactly the binary layout's for its
// count is binary (some binary writers put "solid" in the header too).
std::size_t ascii_stl_keyword(std::string_view head, std::uintmax_t file_size) {
  std::size_t at = 0;
  while (at < head.size() && std::isspace(static_cast<unsigned char>(head[at]))) ++at;
  if (head.compare(at, 5, "solid") != 0) return std::string_view::npos;
  if (file_size >= 84 && file_size == 84 + 50ull * stl_count(head)) return std::string_view::npos;
  return at;
}

void check_stl(const std::string& text) {
  // Binary STL: an 80-byte header, a 32-bit triangle count, 50 bytes per triangle. ASCII STL
  // (ascii_stl_keyword) has no counts to check: its text is checked by check_finite_text.
  if (ascii_stl_keyword(text, text.size()) != std::string_view::npos || text.size() < 84) return;  // CGAL refuses a short one without allocating
  const std::uint32_t count = stl_count(text);
  const std::uint64_t expected = 84 + 50ull * count;
  if (expected != text.size())
    refuse("has a binary STL header claiming " + std::to_string(count) + " triangles (" + std::to_string(expected) +
           " bytes), but the file has " + std::to_string(text.size()) + " bytes");
  for (std::uint64_t t = 0; t < count; ++t)
    for (int k = 3; k < 12; ++k) {  // the three vertices after the facet normal
      float v = 0;
      std::memcpy(&v, text.data() + 84 + 50 * t + 4 * static_cast<std::uint64_t>(k), 4);
      if (!std::isfinite(v)) refuse("has a non-finite vertex coordinate in triangle " + std::to_string(t));
    }
}

}  // namespace mesh_check

std::size_t stl_blank_cgal_misreads(const std::string& file) {
  if (mesh_check::lower(std::filesystem::path(file).extension().string()) != ".stl") return std::string::npos;
  std::string head(4096, '\0');
  std::ifstream in(file, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  const std::size_t keyword = ec ? std::string_view::npos : mesh_check::ascii_stl_keyword(head, size);
  if (keyword == std::string_view::npos || keyword + 5 >= head.size()) return std::string::npos;
  const auto after = static_cast<unsigned char>(head[keyword + 5]);
  return std::isspace(after) && after != ' ' && after != '\n' && after != '\r' ? keyword + 5 : std::string::npos;
}

}  // namespace nodegen::geometry_detail
