#pragma once
// A polygon ring's "edge_names" in a domain file: an array with one name per edge of the ring as written
// (edge i from point i to point i + 1, the last back to point 0; "" or null keeps the ring's own part),
// or an object from edge index to name ({"0": "inlet"}). The names are mapped onto the ring's vertices
// as read_polygon_ring leaves them (repeated neighbouring points one vertex), refusing a name that the
// merging would lose.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "geometry/shapes/shape.hpp"
#include "nodegen/geometry/json_fields.hpp"

namespace nodegen::geometry_detail {

// A name is at most this long: it is repeated in its part's name, in the output and in the report.
inline constexpr std::size_t kMaxPartNameLength = 256;

// `vertex_of_point`: for each point of the ring as written, the vertex it became (read_polygon_ring);
// `vertices`: how many there are. Throws InputError at `at` or inside it.
RingEdgeNames read_edge_names(const JsonFields& fields, const nlohmann::json& j, const std::string& at,
                              const std::vector<std::size_t>& vertex_of_point, std::size_t vertices);

}  // namespace nodegen::geometry_detail
