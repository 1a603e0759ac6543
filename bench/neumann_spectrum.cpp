// Why some seeds give a Neumann solve many times less accurate than the rest: per seed, the solver
// check's errors beside measurements of its global matrix.
//   neumann_spectrum DOMAIN.json A-B PART [--ghost-nodes] [--eigen]
// Per seed: max and relative L2 error; where the max lies; the Neumann rows' own weight (the weight of
// u at the row's node, times h: about 1.5 for a stencil that reaches one layer into the domain), its
// minimum over the rows and the count below 0.5; with --eigen (a few thousand unknowns at most), the
// spectrum of the matrix with the Dirichlet unknowns eliminated and every Neumann row scaled by -1/h so
// that it reads like a Laplacian row: the count of eigenvalues with a positive real part (a stable
// discretization of Lap u = f has none) and the eigenvalue nearest zero, times h^2.
#include <Eigen/Eigenvalues>
#include <Eigen/SparseLU>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "nodegen/geometry/domain_file.hpp"
#include "nodegen/solve/filled_nodes.hpp"
#include "nodegen/solve/manufactured.hpp"
#include "nodegen/solve/poisson.hpp"

using nodegen::solve::RowKind;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: neumann_spectrum DOMAIN.json A-B PART [--ghost-nodes] [--eigen]\n");
    return 2;
  }
  const nodegen::DomainFile domain = nodegen::load_domain_file(argv[1]);
  const std::string range = argv[2];
  const auto dash = range.find('-');
  const std::uint64_t first = std::stoull(range.substr(0, dash));
  const std::uint64_t last = dash == std::string::npos ? first : std::stoull(range.substr(dash + 1));
  const auto names = std::visit([](const auto& d) { return d->boundary_names(); }, domain.domain);
  nodegen::solve::PoissonOptions options;
  options.threads = 2;
  bool eigen = false;
  for (int a = 4; a < argc; ++a) {
    options.ghost_nodes |= std::string(argv[a]) == "--ghost-nodes";
    eigen |= std::string(argv[a]) == "--eigen";
  }
  for (std::size_t id = 0; id < names.size(); ++id)
    if (names[id] == argv[3]) options.neumann_ids.push_back(static_cast<int>(id) + 1);

  std::printf("seed  max_error  rel_l2     max_x   max_y   min_diag_h  rows_below_0.5%s\n",
              eigen ? "  eig_re>0  max_re_h2   min_abs_h2" : "");
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    const nodegen::io::NodeArrays nodes = nodegen::solve::filled_nodes(domain, seed);
    const nodegen::solve::PoissonResult r = nodegen::solve::solve_poisson(nodes, options, argv[1]);
    const nodegen::solve::PoissonSystem s = nodegen::solve::assemble_poisson(nodes, options, argv[1]);
    const Eigen::SparseMatrix<double, Eigen::RowMajor> rows = s.matrix;
    double min_diag = 1e300;
    int below = 0;
    for (Eigen::Index i = 0; i < rows.rows(); ++i) {
      if (s.rows[static_cast<std::size_t>(i)] != RowKind::neumann) continue;
      const double d = rows.coeff(i, i) * s.h[static_cast<std::size_t>(i)];
      min_diag = std::min(min_diag, d);
      below += d < 0.5;
    }
    std::printf("%-5llu %.3e  %.3e  %.4f  %.4f  %+.4f     %d", static_cast<unsigned long long>(seed), r.max_error,
                r.relative_l2_error, r.max_position[0], r.max_position[1], min_diag, below);
    if (eigen) {
      // Reduced matrix over the non-Dirichlet unknowns; Neumann rows times -1/h.
      std::vector<Eigen::Index> keep(static_cast<std::size_t>(rows.rows()), -1);
      Eigen::Index m = 0;
      for (Eigen::Index i = 0; i < rows.rows(); ++i)
        if (s.rows[static_cast<std::size_t>(i)] != RowKind::dirichlet) keep[static_cast<std::size_t>(i)] = m++;
      Eigen::MatrixXd a = Eigen::MatrixXd::Zero(m, m);
      double h2 = 0;
      for (Eigen::Index i = 0; i < rows.rows(); ++i) {
        const Eigen::Index ri = keep[static_cast<std::size_t>(i)];
        if (ri < 0) continue;
        const std::size_t owner = i < static_cast<Eigen::Index>(s.node_count) ? static_cast<std::size_t>(i) : 0;
        const double h = s.h[owner];
        h2 = h * h;
        const double scale = s.rows[static_cast<std::size_t>(i)] == RowKind::neumann ? -1.0 / h : 1.0;
        for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(rows, i); it; ++it) {
          const Eigen::Index cj = keep[static_cast<std::size_t>(it.col())];
          if (cj >= 0) a(ri, cj) = scale * it.value();
        }
      }
      const Eigen::EigenSolver<Eigen::MatrixXd> es(a, false);
      int positive = 0;
      double max_re = -1e300, min_abs = 1e300;
      for (Eigen::Index i = 0; i < m; ++i) {
        const std::complex<double> l = es.eigenvalues()[i];
        positive += l.real() > 0;
        max_re = std::max(max_re, l.real());
        min_abs = std::min(min_abs, std::abs(l));
      }
      std::printf("  %-8d  %+.3e  %.3e", positive, max_re * h2, min_abs * h2);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
