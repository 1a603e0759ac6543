#pragma once
// An HDF5 file opened for reading what a user hands nodegen (an output for `stats` and `solve`, the
// samples of a spacing), every dataset's rank, type and size checked against the bytes the file
// stores before anything is allocated, and every link checked to stay within the file. Problems are
// InputErrors "<file>: <dataset>: <reason>". Private to io.
#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "nodegen/geometry/input_file.hpp"
#include "nodegen/io/hdf5_handle.hpp"
#include "nodegen/io/layout.hpp"
#include "nodegen/io/node_arrays.hpp"
#include "nodegen/io/output_error.hpp"

namespace nodegen::io::detail {

class Hdf5FileReader {
 public:
  explicit Hdf5FileReader(std::filesystem::path file) : path_(std::move(file)) {
    // A FIFO or device is refused before HDF5 opens it (a FIFO blocked forever), and a path that exists
    // but cannot be followed says why (a loop of symbolic links, a folder it may not search).
    try {
      file_bytes_ = check_input_file(path_, std::numeric_limits<std::uintmax_t>::max(), "HDF5 files");
    } catch (const InputFileError& e) {
      fail("file", e.missing() ? "does not exist" : e.what());
    }
    // One it may not read is that, not "not an HDF5 file" (which is what HDF5's check answers then).
    if (const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC); fd < 0)
      fail("file", std::string("cannot read it: ") + std::strerror(errno));
    else
      ::close(fd);
    if (H5Fis_hdf5(path_.c_str()) <= 0) fail("file", "not an HDF5 file");
    file_ = H5Handle(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file_) fail("file", "cannot open it");
  }

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw_io_error(path_, field, reason);
  }

  bool has(const char* name) const {
    // Check every link of the path: H5Lexists fails on a missing intermediate group. Each must be a
    // link within this file: an external link would open another file (a FIFO there blocked).
    std::string p(name);
    if (p == "/") return true;  // the root group, which is no link
    for (std::size_t pos = p.find('/', 1);; pos = p.find('/', pos + 1)) {
      const std::string prefix = p.substr(0, pos);
      // An error (not "no such link"): HDF5 could not read the group's metadata. It sizes buffers by
      // lengths in that metadata before checking them against the file's end (a local heap claiming
      // 1 TB asked malloc for it), so such a file fails here, having touched no more than its size.
      const htri_t exists = H5Lexists(file_.get(), prefix.c_str(), H5P_DEFAULT);
      if (exists < 0) fail(prefix, "cannot read the file's metadata here (a corrupt or truncated HDF5 file)");
      if (exists == 0) return false;
      H5L_info_t info;
      if (H5Lget_info(file_.get(), prefix.c_str(), &info, H5P_DEFAULT) < 0 || info.type != H5L_TYPE_HARD)
        fail(prefix, "is a link (to another file or path), not an object of this file");
      if (pos == std::string::npos) return true;
    }
  }

  // The dims of a dataset of `rank` dimensions plus its contents converted to T. Its rank, type and
  // size are checked before anything is allocated: the size against the bytes the file stores for it
  // (and those against the file's size), so a header that claims 1e12 values is refused, not allocated.
  template <class T>
  std::vector<T> read(const char* name, hid_t mem_type, int rank, std::vector<hsize_t>& dims) const {
    if (!has(name)) fail(name, "missing");
    H5Handle set(H5Dopen2(file_.get(), name, H5P_DEFAULT), H5Dclose);
    if (!set) fail(name, "not a dataset");
    // The data must be in this file, stored in one of the usual layouts (not in external raw files,
    // nor a virtual dataset mapping other files).
    H5Handle plist(H5Dget_create_plist(set.get()), H5Pclose);
    const H5D_layout_t layout = plist ? H5Pget_layout(plist.get()) : H5D_LAYOUT_ERROR;
    if ((layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED) || H5Pget_external_count(plist.get()) != 0)
      fail(name, "its data is not stored in this file (external or virtual dataset)");
    H5Handle type(H5Dget_type(set.get()), H5Tclose);
    const H5T_class_t type_class = type ? H5Tget_class(type.get()) : H5T_NO_CLASS;
    const bool integer_wanted = std::numeric_limits<T>::is_integer;
    if (type_class != H5T_INTEGER && (integer_wanted || type_class != H5T_FLOAT))
      fail(name, integer_wanted ? "expected integers" : "expected numbers");
    const std::size_t value_bytes = H5Tget_size(type.get());
    // 0 is HDF5's error value: a crafted type then passed the size check below with any dims
    // (found by fuzz_hdf5_reader: 2e14 values allocated).
    if (value_bytes == 0 || value_bytes > 16)
      fail(name, "its values' type has a size of " + std::to_string(value_bytes) + " bytes (expected 1 to 16)");
    H5Handle space(H5Dget_space(set.get()), H5Sclose);
    if (!space || H5Sget_simple_extent_type(space.get()) != H5S_SIMPLE || H5Sget_simple_extent_ndims(space.get()) != rank)
      fail(name, rank == 1 ? "expected a 1D array" : "expected a 2D array");
    dims.assign(static_cast<std::size_t>(rank), 0);
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    double total = 1;  // as a double: the product of crafted dims overflows 64 bits
    for (hsize_t d : dims) total *= static_cast<double>(d);
    const double stored = static_cast<double>(H5Dget_storage_size(set.get()));
    if (total * static_cast<double>(value_bytes) > kMaxExpansion * stored || stored > static_cast<double>(file_bytes_)) {
      std::string shape;
      for (hsize_t d : dims) shape += (shape.empty() ? "" : " x ") + std::to_string(d);
      fail(name, "claims " + shape + " values of " + std::to_string(value_bytes) + " bytes, but the file stores " +
                     count_text(stored) + " bytes for it (file size " +
                     std::to_string(file_bytes_) + ")");
    }
    if (layout == H5D_CHUNKED) check_chunks(name, plist.get(), dims, total * static_cast<double>(value_bytes), value_bytes, stored);
    std::vector<T> values(static_cast<std::size_t>(total));
    // The type's class and size are checked above and HDF5 converts between numbers, so a read that fails
    // has met data it cannot decode.
    if (total > 0 && H5Dread(set.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0)
      fail(name, layout == H5D_CHUNKED && H5Pget_nfilters(plist.get()) > 0
                     ? "cannot read it: a chunk fails its checksum or does not inflate (the file is damaged)"
                     : "cannot read it: its data cannot be decoded (the file is damaged)");
    return values;
  }

  // A chunked dataset: HDF5 allocates a chunk's size for each chunk it reads, so a chunk may hold at
  // most the dataset's bytes or 1 MiB. Its filters must be deflate, shuffle or fletcher32: the others
  // size their output by parameters stored in the file, or load plugins. HDF5's deflate filter
  // inflates a chunk until its stream ends, whatever the chunk's size (a 1 MB file whose chunk of
  // 64 KiB held a stream of a gigabyte of zeros took over a gigabyte to read), up to 1032 times the
  // stream's bytes (zlib's largest ratio): so deflated data is read up to kMaxDeflatedBytes stored.
  void check_chunks(const char* name, hid_t plist, const std::vector<hsize_t>& dims, double data_bytes,
                    std::size_t value_bytes, double stored) const {
    const int rank = static_cast<int>(dims.size());
    std::vector<hsize_t> chunk(dims.size(), 0);
    if (H5Pget_chunk(plist, rank, chunk.data()) != rank) fail(name, "its chunks have another rank than the dataset");
    double bytes = static_cast<double>(value_bytes), count = 1;
    std::string shape;
    for (std::size_t k = 0; k < chunk.size(); ++k) {
      if (chunk[k] == 0) fail(name, "its chunks have a side of 0 values");
      bytes *= static_cast<double>(chunk[k]);
      count *= std::ceil(static_cast<double>(dims[k]) / static_cast<double>(chunk[k]));
      shape += (shape.empty() ? "" : " x ") + std::to_string(chunk[k]);
    }
    if (bytes > std::max(data_bytes, static_cast<double>(kMaxSmallChunkMiB << 20)))
      fail(name, "its chunks of " + shape + " values (" + count_text(bytes) +
                     " bytes) are larger than the dataset (" + count_text(data_bytes) +
                     " bytes) and " + std::to_string(kMaxSmallChunkMiB) + " MiB");
    // HDF5 keeps kilobytes of bookkeeping for each chunk it reads: chunks of one value made a valid file
    // of tens of MB take gigabytes to read. So many chunks (above kMaxTinyChunks) must hold at least
    // kMinChunkKiB KiB each.
    if (count > static_cast<double>(kMaxTinyChunks) && bytes < static_cast<double>(kMinChunkKiB << 10))
      fail(name, "its data is stored in " + count_text(count) + " chunks of " + shape +
                     " values (" + count_text(bytes) + " bytes): more than " +
                     std::to_string(kMaxTinyChunks) + " chunks must hold " + std::to_string(kMinChunkKiB) +
                     " KiB or more each (HDF5 takes about 2 KB of memory for each chunk it reads; store it "
                     "contiguously, e.g. h5repack -l CONTI)");
    const int filters = H5Pget_nfilters(plist);
    for (int i = 0; i < filters; ++i) {
      unsigned flags = 0, config = 0;
      std::size_t parameters = 0;
      char filter_name[64] = "";
      const H5Z_filter_t id = H5Pget_filter2(plist, static_cast<unsigned>(i), &flags, &parameters, nullptr,
                                             sizeof filter_name, filter_name, &config);
      if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32)
        fail(name, "its data passes through the HDF5 filter " + std::to_string(id) + " (\"" + filter_name +
                       "\"), which is not read: only deflate, shuffle and fletcher32 are");
      if (id == H5Z_FILTER_DEFLATE && stored > kMaxDeflatedBytes)
        fail(name, "its data is deflated, " + count_text(stored) +
                       " bytes stored, which could inflate to 1032 times as many: at most 512 KiB of deflated data "
                       "is read (store it uncompressed, e.g. h5repack -f NONE)");
    }
  }

  // A {dim, n} transposed dataset -> interleaved n x dim.
  std::vector<double> read_transposed(const char* name, int& dim, std::size_t& n) const {
    std::vector<hsize_t> dims;
    std::vector<double> rows = read<double>(name, H5T_NATIVE_DOUBLE, 2, dims);
    if (dims[0] > 3) {
      if (dims[1] > 0) fail(name, "expected 2 or 3 coordinate rows, got " + std::to_string(dims[0]));
      // No columns: no coordinates, whatever the rows claim (the loop below ran once per row claimed,
      // 1e18 of them in a fuzzed file).
      dim = 0;
      n = 0;
      return {};
    }
    dim = static_cast<int>(dims[0]);
    n = dims[1];
    std::vector<double> interleaved(rows.size());
    for (std::size_t k = 0; k < dims[0]; ++k)
      for (std::size_t i = 0; i < n; ++i) interleaved[i * dims[0] + k] = rows[k * n + i];
    return interleaved;
  }

  std::vector<std::int32_t> read_int_vector(const char* name, std::size_t expected) const {
    std::vector<hsize_t> dims;
    auto values = read<std::int32_t>(name, H5T_NATIVE_INT32, 1, dims);
    if (dims[0] != expected)
      fail(name, "expected " + std::to_string(expected) + " values, one per node");
    return values;
  }

  RunMetadata attributes(const char* group_name) const {
    if (!has(group_name)) fail(group_name, "missing group");
    H5Handle group(H5Gopen2(file_.get(), group_name, H5P_DEFAULT), H5Gclose);
    if (!group) fail(group_name, "missing group");
    H5O_info_t info;
    if (H5Oget_info(group.get(), &info) < 0) fail(group_name, "cannot read the file's metadata here (a corrupt or truncated HDF5 file)");
    if (info.num_attrs > kMaxAttributes)
      fail(group_name, "holds " + std::to_string(info.num_attrs) + " attributes, more than the " +
                           std::to_string(kMaxAttributes) + " read (nodegen writes about 20, Medusa 1)");
    RunMetadata out;
    // One pass over the attributes, in the order they were written where the file tracks it, else in
    // the order they are stored (opening the i-th by name order instead rebuilt a sorted table of a
    // dense attribute store at each call: 8000 attributes took minutes).
    Visit visit{this, &out};
    if (H5Aiterate2(group.get(), H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr, &Hdf5FileReader::visit_attribute, &visit) < 0) {
      out.clear();
      H5Aiterate2(group.get(), H5_INDEX_NAME, H5_ITER_NATIVE, nullptr, &Hdf5FileReader::visit_attribute, &visit);
    }
    return out;
  }

 private:
  struct Visit {
    const Hdf5FileReader* reader;
    RunMetadata* out;
  };

  static herr_t visit_attribute(hid_t location, const char* attribute_name, const H5A_info_t*, void* data) {
    const Visit& visit = *static_cast<const Visit*>(data);
    visit.reader->read_attribute(location, attribute_name, *visit.out);
    return 0;
  }

  // Only single values are read, into a buffer of one value: an attribute holding an array of them
  // would be written past it.
  void read_attribute(hid_t location, const std::string& name, RunMetadata& out) const {
    if (name == layout::count_attribute) return;
    H5Handle attr(H5Aopen(location, name.c_str(), H5P_DEFAULT), H5Aclose);
    if (!attr) return;
    H5Handle space(H5Aget_space(attr.get()), H5Sclose);
    if (!space || H5Sget_simple_extent_npoints(space.get()) != 1) return;
    H5Handle type(H5Aget_type(attr.get()), H5Tclose);
    if (!type) return;
    switch (H5Tget_class(type.get())) {
      case H5T_STRING: {
        if (H5Tis_variable_str(type.get()) > 0) return;  // we only write fixed-length strings
        if (H5Tget_size(type.get()) > file_bytes_) return;
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

  // A count of values or bytes held as a double (a product of dims a crafted file may set near 2^64 each):
  // whole below 2^64, else in scientific notation (converting such a double to an integer is undefined).
  static std::string count_text(double value) {
    if (value >= 0 && value < 18446744073709551616.0) return std::to_string(static_cast<std::uint64_t>(value));
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", value);
    return text;
  }

  // How many times its stored bytes a dataset may hold: compressed data expands, but a nodegen or
  // Medusa file stores its arrays uncompressed (ratio 1), and node data compresses far less than this.
  static constexpr double kMaxExpansion = 64;
  // Chunks: more than kMaxTinyChunks of them must each hold kMinChunkKiB KiB (check_chunks).
  static constexpr std::uint64_t kMaxTinyChunks = 4096, kMinChunkKiB = 4;
  // Attributes of /domain read at most: a name is found by a walk over an object header's attributes,
  // so reading n of them takes time in n^2 (tens of thousands took seconds).
  static constexpr hsize_t kMaxAttributes = 1024;
  // The largest chunk of a dataset smaller than it that is read (a writer's default chunk may exceed a
  // small dataset).
  static constexpr std::uint64_t kMaxSmallChunkMiB = 1;
  // Deflated data read at most (stored bytes): a chunk's stream inflates to 1032 times its bytes at
  // most (516 MiB), in a buffer HDF5 doubles as it fills: below 1.5 GiB at its peak, once per chunk.
  static constexpr double kMaxDeflatedBytes = 512.0 * 1024.0;

  std::filesystem::path path_;
  std::uintmax_t file_bytes_ = 0;
  H5Handle file_;
};

}  // namespace nodegen::io::detail
