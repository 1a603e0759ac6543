// The PLY header as CGAL reads it (ply_header.hpp).
#include "geometry/files/ply_header.hpp"

#include <sstream>

#include "geometry/files/mesh_text.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen::geometry_detail::mesh_check {

int ply_type_bytes(std::string_view type) {
  static const std::pair<const char*, int> types[] = {
      {"char", 1},  {"uchar", 1},  {"int8", 1},   {"uint8", 1},   {"short", 2},  {"ushort", 2},
      {"int16", 2}, {"uint16", 2}, {"int", 4},    {"uint", 4},    {"int32", 4},  {"uint32", 4},
      {"float", 4}, {"float32", 4}, {"double", 8}, {"float64", 8}};
  for (const auto& [name, bytes] : types)
    if (type == name) return bytes;
  return 0;
}

bool is_real(std::string_view type) { return type.rfind("float", 0) == 0 || type == "double"; }

std::uint64_t read_binary_count(const std::string& text, std::size_t at, int bytes, bool big_endian) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    const auto byte = static_cast<unsigned char>(text[at + static_cast<std::size_t>(big_endian ? i : bytes - 1 - i)]);
    v = (v << 8) | byte;
  }
  return v;
}

namespace {

// One "property" line of the header, for the last element.
PlyProperty read_ply_property(std::istringstream& words, const std::vector<PlyElement>& elements) {
  // CGAL 5.5 adds a property to its last element without checking there is one (undefined behaviour).
  if (elements.empty()) refuse("has a PLY property before any element");
  std::string type;
  words >> type;
  PlyProperty p;
  if (type == "list") {
    std::string count_type;
    words >> count_type >> p.type >> p.name;
    p.list = true;
    p.count_bytes = ply_type_bytes(count_type);
    // CGAL reads a list only with an integer length; with another it drops the property unread and
    // misreads the rest of the data.
    if (p.count_bytes == 0 || is_real(count_type))
      refuse("has PLY list property " + p.name + " of element " + elements.back().name + " with length type \"" +
             count_type + "\" (expected an integer type)");
  } else {
    p.type = type;
    words >> p.name;
  }
  p.item_bytes = ply_type_bytes(p.type);
  p.real = is_real(p.type);
  p.item_signed = p.type == "char" || p.type == "short" || p.type.rfind("int", 0) == 0;
  // A type CGAL does not know is dropped unread, and the data after it misread.
  if (p.item_bytes == 0)
    refuse("has PLY property " + p.name + " of element " + elements.back().name + " of unknown type \"" + shown(p.type) + "\"");
  return p;
}

}  // namespace

bool read_ply_header(const std::string& text, PlyHeader& header) {
  for (std::size_t at = 0, number = 1; at < text.size(); ++number) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    std::istringstream words(text.substr(at, std::min<std::size_t>(eol - at, 4096)));
    at = eol + 1;
    std::string word;
    words >> word;
    if (number == 1) {
      if (word != "ply") return false;
      continue;
    }
    if (number == 2) {
      words >> header.format;
      continue;
    }
    if (word == "end_header") {
      header.data = std::min(at, text.size());
      break;
    }
    if (word == "element") {
      PlyElement e;
      std::string count;
      words >> e.name >> count;
      if (!count_of(count, e.count)) refuse("has PLY element " + e.name + " with count \"" + shown(count) + "\", not a count");
      header.elements.push_back(e);
    } else if (word == "property") {
      PlyProperty property = read_ply_property(words, header.elements);  // refuses a property before any element
      header.elements.back().properties.push_back(std::move(property));
    }
  }
  // CGAL does not refuse a header that never ends: it took the counts above and allocated by them (an
  // element of 1.1e11 vertices and "end_heade&").
  if (header.data == std::string::npos) refuse("has a PLY header with no end_header line");
  return true;
}


}  // namespace nodegen::geometry_detail::mesh_check
