#include "nodegen/io/hdf5_reader.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "nodegen/geometry/input_file.hpp"

#include "nodegen/io/hdf5_handle.hpp"
#include "nodegen/io/layout.hpp"
#include "nodegen/io/output_error.hpp"
#include "io/hdf5_file_reader.hpp"

namespace nodegen::io {

namespace {

using detail::H5Handle;
using Reader = detail::Hdf5FileReader;

template <class T>
const T* find_as(const RunMetadata& metadata, const std::string& name) {
  for (const auto& [key, value] : metadata)
    if (key == name) return std::get_if<T>(&value);
  return nullptr;
}

}  // namespace

StoredDiscretization read_hdf5(const std::filesystem::path& file) {
  detail::H5QuietErrors quiet;
  Reader r(file);
  StoredDiscretization out;
  NodeArrays& nodes = out.nodes;
  std::size_t n = 0;
  nodes.positions = r.read_transposed(layout::pos, nodes.dim, n);
  if (nodes.dim != 2 && nodes.dim != 3) r.fail(layout::pos, "expected 2 or 3 coordinate rows");
  for (std::size_t i = 0; i < nodes.positions.size(); ++i)
    if (!std::isfinite(nodes.positions[i]))
      r.fail(layout::pos, "node " + std::to_string(i / static_cast<std::size_t>(nodes.dim)) + " has a non-finite coordinate (" +
                              (std::isnan(nodes.positions[i]) ? "nan" : "inf") + ")");
  nodes.types = r.read_int_vector(layout::types, n);
  nodes.bmap = r.read_int_vector(layout::bmap, n);
  int normal_dim = nodes.dim;
  std::size_t nb = 0;
  nodes.normals = r.read_transposed(layout::normals, normal_dim, nb);
  if (nb > 0 && normal_dim != nodes.dim) r.fail(layout::normals, "dimension differs from pos");
  if (nb == 0) nodes.normals.clear();
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t row = nodes.bmap[i];
    if ((nodes.types[i] < 0) != (row >= 0) || (row >= 0 && static_cast<std::size_t>(row) >= nb))
      r.fail(layout::bmap, "inconsistent with types and normals at node " + std::to_string(i));
  }
  if (r.has(layout::h)) {
    std::vector<hsize_t> dims;
    nodes.h = r.read<double>(layout::h, H5T_NATIVE_DOUBLE, 1, dims);
    if (dims[0] != n) r.fail(layout::h, "expected one value per node");
  }
  if (r.has(layout::supports)) {
    std::vector<hsize_t> dims;
    const auto rows = r.read<std::int32_t>(layout::supports, H5T_NATIVE_INT32, 2, dims);
    if (dims[0] != n || dims[1] < 1 || dims[1] > n) r.fail(layout::supports, "expected {N, k} rows, k from 1 to N");
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i] < 0 || static_cast<std::size_t>(rows[i]) >= n)
        r.fail(layout::supports, "row " + std::to_string(rows[i]) + " of node " + std::to_string(i / dims[1]) +
                                     " is not a node");
    nodes.supports.assign(rows.begin(), rows.end());
    nodes.support_size = dims[1];
  }
  out.metadata = r.attributes(layout::domain_group);
  return out;
}

const std::string* find_string(const RunMetadata& metadata, const std::string& name) {
  return find_as<std::string>(metadata, name);
}
const std::int64_t* find_integer(const RunMetadata& metadata, const std::string& name) {
  return find_as<std::int64_t>(metadata, name);
}
const double* find_double(const RunMetadata& metadata, const std::string& name) {
  return find_as<double>(metadata, name);
}

NodeArraysView NodeArrays::view() const {
  NodeArraysView v;
  v.dim = dim;
  v.positions = positions;
  v.types = types;
  v.bmap = bmap;
  v.supports = supports;
  v.support_size = support_size;
  v.normals = normals;
  const std::vector<double>* spacing = &h;
  v.spacing_at = [spacing](std::size_t first, std::span<double> out) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = first + i < spacing->size() ? (*spacing)[first + i] : 0.0;
  };
  return v;
}

}  // namespace nodegen::io
