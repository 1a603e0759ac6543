// A polygon ring's edge names, read and mapped onto its deduplicated vertices (edge_names_reader.hpp).
#include "geometry/shapes/edge_names_reader.hpp"

#include <algorithm>
#include <map>

namespace nodegen::geometry_detail {
namespace {

using nlohmann::json;

// One edge's name: a string ("" for none) or null.
std::string edge_name(const JsonFields& fields, const json& j, const std::string& at) {
  if (j.is_null()) return "";
  if (!j.is_string())
    fields.fail(at, "expected a name (a string, or \"\" or null to keep the ring's own part), got " + json_type_name(j));
  const std::string name = j.get<std::string>();
  if (name.size() > kMaxPartNameLength)
    fields.fail(at, "is " + std::to_string(name.size()) + " characters long, above the limit of " +
                        std::to_string(kMaxPartNameLength));
  return name;
}

// The edge index a key of the object form names: decimal digits without a leading zero, below `edges`.
std::size_t edge_index(const JsonFields& fields, const std::string& key, const std::string& at, std::size_t edges) {
  const bool digits = !key.empty() && key.size() <= 18 && std::all_of(key.begin(), key.end(), [](char c) {
    return c >= '0' && c <= '9';
  });
  const std::size_t index = digits ? std::stoull(key) : edges;
  if (!digits || (key.size() > 1 && key[0] == '0') || index >= edges)
    fields.fail(at, "is not an edge index: the ring has " + std::to_string(edges) + " edges as written, 0 to " +
                        std::to_string(edges - 1) + " (edge i runs from point i to point i + 1, the last back to point 0)");
  return index;
}

// The names of the edges as written, one per point.
std::vector<std::string> written_names(const JsonFields& fields, const json& j, const std::string& at, std::size_t edges) {
  std::vector<std::string> names(edges);
  if (j.is_array()) {
    if (j.size() != edges)
      fields.fail(at, "has " + std::to_string(j.size()) + " names, but the ring has " + std::to_string(edges) +
                          " points as written: one name per edge (edge i runs from point i to point i + 1, the last "
                          "back to point 0)");
    for (std::size_t i = 0; i < edges; ++i) names[i] = edge_name(fields, j[i], at + "[" + std::to_string(i) + "]");
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string where = at + "." + it.key();
      names[edge_index(fields, it.key(), where, edges)] = edge_name(fields, it.value(), where);
    }
  } else {
    fields.fail(at, "expected an array with one name per edge, or an object from edge index to name, got " +
                        json_type_name(j));
  }
  return names;
}

}  // namespace

RingEdgeNames read_edge_names(const JsonFields& fields, const json& j, const std::string& at,
                              const std::vector<std::size_t>& vertex_of_point, std::size_t vertices) {
  const std::size_t edges = vertex_of_point.size();
  const std::vector<std::string> names = written_names(fields, j, at, edges);
  auto has_length = [&](std::size_t i) { return vertex_of_point[i] != vertex_of_point[(i + 1) % edges]; };
  RingEdgeNames out;
  out.edge_name.assign(vertices, -1);
  std::map<std::string, int> index;
  for (std::size_t i = 0; i < edges; ++i) {
    if (names[i].empty()) continue;
    if (!has_length(i)) {
      // Edge i joins a point to its repeat: it is no edge once the two are one vertex, and its name must
      // be one of the edges beside it (there is one with a length each way: a ring has 3 vertices).
      std::size_t before = (i + edges - 1) % edges, after = (i + 1) % edges;
      while (!has_length(before)) before = (before + edges - 1) % edges;
      while (!has_length(after)) after = (after + 1) % edges;
      if (names[i] != names[before] && names[i] != names[after])
        fields.fail(at, "edge " + std::to_string(i) + " (\"" + names[i] + "\") has no length: point " +
                            std::to_string((i + 1) % edges) + " repeats point " + std::to_string(i) +
                            ", so the two are one vertex and edge " + std::to_string(i) + " merges with edges " +
                            std::to_string(before) + " (\"" + names[before] + "\") and " + std::to_string(after) +
                            " (\"" + names[after] + "\"); give it the name of one of them, or \"\"");
    }
    const auto [it, fresh] = index.emplace(names[i], static_cast<int>(out.names.size()));
    if (fresh) out.names.push_back(names[i]);
    if (has_length(i)) out.edge_name[vertex_of_point[i]] = it->second;
  }
  return out;
}

}  // namespace nodegen::geometry_detail
