#include "nodegen/io/hdf5_writer.hpp"

#include <hdf5.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "hdf5_handle.hpp"
#include "nodegen/io/fingerprint.hpp"
#include "nodegen/io/layout.hpp"
#include "output_error.hpp"

namespace nodegen::io {

namespace {

using detail::H5Handle;

// Nodes per block when transposing interleaved positions into rows, evaluating h, and building the
// display arrays: bounded buffers, so writing 1e8 nodes costs a few MB beyond the nodes themselves.
constexpr std::size_t kBlock = std::size_t{1} << 16;

class Writer {
 public:
  Writer(const std::filesystem::path& file, const std::filesystem::path& shown) : shown_(shown) {
    file_ = H5Handle(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file_) fail("cannot create an HDF5 file there");
  }

  [[noreturn]] void fail(const std::string& reason) const { detail::throw_io_error(shown_, "output", reason); }
  void check(herr_t status, const char* what) const {
    if (status < 0) fail(std::string("HDF5 failed writing ") + what + " (disk full, or over a file size limit?)");
  }

  H5Handle group(const char* name) {
    // Track attribute creation order, so readers list the run metadata in the order it was written.
    H5Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    check(H5Pset_attr_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED), "group properties");
    H5Handle g(H5Gcreate2(file_.get(), name, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose);
    if (!g) fail(std::string("cannot create group ") + name);
    return g;
  }

  H5Handle dataset(const char* name, hid_t file_type, std::initializer_list<hsize_t> dims) {
    std::vector<hsize_t> d(dims);
    H5Handle space(H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr), H5Sclose);
    if (!space) fail(std::string("cannot make the dataspace of ") + name);
    H5Handle set(H5Dcreate2(file_.get(), name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 H5Dclose);
    if (!set) fail(std::string("cannot create dataset ") + name);
    return set;
  }

  // Writes `count` values of memory type `mem_type` into the hyperslab start/count of a dataset.
  void write_slab(const H5Handle& set, hid_t mem_type, const void* data, std::initializer_list<hsize_t> start,
                  std::initializer_list<hsize_t> count, const char* what) {
    std::vector<hsize_t> st(start), ct(count);
    hsize_t total = 1;
    for (hsize_t c : ct) total *= c;
    if (total == 0) return;
    H5Handle fspace(H5Dget_space(set.get()), H5Sclose);
    check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, st.data(), nullptr, ct.data(), nullptr), what);
    H5Handle mspace(H5Screate_simple(1, &total, nullptr), H5Sclose);
    check(H5Dwrite(set.get(), mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data), what);
  }

  // Interleaved (x0 y0 x1 y1 ...) -> the transposed {dim, n} dataset, one coordinate row at a time.
  void write_transposed(const char* name, std::span<const double> interleaved, int dim, NodesFingerprint::Array array) {
    const std::size_t n = interleaved.size() / static_cast<std::size_t>(dim);
    H5Handle set = dataset(name, H5T_IEEE_F64LE, {static_cast<hsize_t>(dim), n});
    std::vector<double> row(std::min(n, kBlock));
    for (int k = 0; k < dim; ++k) {
      for (std::size_t first = 0; first < n; first += kBlock) {
        const std::size_t len = std::min(kBlock, n - first);
        for (std::size_t i = 0; i < len; ++i) row[i] = interleaved[(first + i) * static_cast<std::size_t>(dim) + static_cast<std::size_t>(k)];
        write_slab(set, H5T_NATIVE_DOUBLE, row.data(), {static_cast<hsize_t>(k), first}, {1, len}, name);
        fingerprint_.add(array, row.data(), len * sizeof(double));
      }
    }
  }

  void write_int32(const char* name, std::span<const std::int32_t> values, NodesFingerprint::Array array) {
    H5Handle set = dataset(name, H5T_STD_I32LE, {values.size()});
    write_slab(set, H5T_NATIVE_INT32, values.data(), {0}, {values.size()}, name);
    fingerprint_.add(array, values.data(), values.size_bytes());
  }

  void write_spacing(const NodeArraysView& nodes) {
    const std::size_t n = nodes.node_count();
    H5Handle set = dataset(layout::h, H5T_IEEE_F64LE, {n});
    std::vector<double> block(std::min(n, kBlock));
    for (std::size_t first = 0; first < n; first += kBlock) {
      const std::size_t len = std::min(kBlock, n - first);
      nodes.spacing_at(first, std::span<double>(block.data(), len));
      write_slab(set, H5T_NATIVE_DOUBLE, block.data(), {first}, {len}, layout::h);
      fingerprint_.add(NodesFingerprint::h, block.data(), len * sizeof(double));
    }
  }

  // The display copies of /paraview (layout.hpp says why they exist), block by block: float32
  // positions padded to 3 components, the identity connectivity, and per-node normals through bmap.
  void write_display_arrays(const NodeArraysView& nodes) {
    const std::size_t n = nodes.node_count();
    const auto dim = static_cast<std::size_t>(nodes.dim);
    H5Handle points = dataset(layout::paraview_points, H5T_IEEE_F32LE, {n, 3});
    H5Handle connectivity = dataset(layout::paraview_connectivity, H5T_STD_I32LE, {n});
    H5Handle normal = dataset(layout::paraview_normal, H5T_IEEE_F32LE, {n, 3});
    const std::size_t cap = std::min(n, kBlock);
    std::vector<float> xyz(3 * cap), nrm(3 * cap);
    std::vector<std::int32_t> ids(cap);
    for (std::size_t first = 0; first < n; first += kBlock) {
      const std::size_t len = std::min(kBlock, n - first);
      std::fill(xyz.begin(), xyz.end(), 0.0f);
      std::fill(nrm.begin(), nrm.end(), 0.0f);
      for (std::size_t i = 0; i < len; ++i) {
        ids[i] = static_cast<std::int32_t>(first + i);
        for (std::size_t k = 0; k < dim; ++k) xyz[3 * i + k] = static_cast<float>(nodes.positions[(first + i) * dim + k]);
        const std::int32_t row = nodes.bmap[first + i];
        if (row < 0) continue;
        for (std::size_t k = 0; k < dim; ++k)
          nrm[3 * i + k] = static_cast<float>(nodes.normals[static_cast<std::size_t>(row) * dim + k]);
      }
      write_slab(points, H5T_NATIVE_FLOAT, xyz.data(), {first, 0}, {len, 3}, layout::paraview_points);
      write_slab(connectivity, H5T_NATIVE_INT32, ids.data(), {first}, {len}, layout::paraview_connectivity);
      write_slab(normal, H5T_NATIVE_FLOAT, nrm.data(), {first, 0}, {len, 3}, layout::paraview_normal);
    }
  }

  void write_attribute(hid_t owner, const std::string& name, const MetadataValue& value) {
    H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    if (const auto* s = std::get_if<std::string>(&value)) {
      // Fixed-length, null-terminated string, as Medusa's HDF::writeStringAttribute makes them
      // (HDF5 cannot store a zero-size string type, so an empty one is a lone terminator).
      H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
      check(H5Tset_size(type.get(), std::max<std::size_t>(s->size(), 1)), name.c_str());
      H5Handle attr(H5Acreate2(owner, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (!attr) fail("cannot create attribute " + name);
      std::string padded = s->empty() ? std::string(1, '\0') : *s;
      check(H5Awrite(attr.get(), type.get(), padded.data()), name.c_str());
    } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
      H5Handle attr(H5Acreate2(owner, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (!attr) fail("cannot create attribute " + name);
      check(H5Awrite(attr.get(), H5T_NATIVE_INT64, i), name.c_str());
    } else {
      const double d = std::get<double>(value);
      H5Handle attr(H5Acreate2(owner, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
      if (!attr) fail("cannot create attribute " + name);
      check(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &d), name.c_str());
    }
  }

  void write_count_attribute(hid_t owner, std::size_t n) {
    // int32, as Medusa writes N (bmap is int32 anyway, so larger files cannot be Medusa's).
    const auto value = static_cast<std::int32_t>(n);
    H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    H5Handle attr(H5Acreate2(owner, layout::count_attribute, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                  H5Aclose);
    if (!attr) fail("cannot create attribute N");
    check(H5Awrite(attr.get(), H5T_NATIVE_INT32, &value), "attribute N");
  }

  // The fingerprint of the /domain arrays written so far, stored as the attribute nodes_sha256 of /domain.
  std::string write_fingerprint() {
    const std::string hex = fingerprint_.finish();
    H5Handle domain(H5Gopen2(file_.get(), layout::domain_group, H5P_DEFAULT), H5Gclose);
    if (!domain) fail("cannot reopen /domain");
    write_attribute(domain.get(), layout::fingerprint_attribute, hex);
    return hex;
  }

  // Closing flushes the metadata: its failure (e.g. a full disk) must fail the write.
  void close() { check(H5Fclose(file_.release()), "the file on close"); }

 private:
  std::filesystem::path shown_;
  H5Handle file_;
  NodesFingerprint fingerprint_;
};

void check_consistent(const NodeArraysView& nodes) {
  const auto n = nodes.node_count();
  const auto dim = static_cast<std::size_t>(nodes.dim);
  if (nodes.dim != 2 && nodes.dim != 3) throw std::invalid_argument("write_hdf5: dim must be 2 or 3");
  if (nodes.positions.size() != n * dim || nodes.bmap.size() != n || nodes.normals.size() % dim != 0)
    throw std::invalid_argument("write_hdf5: array sizes do not match the node count");
  if (n > static_cast<std::size_t>(INT32_MAX)) throw std::invalid_argument("write_hdf5: more nodes than int32 indices");
  if (!nodes.spacing_at) throw std::invalid_argument("write_hdf5: spacing_at is not set");
  const auto nb = nodes.boundary_count();
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t row = nodes.bmap[i];
    if ((nodes.types[i] < 0) != (row >= 0) || (row >= 0 && static_cast<std::size_t>(row) >= nb))
      throw std::invalid_argument("write_hdf5: types, bmap and normals are inconsistent at node " + std::to_string(i));
  }
}

}  // namespace

void skip_hdf5_shutdown_at_exit() { H5dont_atexit(); }

std::string write_hdf5(const std::filesystem::path& file, const NodeArraysView& nodes, const RunMetadata& metadata,
                const std::filesystem::path& shown_name) {
  check_consistent(nodes);
  detail::H5QuietErrors quiet;
  Writer w(file, shown_name);
  {
    H5Handle domain = w.group(layout::domain_group);
    w.write_count_attribute(domain.get(), nodes.node_count());
    for (const auto& [name, value] : metadata) w.write_attribute(domain.get(), name, value);
  }
  w.write_transposed(layout::pos, nodes.positions, nodes.dim, NodesFingerprint::pos);
  w.write_int32(layout::types, nodes.types, NodesFingerprint::types);
  w.write_int32(layout::bmap, nodes.bmap, NodesFingerprint::bmap);
  w.write_transposed(layout::normals, nodes.normals, nodes.dim, NodesFingerprint::normals);
  w.write_spacing(nodes);
  const std::string fingerprint = w.write_fingerprint();
  w.group(layout::paraview_group);
  w.write_display_arrays(nodes);
  w.close();
  return fingerprint;
}

}  // namespace nodegen::io
