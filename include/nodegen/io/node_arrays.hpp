#pragma once
// What the io layer writes and reads: a discretization as flat arrays, independent of the fill's
// Eigen types so the writer, the reader and the quality report compile without the fill.
//
// Positions and normals are interleaved per node (x0 y0 [z0] x1 y1 ...), which is exactly the memory
// layout of a std::vector<Vec<D>> (fixed-size Eigen vectors of 2 or 3 doubles have no padding), so the
// CLI views the fill's vectors without copying them.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace nodegen::io {

// A read-only view of one discretization, in Medusa's conventions: boundary nodes have type
// -boundary_id and bmap = their row in `normals`; interior nodes have type > 0 and bmap = -1.
struct NodeArraysView {
  int dim = 2;
  std::span<const double> positions;   // node_count() * dim, interleaved
  std::span<const std::int32_t> types;  // one per node
  std::span<const std::int32_t> bmap;   // one per node
  std::span<const double> normals;     // boundary_count * dim, interleaved, outward unit
  // Fills out[i] = h(node first + i). Called block by block while writing, so a full array of h
  // never needs to exist; the CLI evaluates the Spacing in parallel inside it.
  std::function<void(std::size_t first, std::span<double> out)> spacing_at;
  // The k nearest nodes of every node (support_size a node, rows into the whole), or none.
  std::span<const std::int64_t> supports;
  std::size_t support_size = 0;

  std::size_t node_count() const { return types.size(); }
  std::size_t boundary_count() const { return dim > 0 ? normals.size() / static_cast<std::size_t>(dim) : 0; }
};

// The same data owned, as the reader returns it (h read back from the file).
struct NodeArrays {
  int dim = 2;
  std::vector<double> positions;
  std::vector<std::int32_t> types;
  std::vector<std::int32_t> bmap;
  std::vector<double> normals;
  std::vector<double> h;
  std::vector<std::int64_t> supports;  // support_size a node, when the file has /domain/supports
  std::size_t support_size = 0;

  std::size_t node_count() const { return types.size(); }
  std::size_t boundary_count() const { return dim > 0 ? normals.size() / static_cast<std::size_t>(dim) : 0; }
  double coord(std::size_t node, int axis) const {
    return positions[node * static_cast<std::size_t>(dim) + static_cast<std::size_t>(axis)];
  }
  // A view for writing it out again (h served from the owned array).
  NodeArraysView view() const;
};

// Run metadata stored as attributes of /domain: name -> string, integer or floating value.
using MetadataValue = std::variant<std::string, std::int64_t, double>;
using RunMetadata = std::vector<std::pair<std::string, MetadataValue>>;

// Now, as the metadata's created_utc holds it: "2026-12-06T10:36:00Z".
std::string utc_timestamp();

}  // namespace nodegen::io
