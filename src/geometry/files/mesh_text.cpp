// The helpers the mesh format checks share (mesh_text.hpp).
#include "geometry/files/mesh_text.hpp"

#include <cmath>
#include <cstdlib>
#include <sstream>

#include "nodegen/geometry/input_file.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen::geometry_detail::mesh_check {

void refuse(const std::string& reason) { throw InputFileError(reason); }

void check_face_corners(const char* format, std::uint64_t face, std::uint64_t corners) {
  if (corners > kMaxFaceCorners)
    refuse(std::string("has ") + format + " face " + std::to_string(face) + " with " + std::to_string(corners) +
           " corners, above the limit of " + std::to_string(kMaxFaceCorners) + " (split it into triangles)");
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool count_of(std::string_view t, std::uint64_t& out) {
  if (t.empty() || t.size() > 18) return false;
  out = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return true;
}

bool leading_count(std::string_view t, std::uint64_t& out) {
  std::size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  return digits > 0 && count_of(t.substr(0, digits), out);
}

std::string num_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

void check_no_nul(std::string_view text) {
  const std::size_t at = text.find('\0');
  if (at != std::string_view::npos)
    refuse("has a NUL byte at offset " + std::to_string(at) + " (a text mesh file holds none)");
}

void check_finite_text(const std::string& text) {
  std::size_t line = 1, line_start = 0;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    const std::string token = text.substr(i, std::min<std::size_t>(end - i, 64));
    char* stop = nullptr;
    const double v = std::strtod(token.c_str(), &stop);
    if (end - i <= 64 && stop == token.c_str() + token.size() && !std::isfinite(v)) {
      // Some exporters write an ASCII STL's degenerate facets with the normal "nan nan nan".
      const std::size_t first = text.find_first_not_of(" \t\r", line_start);
      if (text.compare(first, 6, "facet ") == 0)
        refuse("has a non-finite facet normal \"" + shown(token) + "\" on line " + std::to_string(line) +
               ", which the STL reader takes no more than a coordinate: write it as 0 0 0");
      refuse("has a non-finite coordinate \"" + shown(token) + "\" on line " + std::to_string(line));
    }
    i = end;
  }
}

}  // namespace nodegen::geometry_detail::mesh_check
