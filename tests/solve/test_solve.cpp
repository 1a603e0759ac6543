// The solver check checked: RBF-FD weights exact on the polynomials they are built for, the Poisson
// solve converging at its order as h halves (2D and 3D, Dirichlet and Neumann with ghost nodes), and
// ghost nodes keeping every seed's Neumann error near the Dirichlet error.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "nodegen/input/domain_file.hpp"
#include "nodegen/solve/filled_nodes.hpp"
#include "nodegen/solve/poisson.hpp"
#include "nodegen/solve/rbf_fd.hpp"
#include "support/sanitized_build.hpp"

namespace {

using nodegen::solve::PoissonOptions;
using nodegen::solve::PoissonResult;
using nodegen::solve::StencilOperator;

// A scattered stencil around the origin: the centre and n - 1 points in [-1, 1]^dim.
Eigen::MatrixXd scattered_offsets(int n, int dim) {
  Eigen::MatrixXd x = Eigen::MatrixXd::Zero(n, dim);
  unsigned state = 12345;
  for (int j = 1; j < n; ++j)
    for (int a = 0; a < dim; ++a) {
      state = state * 1103515245u + 12345u;
      x(j, a) = 0.02 * (static_cast<double>((state >> 8) % 10000) / 5000.0 - 1.0);  // a stencil of h ~ 0.01
    }
  return x;
}

TEST(RbfFdWeights, ExactOnTheAugmentingPolynomials) {
  for (int dim : {2, 3})
    for (int order : {2, 3}) {
      const int n = dim == 2 ? 15 : 30;
      const Eigen::MatrixXd x = scattered_offsets(n, dim);
      const Eigen::Vector3d dir = Eigen::Vector3d(0.6, 0.8, 0.0).normalized();
      const Eigen::VectorXd lap = nodegen::solve::rbf_fd_weights(x, order, StencilOperator::laplacian());
      const Eigen::VectorXd ddn = nodegen::solve::rbf_fd_weights(x, order, StencilOperator::derivative_along(dir));
      // u = 1 + 2x - y + 3x^2 + xy - y^2 (+ z^2 + x^3 at order 3): Lap u(0) = 6 - 2 (+ 2), grad u(0) = (2, -1, 0).
      auto u = [&](int j) {
        const double px = x(j, 0), py = x(j, 1), pz = dim == 3 ? x(j, 2) : 0.0;
        double v = 1 + 2 * px - py + 3 * px * px + px * py - py * py + pz * pz;
        if (order == 3) v += px * px * px;
        return v;
      };
      double lap_u = 0, ddn_u = 0;
      for (int j = 0; j < n; ++j) lap_u += lap[j] * u(j), ddn_u += ddn[j] * u(j);
      const double exact_lap = 6 - 2 + (dim == 3 ? 2 : 0);
      EXPECT_NEAR(lap_u, exact_lap, 1e-6 * 1e4) << "dim " << dim << " order " << order;  // weights ~ 1/h^2 = 1e4
      EXPECT_NEAR(ddn_u, 2 * dir.x() - dir.y(), 1e-6 * 1e2) << "dim " << dim << " order " << order;
    }
}

TEST(RbfFdWeights, RefusesAStencilThatCannotCarryTheMonomials) {
  Eigen::MatrixXd collinear(8, 2);
  for (int j = 0; j < 8; ++j) collinear.row(j) << 0.01 * j, 0.02 * j;
  EXPECT_THROW(nodegen::solve::rbf_fd_weights(collinear, 2, StencilOperator::laplacian()), std::runtime_error);
  EXPECT_THROW(nodegen::solve::rbf_fd_weights(scattered_offsets(5, 2), 2, StencilOperator::laplacian()),
               std::runtime_error);
}

nodegen::io::NodeArrays filled_box(int dim, double h, std::uint64_t seed) {
  const std::string min = dim == 2 ? "[0, 0]" : "[0, 0, 0]", max = dim == 2 ? "[1, 1]" : "[1, 1, 1]";
  return nodegen::solve::filled_nodes(
      nodegen::parse_domain_text(R"({"dim": )" + std::to_string(dim) + R"(, "spacing": )" + std::to_string(h) +
                                     R"(, "shape": {"type": "box", "min": )" + min + R"(, "max": )" + max + "}}",
                                 "box.json"),
      seed);
}

PoissonResult solve_box(int dim, double h, std::uint64_t seed, bool neumann_x_plus, bool ghost) {
  PoissonOptions options;
  options.threads = 2;
  options.ghost_nodes = ghost;
  if (neumann_x_plus) options.neumann_ids = {2};  // a box's parts: x-, x+, y-, y+ (, z-, z+)
  return nodegen::solve::solve_poisson(filled_box(dim, h, seed), options, "box.json");
}

// Second order: the error falls about 4x each time h halves. A scheme or an assembly off by one
// order (a wrong Laplacian of r^3, a wrong scaling of the weights, Neumann data of the wrong sign)
// falls 2x or not at all.
void expect_second_order(int dim, double h, int halvings, bool neumann, bool ghost) {
  PoissonResult coarse = solve_box(dim, h, 1, neumann, ghost);
  for (int i = 0; i < halvings; ++i) {
    h /= 2;
    const PoissonResult fine = solve_box(dim, h, 1, neumann, ghost);
    const double rate_max = coarse.max_error / fine.max_error, rate_l2 = coarse.relative_l2_error / fine.relative_l2_error;
    EXPECT_GT(rate_l2, 3.0) << dim << "D, h " << h;
    EXPECT_LT(rate_l2, 5.5) << dim << "D, h " << h;
    EXPECT_GT(rate_max, 3.0) << dim << "D, h " << h;
    EXPECT_LT(rate_max, 5.5) << dim << "D, h " << h;
    coarse = fine;
  }
}

TEST(PoissonSolve, DirichletErrorFallsFourfoldAsHHalves2D) { expect_second_order(2, 0.04, 2, false, false); }

TEST(PoissonSolve, NeumannWithGhostNodesFallsFourfoldAsHHalves2D) { expect_second_order(2, 0.04, 2, true, true); }

TEST(PoissonSolve, DirichletErrorFallsFourfoldAsHHalves3D) { expect_second_order(3, 0.1, 1, false, false); }

// Without ghost nodes some seeds give a Neumann max error many times the rest (at h = 0.02, seeds
// 2 and 3 of 5); with them every seed stays within 1.5x of its Dirichlet error.
// Under the asan preset seed 2 alone, for the memory checks of the solves.
TEST(PoissonSolve, GhostNodesKeepEverySeedsNeumannErrorNearDirichlet) {
  const std::uint64_t first = nodegen::test::kSanitized ? 2 : 1, last = nodegen::test::kSanitized ? 2 : 5;
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    const PoissonResult dirichlet = solve_box(2, 0.02, seed, false, false);
    const PoissonResult ghost = solve_box(2, 0.02, seed, true, true);
    EXPECT_LT(ghost.max_error, 1.5 * dirichlet.max_error) << "seed " << seed;
    EXPECT_GT(ghost.ghost_count, 0u);
  }
}

TEST(PoissonSolve, RefusesNeumannOnEveryBoundaryNode) {
  PoissonOptions options;
  options.neumann_ids = {1, 2, 3, 4};
  EXPECT_THROW(nodegen::solve::solve_poisson(filled_box(2, 0.1, 1), options, "box.json"), nodegen::InputError);
}

}  // namespace
