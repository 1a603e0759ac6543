// read_nodes (nodegen.hpp): an output file back as Nodes, its h, part names and spacing factor from
// the file.
#include <nlohmann/json.hpp>
#include <string>

#include "api/api_state.hpp"
#include "nodegen/io/hdf5_reader.hpp"

namespace nodegen {
namespace {

template <int D>
std::vector<Vec<D>> points_of(const std::vector<double>& interleaved) {
  std::vector<Vec<D>> out(interleaved.size() / D);
  for (std::size_t i = 0; i < out.size(); ++i)
    for (int k = 0; k < D; ++k) out[i][k] = interleaved[i * D + static_cast<std::size_t>(k)];
  return out;
}

// The part names the file records (boundary_names, a JSON array of strings); none when absent or
// unreadable (a file Medusa wrote).
std::vector<std::string> part_names_of(const io::RunMetadata& metadata) {
  const std::string* text = io::find_string(metadata, "boundary_names");
  if (!text) return {};
  const nlohmann::json names = nlohmann::json::parse(*text, nullptr, false);
  std::vector<std::string> out;
  if (!names.is_array()) return out;
  for (const auto& name : names)
    if (name.is_string()) out.push_back(name.get<std::string>());
  return out;
}

template <int D>
Nodes<D> nodes_of(io::StoredDiscretization stored) {
  io::NodeArrays& nodes = stored.nodes;
  auto out = std::make_shared<api_detail::FilledNodes<D>>();
  out->nodes.positions = points_of<D>(nodes.positions);
  out->nodes.types.assign(nodes.types.begin(), nodes.types.end());
  out->nodes.bmap.assign(nodes.bmap.begin(), nodes.bmap.end());
  out->nodes.normals = points_of<D>(nodes.normals);
  out->nodes.boundary_count = out->nodes.normals.size();
  out->h = std::move(nodes.h);
  out->supports = std::move(nodes.supports);
  out->support_size = static_cast<int>(nodes.support_size);
  out->part_names = part_names_of(stored.metadata);
  if (const double* factor = io::find_double(stored.metadata, "spacing_factor")) out->spacing_factor = *factor;
  if (const double* seconds = io::find_double(stored.metadata, "fill_seconds")) out->nodes.fill_seconds = *seconds;
  out->metadata = std::move(stored.metadata);
  return Nodes<D>(std::move(out));
}

io::StoredDiscretization stored_nodes(const std::filesystem::path& h5_file) {
  return api_detail::translating_errors([&] { return io::read_hdf5(h5_file); });
}

}  // namespace

template <int D>
Nodes<D> read_nodes(const std::filesystem::path& h5_file) {
  io::StoredDiscretization stored = stored_nodes(h5_file);
  if (stored.nodes.dim != D)
    throw Error(InputError(h5_file.string(), "/domain/pos",
                           "holds " + std::to_string(stored.nodes.dim) + "D nodes; read_nodes<" + std::to_string(D) +
                               "> reads " + std::to_string(D) + "D ones")
                    .what());
  return nodes_of<D>(std::move(stored));
}

std::variant<Nodes<2>, Nodes<3>> read_any_nodes(const std::filesystem::path& h5_file) {
  io::StoredDiscretization stored = stored_nodes(h5_file);
  if (stored.nodes.dim == 2) return nodes_of<2>(std::move(stored));
  return nodes_of<3>(std::move(stored));
}

template Nodes<2> read_nodes<2>(const std::filesystem::path&);
template Nodes<3> read_nodes<3>(const std::filesystem::path&);

}  // namespace nodegen
