// OFF (and its variants COFF, NOFF, 4OFF, ...): the header's counts against the file's size, every
// face's vertex count and indices naming vertices, and colours as CGAL's reader would read them.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "geometry/files/mesh_text.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen::geometry_detail::mesh_check {
namespace {

struct OffHeader {
  std::string_view magic;  // the keyword: "OFF" with its prefix letters ("COFF", "4NOFF", ...)
  std::uint64_t vertices = 0, faces = 0;
};

// CGAL's header scanner takes the keyword as the letters and digits that start the first token,
// consumes the character after them and reads the counts from there: "OFF*0 4 0" is OFF with the
// counts 0, 4 and 0. The check reads the header as it does. False when the file is not OFF (CGAL
// says so).
bool read_off_header(Tokens& tokens, const std::string& text, OffHeader& header) {
  const std::string_view first = tokens.next();
  std::size_t letters = 0;
  while (letters < first.size() && std::isalnum(static_cast<unsigned char>(first[letters]))) ++letters;
  const std::string_view magic = first.substr(0, letters);
  if (magic.size() < 3 || magic.substr(magic.size() - 3) != "OFF") return false;
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
  // that overflows. The count is otherwise unused.
  if (counts[2] > (std::uint64_t{1} << 30) - 1)
    refuse("has an OFF header claiming " + std::to_string(counts[2]) + " edges, above 1073741823");
  header = {magic, counts[0], counts[1]};
  // A vertex line holds at least "x y z" (6 bytes with its newline), a face line at least "0" and a newline.
  const double need = 6.0 * static_cast<double>(header.vertices) + 2.0 * static_cast<double>(header.faces);
  if (need > static_cast<double>(tokens.remaining()))
    refuse("has an OFF header claiming " + std::to_string(header.vertices) + " vertices and " +
           std::to_string(header.faces) + " faces, more than the file's " + std::to_string(text.size()) +
           " bytes can hold");
  return true;
}

// CGAL's scanner reads each vertex and face as the rest of a line from the next character that is not
// white space or in a comment: a record may begin on the header's line, after its counts.
std::string_view next_record(Tokens& tokens, const std::string& text) {
  const std::string_view t = tokens.next();
  if (t.empty()) return t;
  const std::size_t start = static_cast<std::size_t>(t.data() - text.data());
  const std::size_t eol = std::min(text.find('\n', start), text.size());
  tokens.seek(eol);
  return std::string_view(text).substr(start, eol - start);
}

// The numbers of a record as CGAL takes them: the line up to a '#', read by >> into doubles.
std::vector<double> numbers_of(std::string_view record_text) {
  std::string line(record_text.substr(0, std::min<std::size_t>(record_text.size(), 1 << 20)));
  line = line.substr(0, line.find('#'));
  std::istringstream numbers(line);
  std::vector<double> entries;
  for (double value = 0; numbers >> value;) entries.push_back(value);
  return entries;
}

// With colours (a 'C' before "OFF"), CGAL takes the numbers after a vertex's coordinates (and its
// normal and texture coordinates) or after a face's indices as its colour, and reads three of them
// when there are not exactly 0 or 1, past the end of its array when there are 2 or fewer than none. A
// colour is 0, 1 (a colour map index), 3 or 4 numbers; and once one vertex (face) had a colour, CGAL
// reads a colour for every later one, so none of those may have 0.
class OffColours {
 public:
  explicit OffColours(std::string_view magic) {
    const std::string_view prefix = magic.substr(0, magic.size() - 3);
    colours_ = prefix.find('C') != std::string_view::npos;
    const long homogeneous = prefix.find('4') != std::string_view::npos ? 1 : 0;
    vertex_numbers_ = 3 + homogeneous + (prefix.find('N') != std::string_view::npos ? 3 + homogeneous : 0) +
                      (prefix.find("ST") != std::string_view::npos ? 2 + homogeneous : 0);
  }
  bool any() const { return colours_; }
  // The numbers a vertex holds before its colour.
  long vertex_numbers() const { return vertex_numbers_; }
  // `extra`: the numbers item `item` holds after its coordinates or indices.
  void check(const char* what, std::uint64_t item, long extra, bool& coloured_before) const {
    if (!colours_) return;
    if (extra != 0 && extra != 1 && extra != 3 && extra != 4)
      refuse("has OFF " + std::string(what) + " " + std::to_string(item) + " with " +
             (extra < 0 ? "too few numbers" : std::to_string(extra) + " colour numbers") +
             " (a colour is 0, 1, 3 or 4 numbers after the " + (what[0] == 'v' ? "coordinates" : "indices") + ")");
    if (extra == 0 && coloured_before)
      refuse("has OFF " + std::string(what) + " " + std::to_string(item) + " without a colour after " +
             (what[0] == 'v' ? "vertices" : "faces") + " with one (all or none have one)");
    coloured_before = coloured_before || extra != 0;
  }

 private:
  bool colours_ = false;
  long vertex_numbers_ = 3;
};

// A face line as CGAL reads it: every number on it by >> into a double (so "2-1" is 2 and -1), then
// the first cast to a count and the next ones to indices, unchecked (a cast out of range is undefined
// behaviour, and the count sizes an array). Each must be a whole number naming a vertex. False when
// the record is empty (CGAL refuses the file).
bool check_off_face(const std::vector<double>& entries, std::uint64_t f, std::uint64_t vertices,
                    const OffColours& colours, bool& face_colours) {
  if (entries.empty()) return false;
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
  colours.check("face", f, static_cast<long>(entries.size()) - static_cast<long>(n) - 1, face_colours);
  return true;
}

}  // namespace

void check_off(const std::string& text) {
  Tokens tokens(text, true);
  OffHeader header;
  if (!read_off_header(tokens, text, header)) return;
  const OffColours colours(header.magic);
  bool vertex_colours = false, face_colours = false;
  for (std::uint64_t v = 0; v < header.vertices; ++v) {
    const std::string_view vertex = next_record(tokens, text);
    if (vertex.empty()) return;  // short file: CGAL reports it
    if (colours.any())
      colours.check("vertex", v, static_cast<long>(numbers_of(vertex).size()) - colours.vertex_numbers(), vertex_colours);
  }
  for (std::uint64_t f = 0; f < header.faces; ++f) {
    const std::string_view face = next_record(tokens, text);
    if (face.empty() || !check_off_face(numbers_of(face), f, header.vertices, colours, face_colours)) return;
  }
  // Records past the declared faces: the header's counts are wrong, and CGAL read only as many faces as
  // they claim (the faces left out became holes the repair closed).
  if (const std::string_view more = next_record(tokens, text); !more.empty())
    refuse("holds more records after the " + std::to_string(header.faces) + " faces its header declares (\"" +
           shown(std::string(more.substr(0, 40))) + "\"): its counts are wrong");
}

}  // namespace nodegen::geometry_detail::mesh_check
