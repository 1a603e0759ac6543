#include "nodegen/io/hdf5_reader.hpp"

#include <hdf5.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "hdf5_handle.hpp"
#include "nodegen/io/layout.hpp"
#include "output_error.hpp"

namespace nodegen::io {

namespace {

using detail::H5Handle;

class Reader {
 public:
  explicit Reader(std::filesystem::path file) : path_(std::move(file)) {
    std::error_code ec;
    if (!std::filesystem::exists(path_, ec)) fail("file", "does not exist");
    if (H5Fis_hdf5(path_.c_str()) <= 0) fail("file", "not an HDF5 file");
    file_ = H5Handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file_) fail("file", "cannot open it");
  }

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    detail::throw_io_error(path_, field, reason);
  }

  bool has(const char* name) const {
    // Check every link of the path: H5Lexists fails on a missing intermediate group.
    std::string p(name);
    for (std::size_t pos = p.find('/', 1);; pos = p.find('/', pos + 1)) {
      const std::string prefix = p.substr(0, pos);
      if (H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT) <= 0) return false;
      if (pos == std::string::npos) return true;
    }
  }

  // The dims of a dataset plus its contents converted to T.
  template <class T>
  std::vector<T> read(const char* name, hid_t mem_type, std::vector<hsize_t>& dims) const {
    if (!has(name)) fail(name, "missing");
    H5Handle set(H5Dopen2(file_.get(), name, H5P_DEFAULT), H5Dclose);
    if (!set) fail(name, "not a dataset");
    H5Handle space(H5Dget_space(set.get()), H5Sclose);
    const int rank = H5Sget_simple_extent_ndims(space.get());
    if (rank < 1) fail(name, "not an array");
    dims.assign(static_cast<std::size_t>(rank), 0);
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    hsize_t total = 1;
    for (hsize_t d : dims) total *= d;
    std::vector<T> values(total);
    if (total > 0 && H5Dread(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
      fail(name, "cannot read it (wrong type?)");
    return values;
  }

  // A {dim, n} transposed dataset -> interleaved n x dim.
  std::vector<double> read_transposed(const char* name, int& dim, std::size_t& n) const {
    std::vector<hsize_t> dims;
    std::vector<double> rows = read<double>(name, H5T_NATIVE_DOUBLE, dims);
    if (dims.size() != 2) fail(name, "expected a 2D array of shape {dim, count}");
    dim = static_cast<int>(dims[0]);
    n = dims[1];
    std::vector<double> interleaved(rows.size());
    for (std::size_t k = 0; k < dims[0]; ++k)
      for (std::size_t i = 0; i < n; ++i) interleaved[i * dims[0] + k] = rows[k * n + i];
    return interleaved;
  }

  std::vector<std::int32_t> read_int_vector(const char* name, std::size_t expected) const {
    std::vector<hsize_t> dims;
    auto values = read<std::int32_t>(name, H5T_NATIVE_INT32, dims);
    if (dims.size() != 1 || dims[0] != expected)
      fail(name, "expected " + std::to_string(expected) + " values, one per node");
    return values;
  }

  RunMetadata attributes(const char* group_name) const {
    H5Handle group(H5Gopen2(file_.get(), group_name, H5P_DEFAULT), H5Gclose);
    if (!group) fail(group_name, "missing group");
    RunMetadata out;
    H5O_info_t info;
    H5Oget_info(group.get(), &info);
    for (hsize_t i = 0; i < info.num_attrs; ++i) {
      H5Handle attr(H5Aopen_by_idx(group.get(), ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT),
                    H5Aclose);
      if (!attr) attr = H5Handle(H5Aopen_by_idx(group.get(), ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (!attr) continue;
      const ssize_t name_len = H5Aget_name(attr.get(), 0, nullptr);
      std::string name(static_cast<std::size_t>(name_len), '\0');
      H5Aget_name(attr.get(), name.size() + 1, name.data());
      if (name == layout::count_attribute) continue;
      H5Handle type(H5Aget_type(attr.get()), H5Tclose);
      switch (H5Tget_class(type.get())) {
        case H5T_STRING: {
          if (H5Tis_variable_str(type.get()) > 0) continue;  // we only write fixed-length strings
          std::string value(H5Tget_size(type.get()), '\0');
          H5Aread(attr.get(), type.get(), value.data());
          value.resize(std::strlen(value.c_str()));  // drop the null padding
          out.emplace_back(name, value);
          break;
        }
        case H5T_INTEGER: {
          std::int64_t value = 0;
          H5Aread(attr.get(), H5T_NATIVE_INT64, &value);
          out.emplace_back(name, value);
          break;
        }
        case H5T_FLOAT: {
          double value = 0;
          H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &value);
          out.emplace_back(name, value);
          break;
        }
        default:
          break;
      }
    }
    return out;
  }

 private:
  std::filesystem::path path_;
  H5Handle file_;
};

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
    nodes.h = r.read<double>(layout::h, H5T_NATIVE_DOUBLE, dims);
    if (dims.size() != 1 || dims[0] != n) r.fail(layout::h, "expected one value per node");
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
  v.normals = normals;
  const std::vector<double>* spacing = &h;
  v.spacing_at = [spacing](std::size_t first, std::span<double> out) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = first + i < spacing->size() ? (*spacing)[first + i] : 0.0;
  };
  return v;
}

}  // namespace nodegen::io
