#pragma once
// An RBF-FD Poisson solve on a discretization, for judging nodes by the solve they give: Lap u = f
// inside, u = u* on the Dirichlet parts and du/dn = du*/dn on the Neumann parts, with u* the
// manufactured solution (solve/manufactured.hpp), so the error is known exactly.
//
// Every node's stencil is its k nearest nodes (itself included); interior rows collocate the Laplacian,
// Neumann rows the normal derivative along the file's outward normal, Dirichlet rows the value.
// With ghost nodes, every Neumann node also gets a node at x + delta n outside the domain (delta = h
// at the node) whose unknown carries a second row at the boundary node: the Laplacian. Ghosts join
// every stencil; errors are measured on the real nodes only.
#include <Eigen/SparseCore>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "nodegen/io/node_arrays.hpp"
#include "nodegen/solve/manufactured.hpp"

namespace nodegen::solve {

// automatic: BiCGSTAB + ILUT in 3D when every boundary part is Dirichlet (LU's fill-in grows fast in 3D,
// and there BiCGSTAB converges in a few iterations; bench/results/solver.md), sparse LU otherwise: in 2D
// LU is the faster, and with Neumann rows BiCGSTAB+ILUT can fail to converge (the matrix then has
// eigenvalues of both signs; docs/neumann.md). Sparse LU whose estimated peak memory exceeds what the
// process can take is passed over by automatic and refused when asked for (docs/domain-format.md).
enum class LinearSolver { automatic, sparse_lu, bicgstab_ilut };

struct PoissonOptions {
  int stencil_size = 0;            // k; 0: 15 in 2D, 30 in 3D
  int order = 2;                   // monomials up to this total degree (2 or 3)
  std::vector<int> neumann_ids;    // boundary ids (>= 1) with a Neumann condition; the rest are Dirichlet
  LinearSolver solver = LinearSolver::automatic;
  bool ghost_nodes = false;        // a ghost node outside every Neumann node (see above)
  int threads = 1;                 // stencil weights in parallel
  Solution solution = Solution::smooth;  // the manufactured solution (manufactured.hpp)
};

struct PoissonResult {
  double max_error = 0;            // max over the nodes of |u - u*|
  double relative_l2_error = 0;    // ||u - u*||_2 / ||u*||_2 over the nodes
  std::size_t max_node = 0;        // the node where the max is
  std::vector<double> node_errors; // |u - u*| at every node (not the ghost nodes)
  // |row(u*) - rhs| at every node: the scheme's local truncation error (0 on Dirichlet nodes)
  std::vector<double> node_residuals;
  std::array<double, 3> max_position{};
  std::int32_t max_type = 0;       // its type (1 interior, -id on boundary part id)
  double max_wall_distance_over_h = 0;  // distance from it to the nearest boundary node / h there
  std::size_t unknowns = 0;        // nodes + ghost nodes
  std::size_t ghost_count = 0;
  LinearSolver solver = LinearSolver::sparse_lu;  // the one used
  int iterations = 0;              // BiCGSTAB only
  double assembly_seconds = 0;
  double solve_seconds = 0;
};

// What each row of the global matrix collocates.
enum class RowKind : std::uint8_t { dirichlet, laplacian, neumann, ghost_laplacian };

// The assembled system: unknowns are the nodes (0 .. node_count-1), then the ghost nodes.
struct PoissonSystem {
  Eigen::SparseMatrix<double> matrix;
  Eigen::VectorXd rhs;
  std::vector<Eigen::Vector3d> points;  // node and ghost positions (z = 0 in 2D)
  std::vector<RowKind> rows;            // per row
  std::vector<double> h;                // per node: the file's h, else the nearest-neighbour distance
  std::vector<std::size_t> ghost_owner; // per ghost (unknown node_count + g): its boundary node
  std::size_t node_count = 0;
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();  // the manufactured solution's (manufactured.hpp)
};

// Builds the system solve_poisson solves (for the solve and for studies of its matrix). Throws as below.
PoissonSystem assemble_poisson(const io::NodeArrays& nodes, const PoissonOptions& options, const std::string& file);

// Throws InputError(file, field, reason) for input the solve cannot take: a dimension other than 2 or 3,
// fewer nodes than a stencil, a stencil that cannot carry the monomials, a singular global matrix, a
// Neumann condition on every boundary node (u is then defined only up to a constant).
PoissonResult solve_poisson(const io::NodeArrays& nodes, const PoissonOptions& options, const std::string& file);

// The largest k: each stencil's weights solve a dense system of k + monomials unknowns, (k + m)^3 / 3
// operations a node (with k in the thousands, tens of thousands of nodes take hours), and the
// monomials of order 3 or less ask for 20-40 stencil nodes at most.
inline constexpr int kMaxStencilSize = 200;

// The default k for a dimension.
inline int default_stencil_size(int dim) { return dim == 2 ? 15 : 30; }

}  // namespace nodegen::solve
