// OBJ face groups (mesh_face_groups.hpp): the lines CGAL's reader takes for vertices and faces, read as
// it reads them, and the `g` and `o` lines it skips.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "geometry/files/mesh_face_groups.hpp"

namespace nodegen::geometry_detail::mesh_groups {
namespace {

// The rest of a line after its keyword, without the blanks around it (a CR of a CRLF line among them).
std::string rest_of_line(std::istringstream& line) {
  std::string rest;
  std::getline(line, rest);
  const char* const blanks = " \t\r\f\v";
  const std::size_t first = rest.find_first_not_of(blanks);
  if (first == std::string::npos) return "";
  return rest.substr(first, rest.find_last_not_of(blanks) - first + 1);
}

}  // namespace

// Whether some line starts with the keyword g or o: a file without one has no groups, and is not read
// in full again.
bool obj_may_have_groups(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.find_first_not_of(" \t\r\f\v");
    if (at == std::string::npos || (line[at] != 'g' && line[at] != 'o')) continue;
    if (at + 1 == line.size() || std::isspace(static_cast<unsigned char>(line[at + 1]))) return true;
  }
  return false;
}

void read_obj(const std::string& text, const std::string& file, MeshFaceGroups& out) {
  std::string group, object;  // the latest `g` since the latest `o`, and that `o`; "" for none
  std::size_t line_number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    std::istringstream line(text.substr(at, eol - at));
    at = eol + 1;
    ++line_number;
    std::string word;
    if (!(line >> word)) continue;
    if (word == "v") {
      double x = 0, y = 0, z = 0;
      if (!(line >> x >> y >> z))
        throw std::runtime_error("mesh " + file + ": line " + std::to_string(line_number) + ": cannot read the vertex");
      out.points.emplace_back(x, y, z);
    } else if (word == "f") {
      // As CGAL reads a face: indices read as int, each followed by skipping to the next space (past
      // "/vt/vn"); a negative index counts back from the latest vertex. check_obj has checked them.
      int i = 0;
      while (line >> i) {
        const long long index = i < 1 ? static_cast<long long>(out.points.size()) + i : i - 1;
        if (index < 0 || index >= static_cast<long long>(out.points.size()))
          throw std::runtime_error("mesh " + file + ": line " + std::to_string(line_number) + ": a face index names no vertex");
        out.corners.push_back(static_cast<std::uint32_t>(index));
        line.ignore(256, ' ');
      }
      out.add_face(group.empty() ? object : group, file);
    } else if (word == "g" || word == "o") {
      std::string name = rest_of_line(line);
      if (const std::string problem = part_name_problem(name); !problem.empty())
        throw std::runtime_error("mesh " + file + ": line " + std::to_string(line_number) + ": the " +
                                 (word == "g" ? "group" : "object") + " name " + problem);
      if (word == "o") {
        object = std::move(name);
        group.clear();  // a group belongs to its object
      } else {
        group = std::move(name);
      }
    }
  }
}

}  // namespace nodegen::geometry_detail::mesh_groups
