#pragma once
// A polygon ring of a domain file: inline [[x, y], ...] or the name of a point file with "x y" per line
// (a UTF-8 byte order mark, CR line ends, '#' comments and commas between the numbers are taken as
// editors write them). Repeated neighbouring points are one vertex; a ring needs 3 distinct ones.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nodegen/geometry/json_fields.hpp"

namespace nodegen::geometry_detail {

// A polygon's rings hold at most this many vertices in all: the exact check that they do not cross
// (ring_crossings.hpp) takes memory in proportion to them.
inline constexpr std::size_t kMaxPolygonVertices = 1'000'000;

// `vertices`: the polygon's vertices before this ring, and after it on return. `vertex_of_point`, when
// given: for each point as written, the index of the vertex it became (a closing repeat of the first
// point: 0). Throws InputError at `at`.
std::vector<Vec<2>> read_polygon_ring(const JsonFields& fields, const nlohmann::json& j, const std::string& at,
                                      std::size_t& vertices, std::vector<std::size_t>* vertex_of_point = nullptr);

}  // namespace nodegen::geometry_detail
