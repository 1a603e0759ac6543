// PLY face labels (mesh_face_groups.hpp): the header, then one walk over the data (ASCII or binary)
// that keeps the vertices' x, y, z and the faces' corners and label, and steps over everything else.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "geometry/files/mesh_face_groups.hpp"
#include "geometry/files/mesh_text.hpp"
#include "geometry/files/ply_header.hpp"

namespace nodegen::geometry_detail::mesh_groups {
namespace {

using namespace mesh_check;

// What the walk keeps of an element: the property indices of x, y, z (vertices), of the corner list and
// of the label (faces); -1 where there is none.
struct Wanted {
  int coordinate[3] = {-1, -1, -1};
  int corners = -1;
  int label = -1;
};

// As CGAL's reader takes them: the first property of a name; the corners vertex_indices, else vertex_index.
Wanted wanted_of(const PlyElement& e) {
  Wanted w;
  auto first = [&](const char* name) {
    for (std::size_t k = 0; k < e.properties.size(); ++k)
      if (e.properties[k].name == name) return static_cast<int>(k);
    return -1;
  };
  if (ply_vertices(e))
    for (int axis = 0; axis < 3; ++axis) w.coordinate[axis] = first(axis == 0 ? "x" : axis == 1 ? "y" : "z");
  if (ply_faces(e)) {
    w.corners = first("vertex_indices") >= 0 ? first("vertex_indices") : first("vertex_index");
    for (std::size_t k = 0; k < e.properties.size() && w.label < 0; ++k) {
      const PlyProperty& p = e.properties[k];
      if (p.list || p.real) continue;
      for (const char* name : {"label", "part", "region", "group", "marker", "patch"})
        if (p.name == name) w.label = static_cast<int>(k);
    }
  }
  return w;
}

// One PLY value at a time, from the ASCII or the binary data.
class PlyValues {
 public:
  PlyValues(const std::string& text, const PlyHeader& header, const std::string& file)
      : text_(text), tokens_(text, false), ascii_(header.format == "ascii"),
        big_endian_(header.format == "binary_big_endian"), file_(file), at_(header.data) {
    tokens_.seek(header.data);
  }
  // A value of `type` (its size `bytes`, `real`, `is_signed` as PlyProperty says) as a double (an
  // integer of up to 2^53 exactly).
  double next(int bytes, bool real, bool is_signed) {
    if (ascii_) {
      const std::string token(tokens_.next().substr(0, 64));
      char* stop = nullptr;
      const double v = std::strtod(token.c_str(), &stop);
      if (token.empty() || stop != token.c_str() + token.size() || !std::isfinite(v)) fail();
      return v;
    }
    if (at_ + static_cast<std::size_t>(bytes) > text_.size()) fail();
    const std::uint64_t raw = read_binary_count(text_, at_, bytes, big_endian_);
    at_ += static_cast<std::size_t>(bytes);
    if (real && bytes == 8) {
      double v = 0;
      std::memcpy(&v, &raw, 8);
      return v;
    }
    if (real) {
      const auto bits = static_cast<std::uint32_t>(raw);
      float f = 0;
      std::memcpy(&f, &bits, 4);
      return f;
    }
    if (is_signed && bytes < 8 && (raw >> (8 * bytes - 1)) != 0) return static_cast<double>(raw) - std::ldexp(1.0, 8 * bytes);
    return static_cast<double>(raw);
  }
  // Steps over `count` values of `bytes` bytes each.
  void skip(std::uint64_t count, int bytes) {
    if (ascii_) {
      for (std::uint64_t k = 0; k < count; ++k)
        if (tokens_.next().empty()) fail();
      return;
    }
    if (static_cast<double>(count) * bytes > static_cast<double>(text_.size() - at_)) fail();
    at_ += static_cast<std::size_t>(count) * static_cast<std::size_t>(bytes);
  }
  [[noreturn]] void fail() const {
    throw std::runtime_error("mesh " + file_ + ": cannot read the PLY data for its face labels (it ends early or holds "
                             "a value that is not a number)");
  }

 private:
  const std::string& text_;
  Tokens tokens_;
  bool ascii_, big_endian_;
  const std::string& file_;
  std::size_t at_;
};

// An integer value as text: "3", "-1".
std::string integer_text(double v) { return std::to_string(static_cast<long long>(v)); }

}  // namespace

bool ply_may_have_labels(const std::string& file) {
  // The header, from the file's first bytes: a header longer than these is read with the data.
  constexpr std::size_t kHeaderBytes = std::size_t{1} << 20;
  std::ifstream in(file, std::ios::binary);
  std::string head(kHeaderBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.find("end_header") == std::string::npos) return true;
  PlyHeader header;
  try {
    if (!read_ply_header(head, header)) return false;
  } catch (const std::exception&) {
    return true;  // left to the reader of the whole file
  }
  for (const PlyElement& e : header.elements)
    if (wanted_of(e).label >= 0) return true;
  return false;
}

void read_ply(const std::string& text, const std::string& file, MeshFaceGroups& out) {
  PlyHeader header;
  if (!read_ply_header(text, header)) return;
  bool labelled = false;
  for (const PlyElement& e : header.elements) labelled = labelled || wanted_of(e).label >= 0;
  if (!labelled) return;
  PlyValues values(text, header, file);
  for (const PlyElement& e : header.elements) {
    const Wanted w = wanted_of(e);
    for (std::uint64_t item = 0; item < e.count; ++item) {
      Vec<3> point = Vec<3>::Zero();
      std::string label;
      for (std::size_t k = 0; k < e.properties.size(); ++k) {
        const PlyProperty& p = e.properties[k];
        const int index = static_cast<int>(k);
        if (!p.list) {
          const double v = values.next(p.item_bytes, p.real, p.item_signed);
          for (int axis = 0; axis < 3; ++axis)
            if (w.coordinate[axis] == index) point[axis] = v;
          if (w.label == index) {
            if (!(std::abs(v) < 9e18) || v != std::floor(v)) values.fail();
            label = integer_text(v);
          }
          continue;
        }
        const double length = values.next(p.count_bytes, false, false);
        if (!(length >= 0) || length > static_cast<double>(text.size())) values.fail();
        const auto n = static_cast<std::uint64_t>(length);
        if (w.corners != index) {
          values.skip(n, p.item_bytes);
          continue;
        }
        for (std::uint64_t c = 0; c < n; ++c) {
          // Checked against the vertices where the faces are used (the vertices may come after them).
          const double corner = values.next(p.item_bytes, false, p.item_signed);
          out.corners.push_back(corner >= 0 && corner < 4294967295.0 ? static_cast<std::uint32_t>(corner) : UINT32_MAX);
        }
      }
      if (ply_vertices(e)) out.points.push_back(point);
      if (ply_faces(e)) out.add_face(label, file);
    }
  }
}

}  // namespace nodegen::geometry_detail::mesh_groups
