#include "nodegen/solve/rbf_fd.hpp"

#include <Eigen/LU>
#include <array>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace nodegen::solve {

namespace {

using Exponents = std::array<int, 3>;

// All exponent tuples with a total degree <= order, lowest degree first.
std::vector<Exponents> monomials(int dim, int order) {
  std::vector<Exponents> out;
  for (int degree = 0; degree <= order; ++degree)
    for (int a = degree; a >= 0; --a)
      for (int b = degree - a; b >= 0; --b) {
        const int c = degree - a - b;
        if (dim == 2 && c != 0) continue;
        out.push_back({a, b, c});
      }
  return out;
}

double power(double x, int e) {
  double r = 1.0;
  for (int i = 0; i < e; ++i) r *= x;
  return r;
}

}  // namespace

int monomial_count(int dim, int order) { return static_cast<int>(monomials(dim, order).size()); }

Eigen::VectorXd rbf_fd_weights(const Eigen::MatrixXd& offsets, int order, const StencilOperator& op) {
  const int n = static_cast<int>(offsets.rows());
  const int dim = static_cast<int>(offsets.cols());
  const std::vector<Exponents> poly = monomials(dim, order);
  const int m = static_cast<int>(poly.size());
  if (n < m) throw std::runtime_error("stencil has fewer nodes than monomials");

  const double scale = offsets.rowwise().norm().maxCoeff();
  if (!(scale > 0)) throw std::runtime_error("stencil nodes coincide");
  const Eigen::MatrixXd xi = offsets / scale;

  // [A P; P^T 0] [w; lambda] = [L phi; L p], A_jk = |xi_j - xi_k|^3, P_jl = monomial l at xi_j.
  Eigen::MatrixXd system = Eigen::MatrixXd::Zero(n + m, n + m);
  for (int j = 0; j < n; ++j)
    for (int k = 0; k < j; ++k) {
      const double r = (xi.row(j) - xi.row(k)).norm();
      system(j, k) = system(k, j) = r * r * r;
    }
  for (int j = 0; j < n; ++j)
    for (int l = 0; l < m; ++l) {
      double p = 1.0;
      for (int a = 0; a < dim; ++a) p *= power(xi(j, a), poly[static_cast<std::size_t>(l)][static_cast<std::size_t>(a)]);
      system(j, n + l) = system(n + l, j) = p;
    }

  // The operator at the centre (xi = 0). For phi_j(x) = |x - xi_j|^3: Laplacian 3 (dim + 1) r_j,
  // gradient 3 r_j (x - xi_j). Of the monomials only xi_a^2 (Laplacian 2) and xi_a (gradient e_a)
  // are nonzero there.
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(n + m);
  const bool lap = op.kind == StencilOperator::Kind::laplacian;
  for (int j = 0; j < n; ++j) {
    const double r = xi.row(j).norm();
    if (lap) {
      rhs(j) = 3.0 * (dim + 1) * r;
    } else {
      double dot = 0;
      for (int a = 0; a < dim; ++a) dot += xi(j, a) * op.direction(a);
      rhs(j) = -3.0 * r * dot;
    }
  }
  for (int l = 0; l < m; ++l) {
    const Exponents& e = poly[static_cast<std::size_t>(l)];
    const int degree = e[0] + e[1] + e[2];
    for (int a = 0; a < dim; ++a) {
      if (lap && degree == 2 && e[static_cast<std::size_t>(a)] == 2) rhs(n + l) = 2.0;
      if (!lap && degree == 1 && e[static_cast<std::size_t>(a)] == 1) rhs(n + l) = op.direction(a);
    }
  }

  const Eigen::PartialPivLU<Eigen::MatrixXd> lu(system);
  const Eigen::VectorXd solution = lu.solve(rhs);
  if (!solution.allFinite() || (system * solution - rhs).norm() > 1e-6 * (1.0 + rhs.norm()))
    throw std::runtime_error("stencil system is singular (nodes not unisolvent for the monomials)");
  // Back from scaled coordinates: second derivatives scale by 1/s^2, first by 1/s.
  return solution.head(n) / (lap ? scale * scale : scale);
}

}  // namespace nodegen::solve
