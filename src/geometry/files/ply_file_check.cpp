// PLY (ASCII and binary): the header as CGAL reads it, the element counts against the data's size,
// the properties CGAL reads of the types it casts them to, and one pass over the data that checks every
// list's length against the bytes left and every face index against the vertices, before CGAL would
// size a buffer or index an array by them.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "geometry/files/mesh_text.hpp"
#include "geometry/files/ply_header.hpp"

namespace nodegen::geometry_detail::mesh_check {
namespace {

// What CGAL's PLY reader takes for granted about the properties it reads: it casts each to the type
// it expects and uses the result unchecked (a vertex's "property uchar y" was a null pointer read). So
// vertices have scalar x, y, z of a floating type; the colours it reads (red, green, blue, or r, g, b,
// when all three are uchar) are uchar; halfedge elements (a CGAL extension: source and target as uint,
// u and v as float) are not read. Faces must have a list vertex_indices (or vertex_index) of int or
// uint: CGAL reads no other, and says only that it cannot read the file.
void check_ply_layout(const std::vector<PlyElement>& elements) {
  const PlyElement* vertex = nullptr;
  const PlyElement* face = nullptr;
  auto find = [](const PlyElement& e, const std::string& name) -> const PlyProperty* {
    for (const PlyProperty& p : e.properties)  // CGAL takes the first of a name
      if (p.name == name) return &p;
    return nullptr;
  };
  auto uchar = [](const PlyProperty* p) { return p && !p->list && (p->type == "uchar" || p->type == "uint8"); };
  auto type_of = [](const PlyProperty& p) { return p.list ? "a list of " + p.type : p.type; };
  for (const PlyElement& e : elements) {
    if (e.name == "halfedge") refuse("has a PLY element halfedge, which is not read (a mesh needs only vertices and faces)");
    const bool is_vertex = ply_vertices(e), is_face = ply_faces(e);
    if ((is_vertex && vertex) || (is_face && face))
      refuse("has more than one PLY element of " + std::string(is_vertex ? "vertices" : "faces"));
    if (is_vertex) vertex = &e;
    if (is_face) face = &e;
    if (!is_vertex && !is_face) continue;  // read and ignored
    // CGAL reads colours when each of the three is a uchar under one of its names, then reads red,
    // green, blue (if red is a uchar) or r, g, b as uchar, whatever their type.
    const bool colours = (uchar(find(e, "red")) || uchar(find(e, "r"))) && (uchar(find(e, "green")) || uchar(find(e, "g"))) &&
                         (uchar(find(e, "blue")) || uchar(find(e, "b")));
    static const char* const names[2][3] = {{"red", "green", "blue"}, {"r", "g", "b"}};
    if (colours)
      for (const char* name : names[uchar(find(e, "red")) ? 0 : 1])
        if (const PlyProperty* p = find(e, name); p && !uchar(p))
          refuse("has PLY " + e.name + " colour " + name + " of type " + type_of(*p) + " (the colours must all be uchar)");
    if (is_vertex) {
      for (const char* name : {"x", "y", "z"}) {
        const PlyProperty* p = find(e, name);
        if (!p) refuse("has no PLY vertex property " + std::string(name));
        if (p->list || !p->real)
          refuse("has PLY vertex property " + std::string(name) + " of type " + type_of(*p) + " (expected float or double)");
      }
    } else {
      const PlyProperty* p = find(e, "vertex_indices");
      if (!p) p = find(e, "vertex_index");
      if (!p) refuse("has PLY faces without a property vertex_indices (a list of int or uint)");
      if (!p->list || p->item_bytes != 4 || p->real)
        refuse("has PLY face property " + p->name + " of type " + type_of(*p) + " (expected a list of int or uint)");
    }
  }
}

// Every item takes at least one byte per scalar and per list length (two in ASCII, with a separator),
// and is counted as one byte when its element has no property: CGAL loops over the items of such an
// element reading nothing.
void check_ply_counts(const PlyHeader& header, bool ascii, std::size_t bytes_left) {
  double need = 0;
  for (const PlyElement& e : header.elements) {
    double per_item = 0;
    for (const PlyProperty& p : e.properties) per_item += ascii ? 2.0 : (p.list ? p.count_bytes : p.item_bytes);
    need += std::max(per_item, 1.0) * static_cast<double>(e.count);
  }
  if (need > static_cast<double>(bytes_left))
    refuse("has PLY element counts that need at least " + std::to_string(static_cast<std::uint64_t>(need)) +
           " bytes of data, but the file has " + std::to_string(bytes_left));
}

// A face's vertex indices must name vertices: CGAL 5.5 indexes its vertex array with them unchecked
// (a file whose vertices are not an element "vertex" has none).
class PlyIndexCheck {
 public:
  explicit PlyIndexCheck(const PlyHeader& header) {
    for (const PlyElement& e : header.elements)
      if (ply_vertices(e)) vertices_ = e.count;
  }
  void operator()(const PlyElement& e, const PlyProperty& p, std::uint64_t item, long long index) const {
    if (ply_faces(e) && is_ply_corner_list(p) && (index < 0 || static_cast<std::uint64_t>(index) >= vertices_))
      refuse("has PLY face " + std::to_string(item) + " with vertex index " + std::to_string(index) + ", but " +
             std::to_string(vertices_) + " vertices");
  }

 private:
  std::uint64_t vertices_ = 0;
};

[[noreturn]] void refuse_long_list(const PlyElement& e, std::uint64_t item, std::uint64_t length) {
  refuse("has PLY element " + e.name + " " + std::to_string(item) + " claiming a list of " + std::to_string(length) +
         " items, more than the rest of the file holds");
}

// ASCII data: each list's length against what is left and its indices; stops at the first place the
// data runs out or is no number (CGAL then fails on its own, having allocated no more than the file's size).
void check_ply_ascii_data(const std::string& text, const PlyHeader& header, const PlyIndexCheck& check_index) {
  Tokens tokens(text, false);
  tokens.seek(header.data);
  for (const PlyElement& e : header.elements)
    for (std::uint64_t item = 0; item < e.count; ++item)
      for (const PlyProperty& p : e.properties) {
        const std::string_view t = tokens.next();
        if (t.empty()) return;
        if (!p.list) continue;
        std::uint64_t length = 1;
        if (!count_of(t, length))
          refuse("has PLY element " + e.name + " " + std::to_string(item) + " with list length \"" + std::string(t) +
                 "\", not a count");
        if (2 * length > tokens.remaining() + 1) refuse_long_list(e, item, length);
        if (ply_faces(e) && is_ply_corner_list(p)) check_face_corners("PLY", item, length);
        for (std::uint64_t k = 0; k < length; ++k) {
          const std::string index(tokens.next().substr(0, 24));
          if (index.empty()) return;
          char* stop = nullptr;
          const long long i = std::strtoll(index.c_str(), &stop, 10);
          if (stop == index.c_str()) return;  // not an integer: CGAL fails on it
          check_index(e, p, item, i);
        }
      }
}

// A binary scalar of a floating type, when it fits before the file's end: refused when not finite.
void check_ply_binary_real(const std::string& text, std::size_t at, const PlyElement& e, const PlyProperty& p,
                           std::uint64_t item, bool big_endian) {
  if (p.list || !p.real || at + static_cast<std::size_t>(p.item_bytes) > text.size()) return;
  double v = 0;
  if (p.item_bytes == 8) {
    std::uint64_t bits = read_binary_count(text, at, 8, big_endian);
    std::memcpy(&v, &bits, 8);
  } else {
    const auto bits = static_cast<std::uint32_t>(read_binary_count(text, at, 4, big_endian));
    float f = 0;
    std::memcpy(&f, &bits, 4);
    v = f;
  }
  if (!std::isfinite(v)) refuse("has a non-finite value in PLY element " + e.name + " " + std::to_string(item));
}

// Binary data: the same walk over the bytes, with the scalars of floating types checked finite.
void check_ply_binary_data(const std::string& text, const PlyHeader& header, const PlyIndexCheck& check_index,
                           bool big_endian) {
  std::size_t at = header.data;
  for (const PlyElement& e : header.elements)
    for (std::uint64_t item = 0; item < e.count; ++item)
      for (const PlyProperty& p : e.properties) {
        check_ply_binary_real(text, at, e, p, item, big_endian);
        std::uint64_t length = 1;
        if (p.list) {
          if (at + static_cast<std::size_t>(p.count_bytes) > text.size()) return;
          length = read_binary_count(text, at, p.count_bytes, big_endian);
          at += static_cast<std::size_t>(p.count_bytes);
        }
        const double bytes = static_cast<double>(length) * p.item_bytes;
        if (bytes > static_cast<double>(text.size() - at)) {
          if (!p.list) return;
          refuse_long_list(e, item, length);
        }
        if (p.list && ply_faces(e) && is_ply_corner_list(p)) check_face_corners("PLY", item, length);
        if (p.list && ply_faces(e))
          for (std::uint64_t k = 0; k < length; ++k) {
            const int n = p.item_bytes;
            const std::uint64_t raw = read_binary_count(text, at + k * static_cast<std::uint64_t>(n), n, big_endian);
            long long index = static_cast<long long>(raw);
            if (p.item_signed && n < 8 && (raw >> (8 * n - 1)) != 0) index -= 1ll << (8 * n);  // sign-extend
            check_index(e, p, item, index);
          }
        at += static_cast<std::size_t>(bytes);
      }
  // Bytes past the declared elements: the header's counts are wrong, and CGAL read only as many faces
  // as they claim (the faces left out became holes the repair closed). A writer's closing line end or
  // padding of blanks is not data.
  if (text.find_first_not_of(" \t\r\n", at) != std::string::npos)
    refuse("holds " + std::to_string(text.size() - at) + " bytes past the elements its header declares: its counts are wrong");
}

}  // namespace

void check_ply(const std::string& text) {
  PlyHeader header;
  if (!read_ply_header(text, header)) return;
  const bool ascii = header.format == "ascii";
  check_no_nul(std::string_view(text).substr(0, ascii ? text.size() : header.data));  // a binary body may hold NULs
  if (ascii) check_finite_text(text.substr(header.data));
  const bool big_endian = header.format == "binary_big_endian";
  if (!ascii && !big_endian && header.format != "binary_little_endian") return;  // CGAL refuses it
  check_ply_counts(header, ascii, text.size() - header.data);
  check_ply_layout(header.elements);
  const PlyIndexCheck check_index(header);
  if (ascii) check_ply_ascii_data(text, header, check_index);
  else check_ply_binary_data(text, header, check_index, big_endian);
}

}  // namespace nodegen::geometry_detail::mesh_check
