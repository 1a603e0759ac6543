#pragma once
// Node sets for the writer's tests (tests/io/test_hdf5_writer.cpp, tests/mpi/).
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "nodegen/io/node_arrays.hpp"

namespace nodegen::testing {

using io::NodeArrays;

// A random node set with the fill's conventions: boundary first (types -id, bmap rows), then interior.
inline NodeArrays make_nodes(int dim, std::size_t boundary, std::size_t interior, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-3.0, 5.0);
  NodeArrays a;
  a.dim = dim;
  const std::size_t n = boundary + interior;
  for (std::size_t i = 0; i < n * static_cast<std::size_t>(dim); ++i) a.positions.push_back(u(rng));
  for (std::size_t i = 0; i < n; ++i) {
    const bool on_boundary = i < boundary;
    a.types.push_back(on_boundary ? -static_cast<std::int32_t>(1 + i % 4) : 1);
    a.bmap.push_back(on_boundary ? static_cast<std::int32_t>(i) : -1);
    a.h.push_back(0.01 + 0.001 * static_cast<double>(i % 17));
  }
  for (std::size_t i = 0; i < boundary; ++i) {
    double norm2 = 0;
    std::vector<double> v(static_cast<std::size_t>(dim));
    for (auto& c : v) {
      c = u(rng) + 0.1;
      norm2 += c * c;
    }
    for (auto c : v) a.normals.push_back(c / std::sqrt(norm2));
  }
  return a;
}

}  // namespace nodegen::testing
