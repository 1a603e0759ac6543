// Checks of a node set read back from a file (input/stored_nodes.hpp).
#include "nodegen/input/stored_nodes.hpp"

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/geometry/json_fields.hpp"
#include "nodegen/io/hdf5_reader.hpp"

namespace nodegen {
namespace {

// h at every node that has one, positive and finite: stats divides by it, solve places ghost nodes h
// away and measures distances in it.
void check_spacing_values(const std::filesystem::path& file, const io::NodeArrays& nodes) {
  for (std::size_t i = 0; i < nodes.h.size(); ++i)
    if (!std::isfinite(nodes.h[i]) || !(nodes.h[i] > 0))
      throw InputError(file.string(), "/domain/h", "h = " + number_text(nodes.h[i]) + " at node " + std::to_string(i) +
                                                       " is not positive and finite");
}

// Each boundary node's normal, finite and of unit length: solve takes the normal derivative along it
// (a NaN there surfaced as a singular stencil) and sets ghost nodes out along it.
void check_normals(const std::filesystem::path& file, const io::NodeArrays& nodes) {
  const auto dim = static_cast<std::size_t>(nodes.dim);
  for (std::size_t i = 0; i < nodes.node_count(); ++i) {
    const std::int32_t row = nodes.bmap[i];
    if (row < 0 || static_cast<std::size_t>(row) >= nodes.boundary_count()) continue;  // the reader checked bmap
    const double* n = &nodes.normals[static_cast<std::size_t>(row) * dim];
    double length2 = 0;
    for (std::size_t a = 0; a < dim; ++a) length2 += n[a] * n[a];
    const double length = std::sqrt(length2);
    if (std::isfinite(length) && std::abs(length - 1.0) <= kNormalLengthTolerance) continue;
    std::string text;  // only for the error line: the check runs at every boundary node
    for (std::size_t a = 0; a < dim; ++a) text += (a ? ", " : "") + number_text(n[a]);
    if (!std::isfinite(length))
      throw InputError(file.string(), "/domain/normals", "node " + std::to_string(i) + ": normal (" + text + ") is not finite");
    throw InputError(file.string(), "/domain/normals", "node " + std::to_string(i) + ": normal (" + text + ") has length " +
                                                           number_text(length) + ", not 1 (normals are unit vectors)");
  }
}

// Boundary ids (type = -id) within the names, or without names within the node count: an id indexes
// tables of parts, and a crafted one must not size them.
void check_boundary_ids(const std::filesystem::path& file, const io::NodeArrays& nodes, const std::vector<std::string>& names) {
  for (const std::int32_t t : nodes.types) {
    if (t >= 0) continue;
    const auto id = static_cast<std::uint64_t>(-static_cast<std::int64_t>(t));
    if (!names.empty() && id > names.size())
      throw InputError(file.string(), "/domain/types", "boundary id " + std::to_string(id) + " has no name: the file's "
                                                       "boundary_names lists " + std::to_string(names.size()) + " parts");
    if (id > nodes.types.size())
      throw InputError(file.string(), "/domain/types", "boundary id " + std::to_string(id) + " is above the node count");
  }
}

}  // namespace

std::vector<std::string> stored_part_names(const std::filesystem::path& file, const io::RunMetadata& metadata) {
  const std::string* text = io::find_string(metadata, "boundary_names");
  if (text == nullptr) return {};
  const nlohmann::json names = nlohmann::json::parse(*text, nullptr, false);
  bool strings = names.is_array();
  for (std::size_t i = 0; strings && i < names.size(); ++i) strings = names[i].is_string();
  if (!strings) throw InputError(file.string(), "/domain boundary_names", "not a JSON array of strings");
  return names.get<std::vector<std::string>>();
}

void check_stored_nodes(const std::filesystem::path& file, const io::NodeArrays& nodes,
                        const std::vector<std::string>& names) {
  check_spacing_values(file, nodes);
  check_normals(file, nodes);
  check_boundary_ids(file, nodes, names);
}

}  // namespace nodegen
