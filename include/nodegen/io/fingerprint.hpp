#pragma once
// nodes_sha256: one hex string that names the nodes of an output, so two runs are compared at a glance
// (`nodegen run` prints it, `nodegen stats` recomputes it from any file).
//
// Definition (docs/output-format.md): each of the five /domain arrays is hashed with SHA-256 over its
// bytes as stored (little-endian; pos and normals in their transposed {d, N} layout: every x, then
// every y [, then every z]), in the order pos, types, bmap, normals, h; the fingerprint is the SHA-256
// of the text "nodegen-nodes-v1" followed by the five 32-byte digests. Hashing the arrays separately
// lets the writer feed each one as it streams it to the file, in whatever order it writes them.
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>

#include "nodegen/io/node_arrays.hpp"

namespace nodegen::io {

class NodesFingerprint {
 public:
  enum Array { pos = 0, types, bmap, normals, h, kArrays };

  NodesFingerprint();
  ~NodesFingerprint();
  NodesFingerprint(const NodesFingerprint&) = delete;
  NodesFingerprint& operator=(const NodesFingerprint&) = delete;

  // Appends the next bytes of one array, in the array's stored order.
  void add(Array array, const void* data, std::size_t bytes);
  // The fingerprint as 64 lowercase hex digits; ends the hashing.
  std::string finish();

 private:
  struct Contexts;  // OpenSSL's digest contexts (src/io/fingerprint.cpp)
  std::unique_ptr<Contexts> contexts_;
};

// The fingerprint of arrays read back from a file (h from the file).
std::string nodes_sha256(const NodeArrays& nodes);
// The fingerprint of arrays in memory with their h (an empty h for a file without one).
std::string nodes_sha256(const NodeArraysView& nodes, std::span<const double> h);

}  // namespace nodegen::io
