#include "nodegen/solve/poisson.hpp"

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCore>
#include <Eigen/SparseLU>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <optional>
#include <nanoflann.hpp>
#include <stdexcept>
#include <string>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/solve/manufactured.hpp"
#include "nodegen/solve/rbf_fd.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "memory_available.hpp"

namespace nodegen::solve {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The points the stencils are taken from: the nodes, then the ghost nodes (if any), as nanoflann's
// dataset adaptor.
struct PointCloud {
  int dim = 2;
  std::vector<Eigen::Vector3d> points;
  std::size_t kdtree_get_point_count() const { return points.size(); }
  double kdtree_get_pt(std::size_t i, std::size_t axis) const { return points[i][static_cast<Eigen::Index>(axis)]; }
  template <class Box>
  bool kdtree_get_bbox(Box&) const { return false; }
};
using KdTree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, PointCloud>, PointCloud, -1,
                                                   std::uint32_t>;

std::vector<std::uint32_t> nearest(const KdTree& tree, const Eigen::Vector3d& p, int k) {
  std::vector<std::uint32_t> index(static_cast<std::size_t>(k));
  std::vector<double> dist2(static_cast<std::size_t>(k));
  const std::size_t found = tree.knnSearch(p.data(), static_cast<std::size_t>(k), index.data(), dist2.data());
  index.resize(found);
  return index;
}

// One row of the global matrix: the unknowns of a stencil, their weights, and the right-hand side.
struct Row {
  std::vector<std::uint32_t> columns;
  Eigen::VectorXd weights;
  double rhs = 0;
};

Row stencil_row(const PointCloud& cloud, const KdTree& tree, const Eigen::Vector3d& centre, int k, int order,
                const StencilOperator& op) {
  Row row;
  row.columns = nearest(tree, centre, k);
  Eigen::MatrixXd offsets(static_cast<Eigen::Index>(row.columns.size()), cloud.dim);
  for (std::size_t j = 0; j < row.columns.size(); ++j)
    offsets.row(static_cast<Eigen::Index>(j)) = (cloud.points[row.columns[j]] - centre).head(cloud.dim).transpose();
  row.weights = rbf_fd_weights(offsets, order, op);
  return row;
}

// `advice`: what the error of a BiCGSTAB that does not converge suggests.
Eigen::VectorXd solve_system(const Eigen::SparseMatrix<double>& matrix, const Eigen::VectorXd& rhs, LinearSolver solver,
                             int& iterations, const std::string& file, const std::string& advice) {
  if (solver == LinearSolver::sparse_lu) {
    Eigen::SparseLU<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> lu;
    lu.analyzePattern(matrix);
    lu.factorize(matrix);
    if (lu.info() != Eigen::Success)
      throw InputError(file, "solve", "the RBF-FD matrix is singular (sparse LU: " + lu.lastErrorMessage() + ")");
    return lu.solve(rhs);
  }
  const Eigen::SparseMatrix<double, Eigen::RowMajor> rows = matrix;
  Eigen::BiCGSTAB<Eigen::SparseMatrix<double, Eigen::RowMajor>, Eigen::IncompleteLUT<double>> bicg;
  bicg.preconditioner().setDroptol(1e-4);
  bicg.preconditioner().setFillfactor(20);
  bicg.setTolerance(1e-12);
  bicg.setMaxIterations(1000);
  bicg.compute(rows);
  if (bicg.info() != Eigen::Success) throw InputError(file, "solve", "ILUT preconditioner failed on the RBF-FD matrix");
  Eigen::VectorXd u = bicg.solve(rhs);
  iterations = static_cast<int>(bicg.iterations());
  if (bicg.info() != Eigen::Success)
    throw InputError(file, "solve", "BiCGSTAB did not converge in 1000 iterations (error " + std::to_string(bicg.error()) +
                                        "); " + advice);
  return u;
}

// k: the options' stencil size, or the dimension's default.
int stencil_size(const PoissonOptions& options, int dim) {
  return options.stencil_size > 0 ? options.stencil_size : default_stencil_size(dim);
}

// The most unknowns the system can have: ghost nodes add at most one per boundary node.
std::size_t most_unknowns(const io::NodeArrays& nodes, const PoissonOptions& options) {
  return nodes.node_count() + (options.ghost_nodes ? nodes.boundary_count() : 0);
}

// Whether a node of this type lies on a boundary part with a Neumann condition.
bool is_neumann(std::int32_t type, const PoissonOptions& options) {
  const auto& ids = options.neumann_ids;
  return type < 0 && std::find(ids.begin(), ids.end(), -type) != ids.end();
}

// The peak memory of a solve by sparse LU (COLAMD ordering), whose factors grow faster than the matrix
// (fill-in): a fit to the whole process's peak RSS measured on unit squares and cubes with k at its
// default (measured: bench/RESULTS.md, Solver), 71 n^1.36 bytes in 2D and 110 n^1.56 in 3D, with a
// quarter more for other node sets, and in proportion to k.
double lu_peak_bytes(int dim, std::size_t unknowns, int k) {
  const double n = static_cast<double>(unknowns);
  const double fit = dim == 2 ? 71.0 * std::pow(n, 1.36) : 110.0 * std::pow(n, 1.56);
  return 1.25 * fit * static_cast<double>(k) / static_cast<double>(default_stencil_size(dim));
}

// The solver the options ask for, where sparse LU is refused (lu) or passed over (automatic) when its
// peak would not fit in the memory this process can take: the kernel's out-of-memory killer, not an
// error, would otherwise end the run. Decided before the system is assembled.
// `advice`: what to try should BiCGSTAB not converge.
LinearSolver choose_solver(const io::NodeArrays& nodes, const PoissonOptions& options, const std::string& file,
                           std::string& advice) {
  advice = "try --solver lu";
  const int dim = nodes.dim;
  const bool all_dirichlet = std::none_of(nodes.types.begin(), nodes.types.end(),
                                          [&](std::int32_t t) { return is_neumann(t, options); });
  LinearSolver solver = options.solver != LinearSolver::automatic ? options.solver
                        : dim == 3 && all_dirichlet                 ? LinearSolver::bicgstab_ilut
                                                                    : LinearSolver::sparse_lu;
  if (solver != LinearSolver::sparse_lu) return solver;
  const std::size_t unknowns = most_unknowns(nodes, options);
  const double need = lu_peak_bytes(dim, unknowns, stencil_size(options, dim));
  const std::optional<double> available = memory_available_bytes();
  if (!available || need <= *available) return solver;
  char text[320];
  std::snprintf(text, sizeof text,
                "sparse LU on %zu unknowns in %dD would need about %.1f GB (its factors' fill-in), above the %.1f GB "
                "this process can take (free memory, cgroup and ulimit -v limits)",
                unknowns, dim, need / 1e9, *available / 1e9);
  if (options.solver != LinearSolver::automatic)
    throw InputError(file, "--solver", std::string("lu: ") + text +
                                           "; use --solver bicgstab (with --ghost-nodes where parts are Neumann) or fewer nodes");
  advice = std::string("it was chosen because ") + text + ": use fewer nodes, or more memory";
  return LinearSolver::bicgstab_ilut;
}

// The stencil size, once the nodes and options are checked: dimension, order, enough nodes for a
// stencil, a matrix that fits in memory, and a Dirichlet part. Throws InputError.
int checked_stencil_size(const io::NodeArrays& nodes, const PoissonOptions& options, const std::string& file) {
  const int dim = nodes.dim;
  if (dim != 2 && dim != 3) throw InputError(file, "/domain/pos", "dimension " + std::to_string(dim) + ", expected 2 or 3");
  if (options.order < 1 || options.order > 3)
    throw InputError("--order", "value", "expected 1, 2 or 3, got " + std::to_string(options.order));
  const int k = stencil_size(options, dim);
  const int monomials = monomial_count(dim, options.order);
  if (k < monomials)
    throw InputError("--k", "value", std::to_string(k) + " nodes cannot carry the " + std::to_string(monomials) +
                                         " monomials of order " + std::to_string(options.order) + " in " +
                                         std::to_string(dim) + "D");
  if (k > kMaxStencilSize)
    throw InputError("--k", "value", "at most " + std::to_string(kMaxStencilSize) + ", got " + std::to_string(k));
  const std::size_t n = nodes.node_count();
  if (n < static_cast<std::size_t>(k))
    throw InputError(file, "/domain/pos", std::to_string(n) + " nodes, fewer than a stencil of " + std::to_string(k));
  // The assembly holds each row's stencil (12 bytes an entry), then the matrix's triplets (16) and the
  // matrix (12), and BiCGSTAB a row-major copy (12): refused at once when that cannot fit, before hours
  // of stencil weights end in the out-of-memory killer.
  const double unknowns_bound = static_cast<double>(most_unknowns(nodes, options));
  const double matrix_bytes = 40.0 * unknowns_bound * k;
  if (const auto available = memory_available_bytes(); available && matrix_bytes > *available) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "stencils of %d nodes on %.0f unknowns make a matrix of about %.1f GB to assemble, above the %.1f GB "
                  "this process can take (free memory, cgroup and ulimit -v limits): use fewer nodes or a smaller k",
                  k, unknowns_bound, matrix_bytes / 1e9, *available / 1e9);
    throw InputError(file, "solve", text);
  }

  std::size_t dirichlet = 0;
  for (std::int32_t t : nodes.types) dirichlet += (t < 0 && !is_neumann(t, options)) ? 1 : 0;
  if (dirichlet == 0)
    throw InputError(file, "--neumann", "Neumann on every boundary node defines u only up to a constant; keep a part Dirichlet");

  return k;
}

// Node i's outward normal (zero beyond the dimension).
Eigen::Vector3d normal_of(const io::NodeArrays& nodes, std::size_t i) {
  const int dim = nodes.dim;
  Eigen::Vector3d v = Eigen::Vector3d::Zero();
  const auto row = static_cast<std::size_t>(nodes.bmap[i]);
  for (int a = 0; a < dim; ++a) v[a] = nodes.normals[row * static_cast<std::size_t>(dim) + static_cast<std::size_t>(a)];
  return v;
}

// h at a node: the file's, else (a file without /domain/h) the distance to its nearest other node.
std::vector<double> spacing_at_nodes(const io::NodeArrays& nodes, const PointCloud& cloud, int threads) {
  const std::size_t n = nodes.node_count();
  std::vector<double> h = nodes.h;
  if (h.size() == n) return h;
  KdTree tree(cloud.dim, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(16));
  h.assign(n, 0.0);
  parallel_for(n, threads, [&](int, std::size_t i) {
    const auto two = nearest(tree, cloud.points[i], 2);
    h[i] = (cloud.points[two.back()] - cloud.points[i]).norm();
  });
  return h;
}

// The manufactured solution from the nodes' lowest corner; beyond about 700 from it e^x overflows,
// refused. Throws InputError.
ManufacturedSolution solution_for(const PointCloud& cloud, std::size_t n, Solution kind, const std::string& file) {
  ManufacturedSolution exact{cloud.dim};
  exact.kind = kind;
  if (n > 0) exact.origin = cloud.points[0];
  for (std::size_t i = 0; i < n; ++i) exact.origin = exact.origin.cwiseMin(cloud.points[i]);
  for (const Eigen::Vector3d& p : cloud.points)
    if (!std::isfinite(exact.u(p)) || !std::isfinite(exact.laplacian(p)))
      throw InputError(file, "solve", "the manufactured solution (e^x ...) overflows on these nodes: they reach " +
                                          std::to_string((p - exact.origin).maxCoeff()) +
                                          " from their lowest corner, beyond the ~700 where e^x stays finite; scale the domain down to check it");
  return exact;
}

// One row per unknown: the Laplacian inside, the normal derivative on Neumann nodes (and the Laplacian
// at the boundary node on its ghost's row), u itself on Dirichlet nodes. Throws InputError naming the
// first node whose stencil fails.
std::vector<Row> stencil_rows(const io::NodeArrays& nodes, const PoissonOptions& options, const PointCloud& cloud,
                              const std::vector<std::size_t>& ghost_of, const ManufacturedSolution& exact, int k,
                              std::vector<RowKind>& kinds, const std::string& file) {
  const std::size_t n = nodes.node_count();
  const KdTree tree(cloud.dim, cloud, nanoflann::KDTreeSingleIndexAdaptorParams(16));
  std::vector<Row> rows(cloud.points.size());
  std::string failure;
  std::size_t failed_node = n;
  std::mutex failure_mutex;
  parallel_for(n, options.threads, [&](int, std::size_t i) {
    const Eigen::Vector3d& p = cloud.points[i];
    const std::int32_t type = nodes.types[i];
    try {
      if (type > 0) {
        rows[i] = stencil_row(cloud, tree, p, k, options.order, StencilOperator::laplacian());
        rows[i].rhs = exact.laplacian(p);
        kinds[i] = RowKind::laplacian;
      } else if (is_neumann(type, options)) {
        const Eigen::Vector3d normal = normal_of(nodes, i);
        rows[i] = stencil_row(cloud, tree, p, k, options.order, StencilOperator::derivative_along(normal));
        rows[i].rhs = exact.gradient(p).dot(normal);
        kinds[i] = RowKind::neumann;
        if (ghost_of[i] != 0) {
          Row& pde = rows[ghost_of[i]];
          pde = stencil_row(cloud, tree, p, k, options.order, StencilOperator::laplacian());
          pde.rhs = exact.laplacian(p);
        }
      } else {
        rows[i].columns = {static_cast<std::uint32_t>(i)};
        rows[i].weights = Eigen::VectorXd::Ones(1);
        rows[i].rhs = exact.u(p);
        kinds[i] = RowKind::dirichlet;
      }
    } catch (const std::runtime_error& e) {
      const std::lock_guard lock(failure_mutex);
      if (i < failed_node) failed_node = i, failure = e.what();
    }
  });
  if (failed_node < n)
    throw InputError(file, "/domain/pos", "node " + std::to_string(failed_node) + ": " + failure);
  return rows;
}

// The sparse matrix and right-hand side of the rows (which it frees as it goes).
void assemble_matrix(std::vector<Row>& rows, int k, PoissonSystem& system) {
  const std::size_t unknowns = rows.size();
  std::vector<Eigen::Triplet<double>> triplets;
  triplets.reserve(unknowns * static_cast<std::size_t>(k));
  Eigen::VectorXd rhs(static_cast<Eigen::Index>(unknowns));
  for (std::size_t r = 0; r < unknowns; ++r) {
    for (std::size_t j = 0; j < rows[r].columns.size(); ++j)
      triplets.emplace_back(static_cast<int>(r), static_cast<int>(rows[r].columns[j]), rows[r].weights[static_cast<Eigen::Index>(j)]);
    rhs[static_cast<Eigen::Index>(r)] = rows[r].rhs;
  }
  rows.clear();
  rows.shrink_to_fit();
  system.matrix.resize(static_cast<Eigen::Index>(unknowns), static_cast<Eigen::Index>(unknowns));
  system.matrix.setFromTriplets(triplets.begin(), triplets.end());
  system.rhs = std::move(rhs);
}

}  // namespace

PoissonSystem assemble_poisson(const io::NodeArrays& nodes, const PoissonOptions& options, const std::string& file) {
  const int dim = nodes.dim;
  const int k = checked_stencil_size(nodes, options, file);
  const std::size_t n = nodes.node_count();
  PointCloud cloud;
  cloud.dim = dim;
  cloud.points.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) cloud.points[i][a] = a < dim ? nodes.coord(i, a) : 0.0;
  for (std::size_t i = 0; i < n; ++i)
    if (is_neumann(nodes.types[i], options) && (nodes.bmap[i] < 0 || static_cast<std::size_t>(nodes.bmap[i]) >= nodes.boundary_count()))
      throw InputError(file, "/domain/bmap", "Neumann node " + std::to_string(i) + " has no normal");
  std::vector<double> h = spacing_at_nodes(nodes, cloud, options.threads);

  // Ghost node g of Neumann node b: x_b + h_b n_b, unknown n + g.
  std::vector<std::size_t> ghost_of(n, 0);  // 0: none, else unknown index
  std::vector<std::size_t> ghost_owner;
  if (options.ghost_nodes)
    for (std::size_t i = 0; i < n; ++i)
      if (is_neumann(nodes.types[i], options)) {
        ghost_of[i] = cloud.points.size();
        ghost_owner.push_back(i);
        cloud.points.push_back(cloud.points[i] + h[i] * normal_of(nodes, i));
      }
  const ManufacturedSolution exact = solution_for(cloud, n, options.solution, file);
  PoissonSystem system;
  system.rows.assign(cloud.points.size(), RowKind::ghost_laplacian);
  std::vector<Row> rows = stencil_rows(nodes, options, cloud, ghost_of, exact, k, system.rows, file);
  assemble_matrix(rows, k, system);
  system.points = std::move(cloud.points);
  system.h = std::move(h);
  system.node_count = n;
  system.origin = exact.origin;
  system.ghost_owner = std::move(ghost_owner);
  return system;
}

PoissonResult solve_poisson(const io::NodeArrays& nodes, const PoissonOptions& options, const std::string& file) {
  const auto start = Clock::now();
  std::string advice;
  const LinearSolver solver = choose_solver(nodes, options, file, advice);
  const PoissonSystem system = assemble_poisson(nodes, options, file);
  const int dim = nodes.dim;
  const std::size_t n = system.node_count;
  const std::vector<Eigen::Vector3d>& points = system.points;
  const std::vector<double>& h = system.h;
  const ManufacturedSolution exact{dim, system.origin, options.solution};
  PoissonResult result;
  result.unknowns = points.size();
  result.ghost_count = points.size() - n;
  result.assembly_seconds = seconds_since(start);
  const auto solve_start = Clock::now();
  result.solver = solver;
  const Eigen::VectorXd u = solve_system(system.matrix, system.rhs, result.solver, result.iterations, file, advice);
  result.solve_seconds = seconds_since(solve_start);
  // The scheme's local truncation error: each row applied to the exact solution, less its right-hand
  // side (the Laplacian's stencil error inside, the normal derivative's on Neumann nodes, 0 on Dirichlet
  // ones): what refinement reduces, without the solve's pollution.
  Eigen::VectorXd exact_values(static_cast<Eigen::Index>(points.size()));
  for (std::size_t i = 0; i < points.size(); ++i) exact_values[static_cast<Eigen::Index>(i)] = exact.u(points[i]);
  const Eigen::VectorXd residual = system.matrix * exact_values - system.rhs;
  result.node_residuals.resize(n);
  for (std::size_t i = 0; i < n; ++i) result.node_residuals[i] = std::abs(residual[static_cast<Eigen::Index>(i)]);
  if (!u.allFinite()) throw InputError(file, "solve", "the RBF-FD solution is not finite (singular matrix)");

  double err2 = 0, ref2 = 0;
  result.node_errors.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double ue = exact.u(points[i]);
    const double e = std::abs(u[static_cast<Eigen::Index>(i)] - ue);
    result.node_errors[i] = e;
    err2 += e * e;
    ref2 += ue * ue;
    if (e > result.max_error || i == 0) result.max_error = e, result.max_node = i;
  }
  result.relative_l2_error = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  const Eigen::Vector3d& worst = points[result.max_node];
  result.max_position = {worst.x(), worst.y(), worst.z()};
  result.max_type = nodes.types[result.max_node];
  double wall = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < n; ++i)
    if (nodes.types[i] < 0) wall = std::min(wall, (points[i] - worst).norm());
  result.max_wall_distance_over_h = h[result.max_node] > 0 ? wall / h[result.max_node] : 0.0;
  return result;
}

}  // namespace nodegen::solve
