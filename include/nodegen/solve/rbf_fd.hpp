#pragma once
// RBF-FD stencil weights: polyharmonic spline r^3 augmented with the monomials up to a given total
// degree (Flyer, Fornberg, Bayona & Barnett 2016; the scheme behind Medusa's RBFFD<Polyharmonic<3>>).
//
// The weights w of a stencil x_1..x_n around its centre x_c make sum_j w_j u(x_j) approximate L u(x_c)
// exactly for every polynomial of the augmentation's degree, and as the r^3 interpolant's L otherwise.
#include <Eigen/Core>

namespace nodegen::solve {

// The linear operator applied at the stencil's centre.
struct StencilOperator {
  enum class Kind { laplacian, directional_derivative };
  Kind kind = Kind::laplacian;
  Eigen::Vector3d direction = Eigen::Vector3d::Zero();  // directional_derivative: d/dn along this (unit) vector

  static StencilOperator laplacian() { return {}; }
  static StencilOperator derivative_along(const Eigen::Vector3d& n) { return {Kind::directional_derivative, n}; }
};

// Number of monomials of total degree <= order in dim variables: (order+dim choose dim).
int monomial_count(int dim, int order);

// offsets: n x dim, row j = x_j - x_c (the centre itself is usually row 0, offset zero). The system is
// solved in coordinates scaled by the stencil's radius, so its conditioning does not depend on h.
// Throws std::runtime_error when the stencil cannot carry the monomials (n < monomial_count, or points
// that are not unisolvent, e.g. collinear in 2D for order >= 1).
Eigen::VectorXd rbf_fd_weights(const Eigen::MatrixXd& offsets, int order, const StencilOperator& op);

}  // namespace nodegen::solve
