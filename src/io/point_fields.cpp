#include "nodegen/io/point_fields.hpp"

#include <hdf5.h>

#include "nodegen/io/hdf5_handle.hpp"
#include "nodegen/io/output_error.hpp"
#include "nodegen/io/pending_file.hpp"

namespace nodegen::io {
namespace {

using detail::H5Handle;

void write_dataset(hid_t file, const std::string& name, std::span<const double> values, hsize_t rows, hsize_t columns,
                   const std::filesystem::path& shown) {
  const hsize_t dims[2] = {rows, columns};
  H5Handle space(H5Screate_simple(columns > 0 ? 2 : 1, dims, nullptr), H5Sclose);
  H5Handle set(H5Dcreate2(file, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
               H5Dclose);
  if (!set || (!values.empty() && H5Dwrite(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) < 0))
    detail::throw_io_error(shown, "output", "cannot write " + name + " (disk full or file too large?)");
}

}  // namespace

void write_point_fields(const std::filesystem::path& file, int dim, std::span<const double> positions,
                        const std::vector<std::pair<std::string, std::span<const double>>>& fields) {
  PendingFile pending(file, "output");
  const auto n = static_cast<hsize_t>(positions.size() / static_cast<std::size_t>(dim));
  {
    detail::H5QuietErrors quiet;
    H5Handle h5(H5Fcreate(pending.temp_path().c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!h5) detail::throw_io_error(pending.final_path(), "output", "cannot create an HDF5 file there");
    write_dataset(h5.get(), "/positions", positions, n, static_cast<hsize_t>(dim), pending.final_path());
    for (const auto& [name, values] : fields) {
      if (values.size() != n) detail::throw_io_error(pending.final_path(), name, "one value per point expected");
      write_dataset(h5.get(), "/" + name, values, n, 0, pending.final_path());
    }
    if (H5Fclose(h5.release()) < 0)
      detail::throw_io_error(pending.final_path(), "output", "cannot finish writing it (disk full or file too large?)");
  }
  pending.commit();
}

}  // namespace nodegen::io
