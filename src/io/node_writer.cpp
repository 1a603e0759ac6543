#include "nodegen/io/node_writer.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "nodegen/io/layout.hpp"
#include "nodegen/io/output_error.hpp"

namespace nodegen::io::detail {

void WriterTeam::agree(const std::filesystem::path& shown, const std::string& failure) const {
  agree(failure.empty() ? std::exception_ptr() : std::make_exception_ptr(InputError(shown.string(), "output", failure)));
}

namespace {

std::size_t blocks(std::size_t n) { return (n + kWriteBlock - 1) / kWriteBlock; }

// The local range of block b of n local elements (empty past the end: a writer with fewer rows still
// takes part in every collective write).
std::pair<std::size_t, std::size_t> block_range(std::size_t b, std::size_t n) {
  const std::size_t first = std::min(n, b * kWriteBlock);
  return {first, std::min(kWriteBlock, n - first)};
}

}  // namespace

NodeWriter::NodeWriter(H5Handle file, const FileSlabs& slabs, const WriterTeam& team, const std::filesystem::path& shown,
                       NodesFingerprint* fingerprint)
    : file_(std::move(file)),
      slabs_(slabs),
      team_(team),
      shown_(shown),
      fingerprint_(fingerprint),
      node_rounds_(team.max(blocks(slabs.nodes.local_count()))),
      normal_rounds_(team.max(blocks(slabs.normals.local_count()))) {}

std::uint64_t NodeWriter::file_bytes_bound(const FileSlabs& slabs, int dim, const RunMetadata& metadata) {
  const auto d = static_cast<std::uint64_t>(dim);
  // /domain: pos, h (8 B), types, bmap and one int32 array such as partition (4 B); /paraview: points
  // and normals as three float32, connectivity as int32.
  const std::uint64_t per_node = 8 * d + 8 + 3 * 4 + 2 * 12 + 4;
  std::uint64_t bytes = per_node * slabs.node_total + 8 * d * slabs.normal_total;
  for (const auto& [name, value] : metadata) {
    const auto* text = std::get_if<std::string>(&value);
    bytes += name.size() + (text ? text->size() : 8) + 256;  // value, name, and an attribute's header
  }
  return bytes + (std::uint64_t{64} << 10);  // superblock, groups, dataset headers, heaps, with room to spare
}

void NodeWriter::check_consistent(const NodeArraysView& nodes, const FileSlabs& slabs, const WriterTeam& team,
                                  const std::filesystem::path& shown) {
  std::string failure;
  const auto n = nodes.node_count();
  const auto dim = static_cast<std::size_t>(nodes.dim);
  if (nodes.dim != 2 && nodes.dim != 3) throw std::invalid_argument("write_hdf5: dim must be 2 or 3");
  if (nodes.positions.size() != n * dim || nodes.bmap.size() != n || nodes.normals.size() % dim != 0 ||
      slabs.nodes.local_count() != n || slabs.normals.local_count() != nodes.boundary_count())
    throw std::invalid_argument("write_hdf5: array sizes do not match the node count");
  // Medusa reads N and the bmap rows as int32 (docs/output-format.md).
  if (slabs.node_total > static_cast<std::size_t>(INT32_MAX))
    failure = std::to_string(slabs.node_total) + " nodes: more than the 2^31 - 1 nodes Medusa's int32 indexes address";
  if (!nodes.spacing_at) throw std::invalid_argument("write_hdf5: spacing_at is not set");
  if (nodes.supports.size() != n * nodes.support_size || nodes.support_size > slabs.node_total)
    throw std::invalid_argument("write_hdf5: supports do not hold support_size rows per node");
  for (std::size_t i = 0; i < n && failure.empty(); ++i) {
    const std::int32_t row = nodes.bmap[i];
    if ((nodes.types[i] < 0) != (row >= 0) || (row >= 0 && !slabs.normals.local_of(static_cast<std::size_t>(row))))
      throw std::invalid_argument("write_hdf5: types, bmap and normals are inconsistent at node " + std::to_string(i));
  }
  team.agree(shown, failure);
}

H5Handle NodeWriter::group(const char* name) {
  // Track attribute creation order, so readers list the run metadata in the order it was written.
  H5Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
  ensure(H5Pset_attr_creation_order(gcpl.get(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0,
         "HDF5 failed writing group properties");
  H5Handle g(H5Gcreate2(file_.get(), name, H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose);
  ensure(g.valid(), std::string("cannot create group ") + name);
  return g;
}

H5Handle NodeWriter::dataset(const char* name, hid_t file_type, std::initializer_list<hsize_t> dims) {
  std::vector<hsize_t> d(dims);
  H5Handle space(H5Screate_simple(static_cast<int>(d.size()), d.data(), nullptr), H5Sclose);
  ensure(space.valid(), std::string("cannot make the dataspace of ") + name);
  H5Handle set(H5Dcreate2(file_.get(), name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  ensure(set.valid(), std::string("cannot create dataset ") + name);
  return set;
}

void NodeWriter::write_rows(const H5Handle& set, const RowRuns& runs, int row, hsize_t width, hid_t mem_type,
                            const void* data, std::size_t first, std::size_t len, const char* what) {
  struct Piece {
    std::size_t file_row, local, count;
  };
  std::vector<Piece> pieces;
  runs.for_each_piece(first, len, [&](std::size_t file_row, std::size_t local, std::size_t count) {
    pieces.push_back({file_row, local, count});
  });
  // HDF5 pairs the elements of the memory and the file selections in increasing offset order, not in
  // the order the pieces were selected: a block whose pieces lie in the file in another order than
  // locally (a rank holding its interior rows before its boundary rows) is written from a reordered copy.
  const std::size_t value_bytes = H5Tget_size(mem_type) * std::max<hsize_t>(width, 1);
  std::vector<unsigned char> reordered;
  auto by_file_row = [](const Piece& a, const Piece& b) { return a.file_row < b.file_row; };
  if (!std::is_sorted(pieces.begin(), pieces.end(), by_file_row)) {
    std::sort(pieces.begin(), pieces.end(), by_file_row);
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (const Piece& p : pieces)
      reordered.insert(reordered.end(), bytes + (p.local - first) * value_bytes,
                       bytes + (p.local - first + p.count) * value_bytes);
    data = reordered.data();
  }
  H5Handle fspace(H5Dget_space(set.get()), H5Sclose);
  bool ok = fspace.valid() && H5Sselect_none(fspace.get()) >= 0;
  for (const Piece& p : pieces) {
    std::vector<hsize_t> start, extent;
    if (row >= 0) start = {static_cast<hsize_t>(row), p.file_row}, extent = {1, p.count};
    else if (width > 0) start = {p.file_row, 0}, extent = {p.count, width};
    else start = {p.file_row}, extent = {p.count};
    ok = ok && H5Sselect_hyperslab(fspace.get(), H5S_SELECT_OR, start.data(), nullptr, extent.data(), nullptr) >= 0;
  }
  const hsize_t elements = std::max<hsize_t>(1, len * std::max<hsize_t>(width, 1));
  H5Handle mspace(H5Screate_simple(1, &elements, nullptr), H5Sclose);
  ok = ok && mspace.valid() && (len > 0 || H5Sselect_none(mspace.get()) >= 0);
  static const double dummy = 0;  // HDF5 refuses a null buffer even for an empty selection
  ok = ok && H5Dwrite(set.get(), mem_type, mspace.get(), fspace.get(), team_.transfer(), len ? data : &dummy) >= 0;
  ensure(ok, std::string("HDF5 failed writing ") + what + " (disk full, or over a file size limit?)");
}

// Interleaved (x0 y0 x1 y1 ...) -> the transposed {dim, total} dataset, one coordinate row at a time.
void NodeWriter::write_transposed(const char* name, std::span<const double> interleaved, int dim, const RowRuns& runs,
                                  std::size_t total, NodesFingerprint::Array array) {
  const std::size_t n = runs.local_count();
  const std::size_t rounds = &runs == &slabs_.nodes ? node_rounds_ : normal_rounds_;
  H5Handle set = dataset(name, H5T_IEEE_F64LE, {static_cast<hsize_t>(dim), total});
  std::vector<double> row(std::min(n, kWriteBlock));
  for (int k = 0; k < dim; ++k) {
    for (std::size_t b = 0; b < rounds; ++b) {
      const auto [first, len] = block_range(b, n);
      for (std::size_t i = 0; i < len; ++i)
        row[i] = interleaved[(first + i) * static_cast<std::size_t>(dim) + static_cast<std::size_t>(k)];
      write_rows(set, runs, k, 0, H5T_NATIVE_DOUBLE, row.data(), first, len, name);
      add_to_fingerprint(array, row.data(), len * sizeof(double));
    }
  }
}

void NodeWriter::write_int32(const char* name, std::span<const std::int32_t> values, NodesFingerprint::Array array) {
  H5Handle set = dataset(name, H5T_STD_I32LE, {slabs_.node_total});
  for (std::size_t b = 0; b < node_rounds_; ++b) {
    const auto [first, len] = block_range(b, values.size());
    write_rows(set, slabs_.nodes, -1, 0, H5T_NATIVE_INT32, values.data() + first, first, len, name);
    add_to_fingerprint(array, values.data() + first, len * sizeof(std::int32_t));
  }
}

void NodeWriter::write_node_int32(const char* name, std::span<const std::int32_t> values) {
  write_int32(name, values, NodesFingerprint::kArrays);
}

void NodeWriter::write_spacing(const NodeArraysView& nodes) {
  const std::size_t n = nodes.node_count();
  H5Handle set = dataset(layout::h, H5T_IEEE_F64LE, {slabs_.node_total});
  std::vector<double> block(std::min(n, kWriteBlock));
  for (std::size_t b = 0; b < node_rounds_; ++b) {
    const auto [first, len] = block_range(b, n);
    std::exception_ptr failure;
    try {
      if (len) nodes.spacing_at(first, std::span<double>(block.data(), len));
    } catch (...) {
      failure = std::current_exception();  // agreed before the collective write: nobody waits in it
    }
    team_.agree(failure);
    write_rows(set, slabs_.nodes, -1, 0, H5T_NATIVE_DOUBLE, block.data(), first, len, layout::h);
    add_to_fingerprint(NodesFingerprint::h, block.data(), len * sizeof(double));
  }
}

void NodeWriter::write_domain(const NodeArraysView& nodes, const RunMetadata& metadata) {
  {
    H5Handle domain = group(layout::domain_group);
    write_count_attribute(domain.get(), slabs_.node_total);
    for (const auto& [name, value] : metadata) write_attribute(domain.get(), name, value);
  }
  write_transposed(layout::pos, nodes.positions, nodes.dim, slabs_.nodes, slabs_.node_total, NodesFingerprint::pos);
  write_int32(layout::types, nodes.types, NodesFingerprint::types);
  write_int32(layout::bmap, nodes.bmap, NodesFingerprint::bmap);
  write_transposed(layout::normals, nodes.normals, nodes.dim, slabs_.normals, slabs_.normal_total,
                   NodesFingerprint::normals);
  write_spacing(nodes);
  if (nodes.support_size > 0) write_supports(nodes);
}

// /domain/supports {N, k}, block by block as int32 (rows below 2^31, as bmap's).
void NodeWriter::write_supports(const NodeArraysView& nodes) {
  const std::size_t n = nodes.node_count(), k = nodes.support_size;
  H5Handle set = dataset(layout::supports, H5T_STD_I32LE, {slabs_.node_total, k});
  std::vector<std::int32_t> block(std::min(n, kWriteBlock) * k);
  for (std::size_t b = 0; b < node_rounds_; ++b) {
    const auto [first, len] = block_range(b, n);
    for (std::size_t i = 0; i < len * k; ++i) block[i] = static_cast<std::int32_t>(nodes.supports[first * k + i]);
    write_rows(set, slabs_.nodes, -1, k, H5T_NATIVE_INT32, block.data(), first, len, layout::supports);
  }
}

// The display copies of /paraview (layout.hpp says why they exist), block by block: float32
// positions padded to 3 components, the identity connectivity, and per-node normals through bmap.
void NodeWriter::write_display_arrays(const NodeArraysView& nodes) {
  group(layout::paraview_group);
  const std::size_t n = nodes.node_count();
  const auto dim = static_cast<std::size_t>(nodes.dim);
  H5Handle points = dataset(layout::paraview_points, H5T_IEEE_F32LE, {slabs_.node_total, 3});
  H5Handle connectivity = dataset(layout::paraview_connectivity, H5T_STD_I32LE, {slabs_.node_total});
  H5Handle normal = dataset(layout::paraview_normal, H5T_IEEE_F32LE, {slabs_.node_total, 3});
  const std::size_t cap = std::min(n, kWriteBlock);
  std::vector<float> xyz(3 * cap), nrm(3 * cap);
  std::vector<std::int32_t> ids(cap);
  for (std::size_t b = 0; b < node_rounds_; ++b) {
    const auto [first, len] = block_range(b, n);
    std::fill(xyz.begin(), xyz.end(), 0.0f);
    std::fill(nrm.begin(), nrm.end(), 0.0f);
    for (std::size_t i = 0; i < len; ++i) {
      ids[i] = static_cast<std::int32_t>(slabs_.nodes.file_row(first + i));
      for (std::size_t k = 0; k < dim; ++k) xyz[3 * i + k] = static_cast<float>(nodes.positions[(first + i) * dim + k]);
      const std::int32_t row = nodes.bmap[first + i];
      if (row < 0) continue;
      const std::size_t local = *slabs_.normals.local_of(static_cast<std::size_t>(row));  // check_consistent
      for (std::size_t k = 0; k < dim; ++k) nrm[3 * i + k] = static_cast<float>(nodes.normals[local * dim + k]);
    }
    write_rows(points, slabs_.nodes, -1, 3, H5T_NATIVE_FLOAT, xyz.data(), first, len, layout::paraview_points);
    write_rows(connectivity, slabs_.nodes, -1, 0, H5T_NATIVE_INT32, ids.data(), first, len, layout::paraview_connectivity);
    write_rows(normal, slabs_.nodes, -1, 3, H5T_NATIVE_FLOAT, nrm.data(), first, len, layout::paraview_normal);
  }
}

void NodeWriter::write_attribute(hid_t owner, const std::string& name, const MetadataValue& value) {
  H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Handle attr;
  bool ok = space.valid();
  if (const auto* s = std::get_if<std::string>(&value)) {
    // Fixed-length, null-terminated string, as Medusa's HDF::writeStringAttribute makes them
    // (HDF5 cannot store a zero-size string type, so an empty one is a lone terminator).
    H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    ok = ok && type.valid() && H5Tset_size(type.get(), std::max<std::size_t>(s->size(), 1)) >= 0;
    if (ok) attr = H5Handle(H5Acreate2(owner, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    const std::string padded = s->empty() ? std::string(1, '\0') : *s;
    ok = ok && attr.valid() && H5Awrite(attr.get(), type.get(), padded.data()) >= 0;
  } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
    attr = H5Handle(H5Acreate2(owner, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    ok = ok && attr.valid() && H5Awrite(attr.get(), H5T_NATIVE_INT64, i) >= 0;
  } else {
    const double d = std::get<double>(value);
    attr = H5Handle(H5Acreate2(owner, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    ok = ok && attr.valid() && H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &d) >= 0;
  }
  ensure(ok, "cannot write attribute " + name);
}

void NodeWriter::write_domain_attribute(const std::string& name, const MetadataValue& value) {
  H5Handle domain(H5Gopen2(file_.get(), layout::domain_group, H5P_DEFAULT), H5Gclose);
  ensure(domain.valid(), "cannot reopen /domain");
  write_attribute(domain.get(), name, value);
}

void NodeWriter::write_count_attribute(hid_t owner, std::size_t n) {
  // int32, as Medusa writes N (check_consistent refused more nodes than that).
  const auto value = static_cast<std::int32_t>(n);
  H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
  H5Handle attr(H5Acreate2(owner, layout::count_attribute, H5T_STD_I32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                H5Aclose);
  ensure(attr.valid() && H5Awrite(attr.get(), H5T_NATIVE_INT32, &value) >= 0, "cannot write attribute N");
}

// Closing flushes the metadata: its failure (e.g. a full disk) must fail the write.
void NodeWriter::close() {
  ensure(H5Fclose(file_.release()) >= 0, "HDF5 failed writing the file on close (disk full, or over a file size limit?)");
}

std::string stored_nodes_sha256(hid_t file, const std::filesystem::path& shown) {
  auto fail = [&](const char* name) { throw_io_error(shown, name, "cannot read it back for the fingerprint"); };
  NodesFingerprint f;
  // Each array in its stored order (a {d, N} dataset row after row), in blocks of kWriteBlock values.
  auto hash = [&](const char* name, hid_t mem_type, std::size_t value_size, NodesFingerprint::Array array) {
    H5Handle set(H5Dopen2(file, name, H5P_DEFAULT), H5Dclose);
    if (!set) fail(name);
    H5Handle fspace(H5Dget_space(set.get()), H5Sclose);
    const hssize_t total = fspace ? H5Sget_simple_extent_npoints(fspace.get()) : -1;
    if (total < 0) fail(name);
    const int rank = H5Sget_simple_extent_ndims(fspace.get());
    std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 1)), 0);
    H5Sget_simple_extent_dims(fspace.get(), dims.data(), nullptr);
    const hsize_t rows = rank == 2 ? dims[0] : 1, cols = rank == 2 ? dims[1] : static_cast<hsize_t>(total);
    std::vector<unsigned char> buffer(kWriteBlock * value_size);
    for (hsize_t r = 0; r < rows; ++r)
      for (hsize_t first = 0; first < cols; first += kWriteBlock) {
        const hsize_t len = std::min<hsize_t>(kWriteBlock, cols - first);
        std::vector<hsize_t> start = rank == 2 ? std::vector<hsize_t>{r, first} : std::vector<hsize_t>{first};
        std::vector<hsize_t> count = rank == 2 ? std::vector<hsize_t>{1, len} : std::vector<hsize_t>{len};
        H5Handle mspace(H5Screate_simple(1, &len, nullptr), H5Sclose);
        if (H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr) < 0 ||
            H5Dread(set.get(), mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, buffer.data()) < 0)
          fail(name);
        f.add(array, buffer.data(), len * value_size);
      }
  };
  hash(layout::pos, H5T_NATIVE_DOUBLE, sizeof(double), NodesFingerprint::pos);
  hash(layout::types, H5T_NATIVE_INT32, sizeof(std::int32_t), NodesFingerprint::types);
  hash(layout::bmap, H5T_NATIVE_INT32, sizeof(std::int32_t), NodesFingerprint::bmap);
  hash(layout::normals, H5T_NATIVE_DOUBLE, sizeof(double), NodesFingerprint::normals);
  hash(layout::h, H5T_NATIVE_DOUBLE, sizeof(double), NodesFingerprint::h);
  return f.finish();
}

}  // namespace nodegen::io::detail
