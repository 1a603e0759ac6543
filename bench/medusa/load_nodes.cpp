// Loads a nodegen output with Medusa's own loader (mm::DomainDiscretization::load) and checks what
// Medusa sees against the file's arrays: the node count, boundary nodes (type < 0) with a normal each,
// interior nodes (type > 0), and that every position is finite. Prints one line; exit 1 on a mismatch.
//   load_nodes FILE.h5
// Built only by bench/medusa/build.sh against a Medusa checkout; not part of nodegen.
#include <medusa/bits/domains/DomainDiscretization.hpp>
#include <medusa/bits/io/HDF.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace {

template <class Vec>
int check(mm::HDF& hdf, const char* path) {
  const auto domain = mm::DomainDiscretization<Vec>::load(hdf, "domain");
  const int n = domain.size();
  int boundary = 0, interior = 0, bad = 0;
  for (int i = 0; i < n; ++i) {
    if (domain.type(i) < 0) {
      ++boundary;
      if (!(std::abs(domain.normal(i).norm() - 1.0) < 1e-6)) ++bad;
    } else if (domain.type(i) > 0) {
      ++interior;
    } else {
      ++bad;
    }
    for (int a = 0; a < Vec::dim; ++a)
      if (!std::isfinite(domain.pos(i)[a])) ++bad;
  }
  std::printf("%s: Medusa loaded %d nodes (%d boundary with unit normals, %d interior), %d bad\n", path, n, boundary,
              interior, bad);
  return bad == 0 && n > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: load_nodes FILE.h5\n");
    return 2;
  }
  mm::HDF hdf(argv[1], mm::HDF::READONLY);
  hdf.openGroup("/domain");
  const int dim = hdf.readIntAttribute("dim");
  hdf.openGroup("/");
  return dim == 2 ? check<mm::Vec2d>(hdf, argv[1]) : check<mm::Vec3d>(hdf, argv[1]);
}
