// Spacing samples from HDF5 (sample_file.hpp), read in a child process when asked.
#include "nodegen/io/sample_file.hpp"

#include <cmath>
#include <cstring>

#include "nodegen/geometry/child_read.hpp"
#include "io/hdf5_file_reader.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen::io {
namespace {

std::string absolute_name(const std::string& name) { return name.empty() || name[0] == '/' ? name : "/" + name; }

SampleArrays read_here(const std::filesystem::path& file, const std::string& positions_name, const std::string& values_name) {
  detail::H5QuietErrors quiet;
  detail::Hdf5FileReader r(file);
  std::string pos = absolute_name(positions_name);
  if (pos.empty()) pos = r.has(layout::pos) ? layout::pos : "/positions";
  const std::string val = absolute_name(values_name);
  SampleArrays out;
  std::vector<hsize_t> dims;
  if (pos == layout::pos) {
    std::size_t n = 0;
    out.positions = r.read_transposed(pos.c_str(), out.dim, n);
  } else {
    std::vector<double> rows = r.read<double>(pos.c_str(), H5T_NATIVE_DOUBLE, 2, dims);
    if (dims[1] != 2 && dims[1] != 3)
      r.fail(pos, "expected one row of 2 or 3 coordinates per sample ({N, d}), got " + std::to_string(dims[0]) + " x " +
                      std::to_string(dims[1]));
    out.dim = static_cast<int>(dims[1]);
    out.positions = std::move(rows);
  }
  if (out.dim != 2 && out.dim != 3) r.fail(pos, "expected 2 or 3 coordinates per sample");
  const std::size_t n = out.positions.size() / static_cast<std::size_t>(out.dim);
  if (n > kMaxSamples)
    r.fail(pos, "holds " + std::to_string(n) + " samples, more than the " + std::to_string(kMaxSamples) + " read");
  // Checked here, where the dataset's name is known: the spacing's own check names only the sample.
  for (std::size_t i = 0; i < out.positions.size(); ++i)
    if (!std::isfinite(out.positions[i]))
      r.fail(pos, "sample " + std::to_string(i / static_cast<std::size_t>(out.dim)) +
                      " has a coordinate that is not finite (" + std::to_string(out.positions[i]) + ")");
  out.values = r.read<double>(val.c_str(), H5T_NATIVE_DOUBLE, 1, dims);
  if (dims[0] != n)
    r.fail(val, "holds " + std::to_string(dims[0]) + " values, but " + pos + " holds " + std::to_string(n) +
                    " positions: give one value per position");
  return out;
}

// dim, n, the positions, the values: what the child sends its parent.
std::string serialise(const SampleArrays& s) {
  const std::uint64_t n = s.values.size();
  const std::int32_t dim = s.dim;
  std::string bytes(sizeof dim + sizeof n + (s.positions.size() + s.values.size()) * sizeof(double), '\0');
  char* at = bytes.data();
  std::memcpy(at, &dim, sizeof dim), at += sizeof dim;
  std::memcpy(at, &n, sizeof n), at += sizeof n;
  std::memcpy(at, s.positions.data(), s.positions.size() * sizeof(double)), at += s.positions.size() * sizeof(double);
  std::memcpy(at, s.values.data(), s.values.size() * sizeof(double));
  return bytes;
}

SampleArrays deserialise(const std::string& bytes, const std::filesystem::path& file) {
  SampleArrays s;
  std::int32_t dim = 0;
  std::uint64_t n = 0;
  if (bytes.size() >= sizeof dim + sizeof n) {
    std::memcpy(&dim, bytes.data(), sizeof dim);
    std::memcpy(&n, bytes.data() + sizeof dim, sizeof n);
  }
  const bool fits = (dim == 2 || dim == 3) && n <= kMaxSamples &&
                    bytes.size() == sizeof dim + sizeof n + n * (static_cast<std::uint64_t>(dim) + 1) * sizeof(double);
  if (!fits) throw InputError(file.string(), "(file)", "the process reading it returned malformed samples");
  s.dim = dim;
  s.positions.resize(n * static_cast<std::size_t>(dim));
  s.values.resize(n);
  const char* at = bytes.data() + sizeof dim + sizeof n;
  std::memcpy(s.positions.data(), at, s.positions.size() * sizeof(double));
  std::memcpy(s.values.data(), at + s.positions.size() * sizeof(double), s.values.size() * sizeof(double));
  return s;
}

}  // namespace

SampleArrays read_sample_file(const std::filesystem::path& file, const std::string& positions,
                              const std::string& values, bool isolated) {
  if (!isolated) return read_here(file, positions, values);
  const std::size_t most = sizeof(std::int32_t) + sizeof(std::uint64_t) + kMaxSamples * 4 * sizeof(double);
  const std::string bytes = read_in_child(
      [&] { return serialise(read_here(file, positions, values)); }, file.string(), "libhdf5", most);
  return deserialise(bytes, file);
}

}  // namespace nodegen::io
