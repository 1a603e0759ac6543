// Why some seeds give a Neumann solve many times less accurate than the rest: per seed, the solver
// check's errors beside measurements of its global matrix.
//   neumann_spectrum DOMAIN.json A-B PART [--ghost-nodes] [--normal-layer] [--eigen | --nearest-zero]
// Per seed: max and relative L2 error; where the max lies; the Neumann rows' own weight (the weight of
// u at the row's node, times h: about 1.5 for a stencil that reaches one layer into the domain), its
// minimum over the rows and the count below 0.5; with --eigen (a few thousand unknowns at most), the
// spectrum of the matrix with the Dirichlet unknowns eliminated and every Neumann row scaled by -1/h so
// that it reads like a Laplacian row: the count of eigenvalues with a positive real part (a stable
// discretization of Lap u = f has none) and the eigenvalue nearest zero, times h^2; with --nearest-zero
// (any size) the eigenvalue nearest zero and the smallest singular value, by inverse iteration.
// --normal-layer prototypes a placement rule for the fill: the first interior layer along the normals
// of the Neumann nodes (a node at x_b - h n_b for each, the fill's interior nodes closer than 0.7 h to
// one of them removed).
#include <Eigen/Eigenvalues>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "nodegen/input/domain_file.hpp"
#include "nodegen/solve/filled_nodes.hpp"
#include "nodegen/solve/manufactured.hpp"
#include "nodegen/solve/poisson.hpp"

using nodegen::solve::RowKind;

namespace {

// The first interior layer at x_b - h n_b for every node b of the Neumann parts.
nodegen::io::NodeArrays with_normal_layer(const nodegen::io::NodeArrays& in, const std::vector<int>& parts) {
  const int d = in.dim;
  auto pos = [&](std::size_t i) {
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    for (int a = 0; a < d; ++a) p[a] = in.coord(i, a);
    return p;
  };
  std::vector<Eigen::Vector3d> layer;
  std::vector<double> layer_h;
  for (std::size_t i = 0; i < in.node_count(); ++i) {
    if (in.types[i] >= 0 || std::find(parts.begin(), parts.end(), -in.types[i]) == parts.end()) continue;
    Eigen::Vector3d n = Eigen::Vector3d::Zero();
    for (int a = 0; a < d; ++a) n[a] = in.normals[static_cast<std::size_t>(in.bmap[i] * d + a)];
    layer.push_back(pos(i) - in.h[i] * n);
    layer_h.push_back(in.h[i]);
  }
  nodegen::io::NodeArrays out = in;
  out.positions.clear(), out.types.clear(), out.bmap.clear(), out.h.clear();
  for (std::size_t i = 0; i < in.node_count(); ++i) {
    bool near = false;
    for (std::size_t l = 0; l < layer.size() && in.types[i] > 0 && !near; ++l) near = (pos(i) - layer[l]).norm() < 0.7 * layer_h[l];
    if (near) continue;
    for (int a = 0; a < d; ++a) out.positions.push_back(in.coord(i, a));
    out.types.push_back(in.types[i]), out.bmap.push_back(in.bmap[i]), out.h.push_back(in.h[i]);
  }
  for (std::size_t l = 0; l < layer.size(); ++l) {
    for (int a = 0; a < d; ++a) out.positions.push_back(layer[l][a]);
    out.types.push_back(1), out.bmap.push_back(-1), out.h.push_back(layer_h[l]);
  }
  return out;
}

using RowMatrix = Eigen::SparseMatrix<double, Eigen::RowMajor>;

struct Options {
  std::uint64_t first = 0, last = 0;
  nodegen::solve::PoissonOptions poisson;
  bool eigen = false, normal_layer = false, nearest_zero = false;
};

// The seed range, the Neumann part (its boundary ids in the domain) and the flags.
Options parse_options(int argc, char** argv, const nodegen::DomainFile& domain) {
  Options o;
  const std::string range = argv[2];
  const auto dash = range.find('-');
  o.first = std::stoull(range.substr(0, dash));
  o.last = dash == std::string::npos ? o.first : std::stoull(range.substr(dash + 1));
  const auto names = std::visit([](const auto& d) { return d->boundary_names(); }, domain.domain);
  o.poisson.threads = 2;
  for (int a = 4; a < argc; ++a) {
    o.poisson.ghost_nodes |= std::string(argv[a]) == "--ghost-nodes";
    o.eigen |= std::string(argv[a]) == "--eigen";
    o.normal_layer |= std::string(argv[a]) == "--normal-layer";
    o.nearest_zero |= std::string(argv[a]) == "--nearest-zero";
  }
  for (std::size_t id = 0; id < names.size(); ++id)
    if (names[id] == argv[3]) o.poisson.neumann_ids.push_back(static_cast<int>(id) + 1);
  return o;
}

struct NeumannWeights {
  double min_diag = 1e300;  // the smallest weight of u at a Neumann row's node, times h
  int below = 0;            // the Neumann rows whose weight times h is below 0.5
};

NeumannWeights neumann_weights(const nodegen::solve::PoissonSystem& s, const RowMatrix& rows) {
  NeumannWeights w;
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    if (s.rows[static_cast<std::size_t>(i)] != RowKind::neumann) continue;
    const double d = rows.coeff(i, i) * s.h[static_cast<std::size_t>(i)];
    w.min_diag = std::min(w.min_diag, d);
    w.below += d < 0.5;
  }
  return w;
}

// Reduced matrix over the non-Dirichlet unknowns; Neumann rows times -1/h. With ghost nodes the
// Neumann row of node b pairs with b's ghost unknown (its centred difference weighs the ghost,
// not b) and the ghost's Laplacian row with b: the two rows trade places.
Eigen::SparseMatrix<double> reduced_matrix(const nodegen::solve::PoissonSystem& s, const RowMatrix& rows, double h) {
  std::vector<Eigen::Index> row_at(static_cast<std::size_t>(rows.rows()));
  for (Eigen::Index i = 0; i < rows.rows(); ++i) row_at[static_cast<std::size_t>(i)] = i;
  for (std::size_t g = 0; g < s.ghost_owner.size(); ++g)
    std::swap(row_at[s.ghost_owner[g]], row_at[s.node_count + g]);
  std::vector<Eigen::Index> keep(static_cast<std::size_t>(rows.rows()), -1);
  Eigen::Index m = 0;
  for (Eigen::Index i = 0; i < rows.rows(); ++i)
    if (s.rows[static_cast<std::size_t>(i)] != RowKind::dirichlet) keep[static_cast<std::size_t>(i)] = m++;
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index slot = 0; slot < rows.rows(); ++slot) {
    const Eigen::Index ri = keep[static_cast<std::size_t>(slot)];
    if (ri < 0) continue;
    const Eigen::Index i = row_at[static_cast<std::size_t>(slot)];
    const double scale = s.rows[static_cast<std::size_t>(i)] == RowKind::neumann ? -1.0 / h : 1.0;
    for (RowMatrix::InnerIterator it(rows, i); it; ++it) {
      const Eigen::Index cj = keep[static_cast<std::size_t>(it.col())];
      if (cj >= 0) entries.emplace_back(static_cast<int>(ri), static_cast<int>(cj), scale * it.value());
    }
  }
  Eigen::SparseMatrix<double> a(m, m);
  a.setFromTriplets(entries.begin(), entries.end());
  return a;
}

// The dense spectrum's columns: eigenvalues with a positive real part, the largest real part and the
// smallest modulus (times h^2).
void print_spectrum(const Eigen::SparseMatrix<double>& a, double h2) {
  const Eigen::EigenSolver<Eigen::MatrixXd> es(Eigen::MatrixXd(a), false);
  int positive = 0;
  double max_re = -1e300, min_abs = 1e300;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    const std::complex<double> l = es.eigenvalues()[i];
    positive += l.real() > 0;
    max_re = std::max(max_re, l.real());
    min_abs = std::min(min_abs, std::abs(l));
  }
  std::printf("  %-8d  %+.3e  %.3e", positive, max_re * h2, min_abs * h2);
}

// Inverse iteration: the eigenvalue nearest zero (Rayleigh quotient), for matrices too large
// for the dense solver.
double eigenvalue_nearest_zero(const Eigen::SparseMatrix<double>& a, Eigen::SparseLU<Eigen::SparseMatrix<double>>& lu) {
  Eigen::VectorXd x = Eigen::VectorXd::Ones(a.rows()).normalized();
  double lambda = 0;
  for (int it = 0; it < 200; ++it) {
    x = lu.solve(x).normalized();
    const double next = x.dot(a * x);
    if (it > 10 && std::abs(next - lambda) < 1e-10 * std::abs(next)) break;
    lambda = next;
  }
  return lambda;
}

// The smallest singular value (inverse iteration on A^T A): what bounds the error's growth
// from the stencils' truncation error, 1 / sigma_min, also when no eigenvalue is near zero.
double smallest_singular_value(Eigen::Index m, Eigen::SparseLU<Eigen::SparseMatrix<double>>& lu) {
  Eigen::VectorXd y = Eigen::VectorXd::Ones(m).normalized();
  double sigma = 0;
  for (int it = 0; it < 200; ++it) {
    y = lu.solve(Eigen::VectorXd(lu.transpose().solve(y)));
    const double norm = y.norm();
    y /= norm;
    const double next = 1.0 / std::sqrt(norm);
    if (it > 10 && std::abs(next - sigma) < 1e-8 * next) break;
    sigma = next;
  }
  return sigma;
}

// One seed's line: the solve's errors, the Neumann rows' weights and, if asked, the spectrum's columns.
void print_seed(const nodegen::DomainFile& domain, const char* path, std::uint64_t seed, const Options& o) {
  nodegen::io::NodeArrays nodes = nodegen::solve::filled_nodes(domain, seed);
  if (o.normal_layer) nodes = with_normal_layer(nodes, o.poisson.neumann_ids);
  const nodegen::solve::PoissonResult r = nodegen::solve::solve_poisson(nodes, o.poisson, path);
  const nodegen::solve::PoissonSystem s = nodegen::solve::assemble_poisson(nodes, o.poisson, path);
  const RowMatrix rows = s.matrix;
  const NeumannWeights w = neumann_weights(s, rows);
  std::printf("%-5llu %.3e  %.3e  %.4f  %.4f  %+.4f     %d", static_cast<unsigned long long>(seed), r.max_error,
              r.relative_l2_error, r.max_position[0], r.max_position[1], w.min_diag, w.below);
  if (o.eigen || o.nearest_zero) {
    const double h = s.h[0];  // constant spacing in the studied domains
    const double h2 = h * h;
    const Eigen::SparseMatrix<double> a = reduced_matrix(s, rows, h);
    if (o.eigen) {
      print_spectrum(a, h2);
    } else {
      Eigen::SparseLU<Eigen::SparseMatrix<double>> lu(a);
      const double lambda = eigenvalue_nearest_zero(a, lu);
      const double sigma = smallest_singular_value(a.rows(), lu);
      std::printf("  %+.3e         %.3e", lambda * h2, sigma * h2);
    }
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: neumann_spectrum DOMAIN.json A-B PART [--ghost-nodes] [--normal-layer] [--eigen | --nearest-zero]\n");
    return 2;
  }
  const nodegen::DomainFile domain = nodegen::load_domain_file(argv[1]);
  const Options o = parse_options(argc, argv, domain);
  std::printf("seed  max_error  rel_l2     max_x   max_y   min_diag_h  rows_below_0.5%s\n",
              o.eigen ? "  eig_re>0  max_re_h2   min_abs_h2" : o.nearest_zero ? "  eig_nearest_0_h2  sigma_min_h2" : "");
  for (std::uint64_t seed = o.first; seed <= o.last; ++seed) print_seed(domain, argv[1], seed, o);
  return 0;
}
