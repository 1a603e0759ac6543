#pragma once
// The report `nodegen stats` gives of a node set, for the command and the in-process API alike: the
// quality figures (io/quality.hpp: nearest-neighbour distance / h, packing density, holes), the nodes
// of each boundary part and the fingerprint. Packing and holes need the domain the nodes were filled
// from, rebuilt from the domain file text their metadata keeps; without it the report says why.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nodegen/io/node_arrays.hpp"
#include "nodegen/io/quality.hpp"

namespace nodegen {

struct NodeReport {
  struct Part {
    std::string name;
    std::size_t nodes = 0;
  };
  io::QualityReport quality;
  std::string fingerprint;  // nodes_sha256
  std::vector<Part> parts;  // by boundary id (index id - 1), named where the metadata names them
  bool with_domain = false; // packing density and holes measured
  // Why packing and holes are missing or less precise, one line each ("nodegen: warning: ...").
  std::vector<std::string> warnings;

  // `nodegen stats --json`'s object.
  nlohmann::json to_json(const std::filesystem::path& file, int dim) const;
};

// The report of `nodes` (with their metadata) as stored in `file`, which names them in errors:
// InputError for h missing, coincident nodes, and whatever check_stored_nodes refuses (stored_nodes.hpp:
// h not positive, normals not unit, boundary ids without a name). samples = 0
// picks the default (max(1e5, N), at most 1e7) random points for the holes and the measure.
NodeReport node_report(const std::filesystem::path& file, const io::NodeArrays& nodes, const io::RunMetadata& metadata,
                       std::size_t samples, int threads);

}  // namespace nodegen
