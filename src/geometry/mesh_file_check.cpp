// Mesh file checks before CGAL reads a file (see mesh_file_check.hpp). Only what sizes an allocation
// is checked; a file these checks cannot make sense of is left to CGAL, which refuses it before it
// allocates by any count.
#include "mesh_file_check.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nodegen/geometry/input_file.hpp>

namespace nodegen::geometry_detail {
namespace {

[[noreturn]] void refuse(const std::string& reason) { throw InputFileError(reason); }

// Corners of one face at most. A polygon becomes a fan of triangles around its first corner, whose
// high valence makes the mesh's self-intersection test and CGAL's face insertion quadratic in the
// corner count (a cone's base of 50 000 corners took minutes), and CGAL's soup repair removes a
// polygon's repeated corners one at a time (a face of 600 000 indices, over a minute). Meshes as exported
// keep far fewer on a face; a larger polygon can be given as triangles.
constexpr std::uint64_t kMaxFaceCorners = 1024;

void check_face_corners(const char* format, std::uint64_t face, std::uint64_t corners) {
  if (corners > kMaxFaceCorners)
    refuse(std::string("has ") + format + " face " + std::to_string(face) + " with " + std::to_string(corners) +
           " corners, above the limit of " + std::to_string(kMaxFaceCorners) + " (split it into triangles)");
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Whitespace-separated tokens of a text, line by line, skipping '#' comments (OFF) when asked.
class Tokens {
 public:
  Tokens(std::string_view text, bool comments) : text_(text), comments_(comments) {}

  // The next token on the current line, or empty at its end.
  std::string_view next_on_line() {
    // Every space but the line's end, as >> skips it: a form feed before an index had ended the line
    // here while CGAL read the index after it (found by fuzz_mesh_ply).
    while (pos_ < text_.size() && text_[pos_] != '\n' && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    if (pos_ >= text_.size() || text_[pos_] == '\n' || (comments_ && text_[pos_] == '#')) return {};
    const std::size_t start = pos_;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  // The next token, across lines and comments; empty at the end of the text.
  std::string_view next() {
    for (;;) {
      const std::string_view t = next_on_line();
      if (!t.empty()) return t;
      if (!next_line()) return {};
    }
  }
  // Moves to the start of the next line; false at the end of the text.
  bool next_line() {
    const std::size_t eol = text_.find('\n', pos_);
    if (eol == std::string_view::npos) {
      pos_ = text_.size();
      return false;
    }
    pos_ = eol + 1;
    return true;
  }
  std::size_t remaining() const { return text_.size() - pos_; }
  std::size_t position() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos; }

 private:
  std::string_view text_;
  bool comments_;
  std::size_t pos_ = 0;
};

// A non-negative decimal count; false when the token is not one (or above 2^62).
bool count_of(std::string_view t, std::uint64_t& out) {
  if (t.empty() || t.size() > 18) return false;
  out = 0;
  for (char c : t) {
    if (c < '0' || c > '9') return false;
    out = out * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return true;
}

std::uint32_t stl_count(std::string_view text) {
  std::uint32_t count = 0;
  if (text.size() >= 84) std::memcpy(&count, text.data() + 80, 4);  // little-endian on every platform nodegen builds on
  return count;
}

std::string num_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// The count an istream's >> reads from the start of a token ("0/" is 0, "12abc" 12); false when the
// token does not start with a digit (a sign included: >> into an unsigned wraps "-1" to 2^64 - 1).
bool leading_count(std::string_view t, std::uint64_t& out) {
  std::size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  return digits > 0 && count_of(t.substr(0, digits), out);
}

// A text mesh holds no NUL byte. CGAL's readers take some records as C strings, which a NUL ends, and
// others by >>, which reads past it, so the records CGAL read were not those this check had read: a COFF
// file with NULs between comment lines made CGAL read a colour past its array (found by fuzz_mesh_off).
// `text` starts at the file's first byte.
void check_no_nul(std::string_view text) {
  const std::size_t at = text.find('\0');
  if (at != std::string_view::npos)
    refuse("has a NUL byte at offset " + std::to_string(at) + " (a text mesh file holds none)");
}

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

// A coordinate written as nan, inf or a number beyond double's range: CGAL's exact predicates convert
// coordinates to GMP rationals, and GMP raises SIGFPE on a non-finite double.
void check_finite_text(const std::string& text) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end]))) ++end;
    const std::string token = text.substr(i, std::min<std::size_t>(end - i, 64));
    char* stop = nullptr;
    const double v = std::strtod(token.c_str(), &stop);
    if (end - i <= 64 && stop == token.c_str() + token.size() && !std::isfinite(v))
      refuse("has a non-finite coordinate \"" + token + "\" on line " + std::to_string(line));
    i = end;
  }
}

void check_off(const std::string& text) {
  Tokens tokens(text, true);
  // CGAL's header scanner takes the keyword as the letters and digits that start the first token,
  // consumes the character after them and reads the counts from there: "OFF*0 4 0" is OFF with the
  // counts 0, 4 and 0. The check reads the header as it does.
  const std::string_view first = tokens.next();
  std::size_t letters = 0;
  while (letters < first.size() && std::isalnum(static_cast<unsigned char>(first[letters]))) ++letters;
  const std::string_view magic = first.substr(0, letters);
  if (magic.size() < 3 || magic.substr(magic.size() - 3) != "OFF") return;  // not OFF: CGAL says so
  if (letters + 1 < first.size()) tokens.seek(static_cast<std::size_t>(first.data() - text.data()) + letters + 1);
  std::uint64_t counts[3] = {0, 0, 0};
  std::string_view t = tokens.next();
  if (magic.find('n') != std::string_view::npos) refuse("is an nOFF file (other dimensions), which is not supported");
  // CGAL's reader of texture coordinates reads past what it set up (a 4-vertex STOFF tetrahedron
  // crashed it, or not, from run to run); a mesh's texture means nothing to the fill.
  if (magic.find("ST") != std::string_view::npos)
    refuse("is an STOFF file (texture coordinates), which is not supported (drop the ST and the coordinates)");
  if (t == "BINARY") refuse("is binary OFF, which is not supported (use ASCII OFF, binary STL or PLY)");
  for (int i = 0; i < 3; ++i) {
    if (i > 0) t = tokens.next();
    // CGAL reads the counts with >>: each must start with a count, of at most 18 digits.
    if (!leading_count(t, counts[i])) refuse("has an OFF header without counts of vertices, faces and edges");
  }
  // CGAL reads the edge count into an int and doubles it (border edges count twice): above 2^30 - 1
  // that overflows (found by fuzz_mesh_off). The count is otherwise unused.
  if (counts[2] > (std::uint64_t{1} << 30) - 1)
    refuse("has an OFF header claiming " + std::to_string(counts[2]) + " edges, above 1073741823");
  const std::uint64_t vertices = counts[0], faces = counts[1];
  // A vertex line holds at least "x y z" (6 bytes with its newline), a face line at least "0" and a newline.
  const double need = 6.0 * static_cast<double>(vertices) + 2.0 * static_cast<double>(faces);
  if (need > static_cast<double>(tokens.remaining()))
    refuse("has an OFF header claiming " + std::to_string(vertices) + " vertices and " + std::to_string(faces) +
           " faces, more than the file's " + std::to_string(text.size()) + " bytes can hold");
  // CGAL's scanner reads each vertex and face as the rest of a line from the next character that is
  // not white space or in a comment: a record may begin on the header's line, after its counts.
  auto record = [&]() -> std::string_view {
    const std::string_view t = tokens.next();
    if (t.empty()) return t;
    const std::size_t start = static_cast<std::size_t>(t.data() - text.data());
    const std::size_t eol = std::min(text.find('\n', start), text.size());
    tokens.seek(eol);
    return std::string_view(text).substr(start, eol - start);
  };
  // The numbers of a record as CGAL takes them: the line up to a '#', read by >> into doubles.
  auto numbers_of = [](std::string_view record_text) {
    std::string line(record_text.substr(0, std::min<std::size_t>(record_text.size(), 1 << 20)));
    line = line.substr(0, line.find('#'));
    std::istringstream numbers(line);
    std::vector<double> entries;
    for (double value = 0; numbers >> value;) entries.push_back(value);
    return entries;
  };
  // With colours (a 'C' before "OFF"), CGAL takes the numbers after a vertex's coordinates (and its
  // normal and texture coordinates) or after a face's indices as its colour, and reads three of them
  // when there are not exactly 0 or 1, past the end of its array when there are 2 or fewer than none
  // (found by fuzz_mesh_off). A colour is 0, 1 (a colour map index), 3 or 4 numbers; and once one vertex
  // (face) had a colour, CGAL reads a colour for every later one, so none of those may have 0 (found by
  // fuzz_mesh_off: a vertex "x y z" after vertices with colours).
  const std::string_view prefix = magic.substr(0, magic.size() - 3);
  const bool colours = prefix.find('C') != std::string_view::npos;
  const long homogeneous = prefix.find('4') != std::string_view::npos ? 1 : 0;
  const long vertex_numbers = 3 + homogeneous + (prefix.find('N') != std::string_view::npos ? 3 + homogeneous : 0) +
                              (prefix.find("ST") != std::string_view::npos ? 2 + homogeneous : 0);
  auto check_colour = [&](const char* what, std::uint64_t item, long extra, bool& coloured_before) {
    if (!colours) return;
    if (extra != 0 && extra != 1 && extra != 3 && extra != 4)
      refuse("has OFF " + std::string(what) + " " + std::to_string(item) + " with " +
             (extra < 0 ? "too few numbers" : std::to_string(extra) + " colour numbers") +
             " (a colour is 0, 1, 3 or 4 numbers after the " + (what[0] == 'v' ? "coordinates" : "indices") + ")");
    if (extra == 0 && coloured_before)
      refuse("has OFF " + std::string(what) + " " + std::to_string(item) + " without a colour after " +
             (what[0] == 'v' ? "vertices" : "faces") + " with one (all or none have one)");
    coloured_before = coloured_before || extra != 0;
  };
  bool vertex_colours = false, face_colours = false;
  // Each face's vertex count sizes an array: it cannot exceed the number of vertices.
  for (std::uint64_t v = 0; v < vertices; ++v) {
    const std::string_view vertex = record();
    if (vertex.empty()) return;  // short file: CGAL reports it
    if (colours) check_colour("vertex", v, static_cast<long>(numbers_of(vertex).size()) - vertex_numbers, vertex_colours);
  }
  // A face line as CGAL reads it: every number on it by >> into a double (so "2-1" is 2 and -1), then
  // the first cast to a count and the next ones to indices, unchecked (a cast out of range is undefined
  // behaviour, and the count sizes an array). Each must be a whole number naming a vertex.
  for (std::uint64_t f = 0; f < faces; ++f) {
    const std::string_view face = record();
    if (face.empty()) return;
    const std::vector<double> entries = numbers_of(face);
    if (entries.empty()) return;  // CGAL refuses the file
    auto whole = [](double v, double below) { return v >= 0 && v < below && v == std::floor(v); };
    if (!whole(entries[0], static_cast<double>(vertices) + 1))
      refuse("has OFF face " + std::to_string(f) + " claiming " + num_text(entries[0]) + " vertices, but the mesh has " +
             std::to_string(vertices));
    const auto n = static_cast<std::size_t>(entries[0]);
    check_face_corners("OFF", f, n);
    for (std::size_t k = 1; k <= n && k < entries.size(); ++k)
      if (!whole(entries[k], static_cast<double>(vertices)))
        refuse("has OFF face " + std::to_string(f) + " with vertex index " + num_text(entries[k]) + ", but " +
               std::to_string(vertices) + " vertices");
    check_colour("face", f, static_cast<long>(entries.size()) - static_cast<long>(n) - 1, face_colours);
  }
}

// OBJ face indices: CGAL's reader (5.5) takes 0 as the relative index "this many vertices from the
// end", checks a positive index one past the last vertex as valid, and a relative one against the
// final vertex count instead of the count at that line: each reads past its array. Indices start at 1,
// a positive one names one of the file's vertices, a negative one one of the vertices above its line.
void check_obj(const std::string& text) {
  // Lines as CGAL reads them: the first word, then for a face its indices read as int by >>, each
  // followed by skipping to the next space (which is how "1/2/3" and stray bytes are passed over).
  auto for_each_line = [&](auto&& visit) {
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t eol = std::min(text.find('\n', at), text.size());
      std::istringstream line(text.substr(at, eol - at));
      at = eol + 1;
      std::string word;
      if (line >> word) visit(word, line);
    }
  };
  std::int64_t total = 0;
  for_each_line([&](const std::string& word, std::istringstream&) { total += word == "v"; });
  std::int64_t above = 0, face = 0;
  for_each_line([&](const std::string& word, std::istringstream& line) {
    above += word == "v";
    if (word != "f") return;
    int i = 0;
    std::uint64_t corners = 0;
    while (line >> i) {
      ++corners;
      if (i == 0 || i > total || -static_cast<std::int64_t>(i) > above)
        refuse("has a face index " + std::to_string(i) + " that names no vertex (" + std::to_string(total) +
               " in the file, " + std::to_string(above) + " above the face's line)");
      line.ignore(256, ' ');
    }
    // An index past an int's range fails >> as it fails CGAL's (which then stores the int's largest or
    // smallest value, where text that is no number stores 0): the face lost its corners from there on,
    // silently, and the repair closed the hole it left.
    if (line.fail() && (i == std::numeric_limits<int>::max() || i == std::numeric_limits<int>::min()))
      refuse("has OBJ face " + std::to_string(face) + " with an index beyond the range of an index (at most 2147483647)");
    check_face_corners("OBJ", static_cast<std::uint64_t>(face), corners);
    ++face;
  });
}

// PLY: the header's elements and properties, then one pass over the data that checks every list's
// length against the bytes left before CGAL would size a buffer by it.
struct PlyProperty {
  std::string name;
  std::string type;  // scalar: its type; list: its items' type (as written, e.g. "float32")
  bool list = false;
  int count_bytes = 0;  // list: the size of its length's type
  int item_bytes = 0;   // scalar: its size; list: the size of an item
  bool real = false;    // scalar float or double
  bool item_signed = false;  // list: its items are of a signed type
};
struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;
};

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

// The element names CGAL's two PLY readers (polygon soup, Surface_mesh) take for vertices and faces.
bool ply_vertices(const PlyElement& e) { return e.name == "vertex" || e.name == "vertices"; }
bool ply_faces(const PlyElement& e) { return e.name == "face" || e.name == "faces"; }
// A face's corners (other lists on a face, texture coordinates, are not corners).
bool is_ply_corner_list(const PlyProperty& p) { return p.name == "vertex_indices" || p.name == "vertex_index"; }

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

std::uint64_t read_binary_count(const std::string& text, std::size_t at, int bytes, bool big_endian) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    const auto byte = static_cast<unsigned char>(text[at + static_cast<std::size_t>(big_endian ? i : bytes - 1 - i)]);
    v = (v << 8) | byte;
  }
  return v;
}

void check_ply(const std::string& text) {
  // The header as CGAL reads it: "ply", a format line, then one keyword per line up to end_header.
  std::string format;
  std::vector<PlyElement> elements;
  std::size_t data = std::string::npos;
  for (std::size_t at = 0, number = 1; at < text.size(); ++number) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    std::istringstream words(text.substr(at, std::min<std::size_t>(eol - at, 4096)));
    at = eol + 1;
    std::string word;
    words >> word;
    if (number == 1) {
      if (word != "ply") return;  // CGAL refuses it
      continue;
    }
    if (number == 2) {
      words >> format;
      continue;
    }
    if (word == "end_header") {
      data = std::min(at, text.size());
      break;
    }
    if (word == "element") {
      PlyElement e;
      std::string count;
      words >> e.name >> count;
      if (!count_of(count, e.count)) refuse("has PLY element " + e.name + " with count \"" + count + "\", not a count");
      elements.push_back(e);
    } else if (word == "property") {
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
        refuse("has PLY property " + p.name + " of element " + elements.back().name + " of unknown type \"" + p.type + "\"");
      elements.back().properties.push_back(p);
    }
  }
  // CGAL does not refuse a header that never ends: it took the counts above and allocated by them (an
  // element of 1.1e11 vertices and "end_heade&": gigabytes within a minute; found by fuzz_mesh_ply).
  if (data == std::string::npos) refuse("has a PLY header with no end_header line");
  const bool ascii = format == "ascii";
  check_no_nul(std::string_view(text).substr(0, ascii ? text.size() : data));  // a binary body may hold NULs
  if (ascii) check_finite_text(text.substr(data));
  const bool big_endian = format == "binary_big_endian";
  if (!ascii && !big_endian && format != "binary_little_endian") return;  // CGAL refuses it
  const std::size_t bytes_left = text.size() - data;

  // Every item takes at least one byte per scalar and per list length (two in ASCII, with a separator),
  // and is counted as one byte when its element has no property: CGAL loops over the items of such an
  // element reading nothing (8.9e12 of them ran without end; found by fuzz_mesh_ply).
  double need = 0;
  for (const PlyElement& e : elements) {
    double per_item = 0;
    for (const PlyProperty& p : e.properties) per_item += ascii ? 2.0 : (p.list ? p.count_bytes : p.item_bytes);
    need += std::max(per_item, 1.0) * static_cast<double>(e.count);
  }
  if (need > static_cast<double>(bytes_left))
    refuse("has PLY element counts that need at least " + std::to_string(static_cast<std::uint64_t>(need)) +
           " bytes of data, but the file has " + std::to_string(bytes_left));
  check_ply_layout(elements);
  // A face's vertex indices must name vertices: CGAL 5.5 indexes its vertex array with them unchecked
  // (a file whose vertices are not an element "vertex" has none).
  std::uint64_t vertices = 0;
  for (const PlyElement& e : elements)
    if (ply_vertices(e)) vertices = e.count;
  auto check_index = [&](const PlyElement& e, const PlyProperty& p, std::uint64_t item, long long index) {
    if (ply_faces(e) && is_ply_corner_list(p) && (index < 0 || static_cast<std::uint64_t>(index) >= vertices))
      refuse("has PLY face " + std::to_string(item) + " with vertex index " + std::to_string(index) + ", but " +
             std::to_string(vertices) + " vertices");
  };
  // Each list's length against what is left; stops at the first place the data runs out (CGAL then
  // fails on its own, having allocated no more than the file's size).
  Tokens tokens(text, false);
  tokens.seek(data);
  std::size_t at = data;
  for (const PlyElement& e : elements)
    for (std::uint64_t item = 0; item < e.count; ++item)
      for (const PlyProperty& p : e.properties) {
        std::uint64_t length = 1;
        if (ascii) {
          const std::string_view t = tokens.next();
          if (t.empty()) return;
          if (!p.list) continue;
          if (!count_of(t, length)) refuse("has PLY element " + e.name + " " + std::to_string(item) + " with list length \"" + std::string(t) + "\", not a count");
          if (2 * length > tokens.remaining() + 1)
            refuse("has PLY element " + e.name + " " + std::to_string(item) + " claiming a list of " + std::to_string(length) + " items, more than the rest of the file holds");
          if (ply_faces(e) && is_ply_corner_list(p)) check_face_corners("PLY", item, length);
          for (std::uint64_t k = 0; k < length; ++k) {
            const std::string index(tokens.next().substr(0, 24));
            if (index.empty()) return;
            char* stop = nullptr;
            const long long i = std::strtoll(index.c_str(), &stop, 10);
            if (stop == index.c_str()) return;  // not an integer: CGAL fails on it
            check_index(e, p, item, i);
          }
        } else {
          if (!p.list && p.real && at + static_cast<std::size_t>(p.item_bytes) <= text.size()) {
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
            if (!std::isfinite(v))
              refuse("has a non-finite value in PLY element " + e.name + " " + std::to_string(item));
          }
          if (p.list) {
            if (at + static_cast<std::size_t>(p.count_bytes) > text.size()) return;
            length = read_binary_count(text, at, p.count_bytes, big_endian);
            at += static_cast<std::size_t>(p.count_bytes);
          }
          const double bytes = static_cast<double>(length) * p.item_bytes;
          if (bytes > static_cast<double>(text.size() - at)) {
            if (!p.list) return;
            refuse("has PLY element " + e.name + " " + std::to_string(item) + " claiming a list of " + std::to_string(length) + " items, more than the rest of the file holds");
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
      }
}

}  // namespace

void check_mesh_file(const std::string& file) {
  const std::string ext = lower(std::filesystem::path(file).extension().string());
  if (ext != ".stl" && ext != ".obj" && ext != ".off" && ext != ".ply")
    refuse("is of an unsupported mesh format \"" + ext + "\" (supported: .stl ascii/binary, .obj, .off, .ply)");
  const std::string text = read_input_file(file, InputFileLimits::kMeshFileBytes, "mesh files");
  // The text formats' bytes and numbers (a PLY's are checked in check_ply, a binary STL's in check_stl).
  const bool text_format = ext == ".obj" || ext == ".off" || (ext == ".stl" && ascii_stl_keyword(text, text.size()) != std::string_view::npos);
  if (text_format) check_no_nul(text);
  if (ext == ".stl") check_stl(text);
  else if (ext == ".off") check_off(text);
  else if (ext == ".ply") check_ply(text);
  else check_obj(text);
  if (text_format) check_finite_text(text);
}

std::size_t stl_blank_cgal_misreads(const std::string& file) {
  if (lower(std::filesystem::path(file).extension().string()) != ".stl") return std::string::npos;
  std::string head(4096, '\0');
  std::ifstream in(file, std::ios::binary);
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(file, ec);
  const std::size_t keyword = ec ? std::string_view::npos : ascii_stl_keyword(head, size);
  if (keyword == std::string_view::npos || keyword + 5 >= head.size()) return std::string::npos;
  const auto after = static_cast<unsigned char>(head[keyword + 5]);
  return std::isspace(after) && after != ' ' && after != '\n' && after != '\r' ? keyword + 5 : std::string::npos;
}

}  // namespace nodegen::geometry_detail
