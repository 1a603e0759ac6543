// Medusa's GeneralFill nodes on the unit square or cube, written in nodegen's HDF5 layout
// (docs/output-format.md) so that `nodegen solve` reads them like its own output:
//   generalfill_nodes DIM H SEED OUT.h5
// Boundary: Medusa's BoxShape::discretizeBoundaryWithStep (a regular grid on each side), interior:
// GeneralFill with the given seed, constant spacing H. Medusa's box types -1..-2d name the sides
// x-, x+, y-, y+ (, z-, z+), written as boundary_names shape:x- ... (the names nodegen gives
// domains/square.json and cube.json), so the same --neumann names apply.
// Built only by bench/medusa/build.sh against a Medusa checkout; not part of nodegen.
#include <hdf5.h>

#include <medusa/bits/domains/BoxShape.hpp>
#include <medusa/bits/domains/DomainDiscretization.hpp>
#include <medusa/bits/domains/GeneralFill.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void write_dataset(hid_t group, const char* name, hid_t type, std::vector<hsize_t> dims, const void* data) {
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t set = H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (set < 0 || H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    std::fprintf(stderr, "generalfill_nodes: cannot write %s\n", name);
    std::exit(1);
  }
  H5Dclose(set);
  H5Sclose(space);
}

void write_string_attribute(hid_t group, const char* name, const std::string& value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.size());
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Acreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, type, value.c_str());
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
}

template <int D>
int run(double h, int seed, const char* out) {
  using vec = mm::Vec<double, D>;
  mm::BoxShape<vec> box(vec(0.0), vec(1.0));
  mm::DomainDiscretization<vec> domain = box.discretizeBoundaryWithStep(h);
  mm::GeneralFill<vec> fill;
  fill.seed(seed);
  fill(domain, h);

  const int n = domain.size();
  std::vector<double> pos(static_cast<std::size_t>(D) * n), spacing(static_cast<std::size_t>(n), h), normals;
  std::vector<int> types(domain.types().begin(), domain.types().end());
  std::vector<int> bmap(domain.bmap().begin(), domain.bmap().end());
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < D; ++a) pos[static_cast<std::size_t>(a) * n + i] = domain.pos(i)[a];  // {d, N}
  const int nb = static_cast<int>(domain.normals().size());
  normals.resize(static_cast<std::size_t>(D) * nb);
  for (int b = 0; b < nb; ++b)
    for (int a = 0; a < D; ++a) normals[static_cast<std::size_t>(a) * nb + b] = domain.normals()[b][a];

  const hid_t file = H5Fcreate(out, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) {
    std::fprintf(stderr, "generalfill_nodes: cannot create %s\n", out);
    return 1;
  }
  const hid_t group = H5Gcreate2(file, "domain", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  write_dataset(group, "pos", H5T_NATIVE_DOUBLE, {D, static_cast<hsize_t>(n)}, pos.data());
  write_dataset(group, "types", H5T_NATIVE_INT, {static_cast<hsize_t>(n)}, types.data());
  write_dataset(group, "bmap", H5T_NATIVE_INT, {static_cast<hsize_t>(n)}, bmap.data());
  write_dataset(group, "normals", H5T_NATIVE_DOUBLE, {D, static_cast<hsize_t>(nb)}, normals.data());
  write_dataset(group, "h", H5T_NATIVE_DOUBLE, {static_cast<hsize_t>(n)}, spacing.data());
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t attr = H5Acreate2(group, "N", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(attr, H5T_NATIVE_INT, &n);
  H5Aclose(attr);
  H5Sclose(space);
  write_string_attribute(group, "boundary_names",
                         D == 2 ? R"(["shape:x-","shape:x+","shape:y-","shape:y+"])"
                                : R"(["shape:x-","shape:x+","shape:y-","shape:y+","shape:z-","shape:z+"])");
  write_string_attribute(group, "generator", "Medusa GeneralFill, seed " + std::to_string(seed));
  H5Gclose(group);
  H5Fclose(file);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: generalfill_nodes DIM H SEED OUT.h5\n");
    return 2;
  }
  const int dim = std::atoi(argv[1]);
  const double h = std::atof(argv[2]);
  const int seed = std::atoi(argv[3]);
  if ((dim != 2 && dim != 3) || !(h > 0)) {
    std::fprintf(stderr, "generalfill_nodes: DIM must be 2 or 3 and H positive\n");
    return 2;
  }
  return dim == 2 ? run<2>(h, seed, argv[4]) : run<3>(h, seed, argv[4]);
}
