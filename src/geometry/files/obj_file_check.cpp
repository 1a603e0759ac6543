// OBJ: every face index names a vertex, as CGAL's reader would index with it unchecked.
#include <cctype>
#include <cstdint>
#include <string>
#include <limits>
#include <sstream>

#include "geometry/files/mesh_text.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen::geometry_detail::mesh_check {

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
      // After the index: "/" (a texture or normal index), a blank or the line's end; "3foo" is no index.
      if (const int next = line.peek(); next != std::char_traits<char>::eof() && next != '/' && !std::isspace(next))
        refuse("has OBJ face " + std::to_string(face) + " with an index followed by \"" +
               shown(std::string(1, static_cast<char>(next))) + "\"");
      line.ignore(256, ' ');
    }
    // An index past an int's range fails >> as it fails CGAL's (which then stores the int's largest or
    // smallest value, where text that is no number stores 0): the face lost its corners from there on,
    // silently, and the repair closed the hole it left.
    if (line.fail() && (i == std::numeric_limits<int>::max() || i == std::numeric_limits<int>::min()))
      refuse("has OBJ face " + std::to_string(face) + " with an index beyond the range of an index (at most 2147483647)");
    // Text that is no number where an index should be ("f 1 4 x") ended CGAL's face there too: the
    // face lost its corners from there on and the repair closed the hole. A comment may end the line.
    if (line.fail() && !line.eof()) {
      line.clear();
      std::string rest;
      line >> rest;
      if (!rest.empty() && rest[0] != '#')
        refuse("has OBJ face " + std::to_string(face) + " with \"" + shown(rest.substr(0, 40)) + "\" where an index should be");
    }
    check_face_corners("OBJ", static_cast<std::uint64_t>(face), corners);
    ++face;
  });
}

}  // namespace nodegen::geometry_detail::mesh_check
