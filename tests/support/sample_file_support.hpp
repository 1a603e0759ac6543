#pragma once
// Spacing samples for the tests: sets of positions and values made from a function, and HDF5 files of
// them in the layouts a domain file's {"samples": FILE, "values": DATASET} reads (io/sample_file.hpp),
// written with the HDF5 C API.
#include <hdf5.h>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace nodegen::test {

struct SampleSet {
  int dim = 2;
  std::vector<double> positions;  // N x dim, interleaved
  std::vector<double> values;     // N
  std::size_t size() const { return values.size(); }
};

// Writes `values` (row-major, of shape `dims`) as the dataset `name` of 64-bit floats into `file`,
// which is created when it does not exist and else opened for writing; groups on the way are made.
// Returns whether every HDF5 call succeeded.
inline bool write_hdf5_dataset(const std::filesystem::path& file, const std::string& name,
                               const std::vector<hsize_t>& dims, const std::vector<double>& values) {
  const bool exists = std::filesystem::exists(file);
  const hid_t f = exists ? H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT)
                         : H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (f < 0) return false;
  const hid_t links = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(links, 1);
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t set = H5Dcreate2(f, name.c_str(), H5T_IEEE_F64LE, space, links, H5P_DEFAULT, H5P_DEFAULT);
  bool ok = set >= 0;
  if (ok && !values.empty()) ok = H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0;
  if (set >= 0) H5Dclose(set);
  H5Sclose(space);
  H5Pclose(links);
  return H5Fclose(f) >= 0 && ok;
}

// The samples as any tool writes them: positions {N, d} at `positions`, values {N} at `values`.
inline bool write_sample_rows(const std::filesystem::path& file, const SampleSet& s,
                              const std::string& positions = "/positions", const std::string& values = "/values") {
  const auto n = static_cast<hsize_t>(s.size());
  return write_hdf5_dataset(file, positions, {n, static_cast<hsize_t>(s.dim)}, s.positions) &&
         write_hdf5_dataset(file, values, {n}, s.values);
}

// The samples as nodegen's output holds nodes: positions {d, N} at /domain/pos, values {N} at `values`.
inline bool write_sample_nodes(const std::filesystem::path& file, const SampleSet& s, const std::string& values) {
  const std::size_t n = s.size(), d = static_cast<std::size_t>(s.dim);
  std::vector<double> rows(n * d);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < d; ++k) rows[k * n + i] = s.positions[i * d + k];
  return write_hdf5_dataset(file, "/domain/pos", {static_cast<hsize_t>(d), static_cast<hsize_t>(n)}, rows) &&
         write_hdf5_dataset(file, values, {static_cast<hsize_t>(n)}, s.values);
}

// f at the points of a grid of `per_side` points a side over [lo, hi]^dim.
inline SampleSet grid_samples(int dim, int per_side, double lo, double hi,
                              const std::function<double(double, double, double)>& f) {
  SampleSet s;
  s.dim = dim;
  const int nz = dim == 3 ? per_side : 1;
  auto at = [&](int i) { return lo + (hi - lo) * i / (per_side - 1); };
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < per_side; ++j)
      for (int i = 0; i < per_side; ++i) {
        const double x = at(i), y = at(j), z = dim == 3 ? at(k) : 0.0;
        s.positions.insert(s.positions.end(), {x, y});
        if (dim == 3) s.positions.push_back(z);
        s.values.push_back(f(x, y, z));
      }
  return s;
}

}  // namespace nodegen::test
