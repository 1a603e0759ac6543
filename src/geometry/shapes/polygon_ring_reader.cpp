#include "geometry/shapes/polygon_ring_reader.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "nodegen/geometry/input_file.hpp"

namespace nodegen::geometry_detail {

namespace {

// The points of a point file, "x y" per line.
std::vector<Vec<2>> read_point_file(const JsonFields& fields, const std::string& file, const std::string& at) {
  std::string text;
  try {
    text = read_input_file(file, InputFileLimits::kPointFileBytes, "point files");
  } catch (const InputFileError& e) {
    fields.fail(at, describe_input_file_error("point file", file, e));
  }
  // As editors write them: a UTF-8 byte order mark first, lines ended by CR alone (classic Mac OS).
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  if (text.find('\n') == std::string::npos) std::replace(text.begin(), text.end(), '\r', '\n');
  std::istringstream in(std::move(text));
  std::vector<Vec<2>> pts;
  std::string line;
  for (long line_no = 1; std::getline(in, line); ++line_no) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r,") == std::string::npos) continue;
    for (char& c : line)
      if (c == ',') c = ' ';
    std::istringstream row(line);
    double x, y;
    std::string rest;  // "1 1abc" and "0 0 0" are typos, not points: nothing may follow the pair
    if (!(row >> x >> y) || (row >> rest) || !std::isfinite(x) || !std::isfinite(y))
      fields.fail(at, file + " line " + std::to_string(line_no) + ": expected two numbers \"x y\"");
    // Bounded as it is read: a point file near its size limit holds many more short lines than the limit.
    if (pts.size() >= kMaxPolygonVertices) break;
    pts.emplace_back(x, y);
  }
  return pts;
}

}  // namespace

std::vector<Vec<2>> read_polygon_ring(const JsonFields& fields, const nlohmann::json& j, const std::string& at,
                                      std::size_t& vertices, std::vector<std::size_t>* vertex_of_point) {
  auto count = [&](std::size_t more) {
    if (more > kMaxPolygonVertices - vertices)
      fields.fail(at, "the polygon has more than " + std::to_string(kMaxPolygonVertices) +
                          " vertices, the limit (the exact check that its rings do not cross takes about 0.65 KB a "
                          "vertex): simplify the outline to the detail the spacing resolves");
    vertices += more;
  };
  std::vector<Vec<2>> pts;
  if (j.is_string()) {
    pts = read_point_file(fields, fields.resolve(j, at), at);
    if (pts.size() >= kMaxPolygonVertices) count(kMaxPolygonVertices + 1);
    count(pts.size());
  } else if (j.is_array()) {
    count(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) pts.push_back(fields.vec<2>(j[i], at + "[" + std::to_string(i) + "]"));
  } else {
    fields.fail(at, "expected an array of [x, y] points or a file name, got " + json_type_name(j));
  }
  // A point repeated next to itself (an outline file that closes the ring by repeating its first
  // point, a doubled vertex) is one vertex: zero-length edges have no direction for a normal.
  if (vertex_of_point) {
    vertex_of_point->resize(pts.size());
    for (std::size_t i = 0, v = 0; i < pts.size(); ++i) {
      if (i > 0 && pts[i] != pts[i - 1]) ++v;
      (*vertex_of_point)[i] = v;
    }
  }
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  while (pts.size() > 1 && pts.back() == pts.front()) {
    pts.pop_back();
    if (vertex_of_point)
      for (std::size_t& v : *vertex_of_point)
        if (v == pts.size()) v = 0;
  }
  if (pts.size() < 3) fields.fail(at, "a polygon ring needs at least 3 distinct points, got " + std::to_string(pts.size()));
  return pts;
}

}  // namespace nodegen::geometry_detail
