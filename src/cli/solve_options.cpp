#include "solve_options.hpp"

#include "isolated_run.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "number_argument.hpp"
#include "run_command.hpp"
#include "stdout_check.hpp"
#include "thread_start.hpp"

namespace nodegen::cli {

SolveOptions::SolveOptions(CLI::App& app, int default_threads) {
  args_.options.threads = default_threads;
  command_ = app.add_subcommand(
      "solve",
      "RBF-FD check of nodes by the solve they give: Poisson's equation with a known (manufactured) solution,\n"
      "  2D: u = sin(pi x) sin(pi y) + e^x cos(2y),  3D: u = sin(pi x) sin(pi y) sin(pi z) + e^x cos(2y) cos(z),\n"
      "x, y, z measured from the nodes' lowest corner (the unit square's and cube's: the origin);\n"
      "PHS r^3 + monomials, the k nearest nodes as each stencil, Dirichlet on every boundary part except those\n"
      "named by --neumann (du/dn = g along the file's normals). Prints the max error (and where it lies) and\n"
      "the relative L2 error. Given a domain file, fills it in-process (one thread, so a seed gives the same\n"
      "nodes), once with its seed or once per seed of --seeds, and prints median, p90, worst and the count\n"
      "above 5x the median. docs/neumann.md explains the Neumann figures.");
  command_->add_option("INPUT", args_.input, "A .h5 written by nodegen run (or in its layout), or a domain file (JSON)")
      ->required();
  command_->add_option("--neumann", args_.neumann,
                       "Boundary part with a Neumann condition, by its name in the file's boundary_names (e.g. "
                       "box:x+); repeat or separate with commas. A file without names names its parts 1, 2, ...")
      ->delimiter(',');
  seeds_option_ = command_->add_option("--seeds", seeds_, "A-B: fill the domain file once per seed A..B");
  k_option_ = command_->add_option("--k", k_, "Stencil size, 1-200 (default 15 in 2D, 30 in 3D)");
  order_option_ = command_->add_option("--order", order_, "Monomials up to this total degree, 1-3 (default 2)");
  command_->add_option("--solver", solver_,
                       "auto (BiCGSTAB + ILUT in 3D with every part Dirichlet, else sparse LU), lu or bicgstab")
      ->capture_default_str();
  command_->add_flag("--ghost-nodes", args_.options.ghost_nodes,
                     "A ghost node h outside every Neumann node, carrying the Laplacian at the boundary node "
                     "(docs/neumann.md)");
  threads_option_ = command_->add_option("--threads", threads_,
                                         "Threads for the stencil weights, 1-1024 (default: the CPUs this process may "
                                         "run on)")
                        ->type_name("INT");
  command_->add_flag("--json", args_.json, "Print the results as JSON");
  command_->add_option("--solution", solution_,
                       "smooth (the default), or front: u = atan(40 (|p - c| - 0.3)), c the unit square's (cube's) "
                       "centre from the nodes' lowest corner, a steep front a graded spacing pays off on")
      ->capture_default_str();
  error_out_option_ = command_->add_option("--error-out", error_out_,
                                           "Also write FILE.h5 with /positions {N, d}, /error (|u - u*| at each node), "
                                           "/residual (each row applied to u* less its right-hand side: the local "
                                           "truncation error) and /h, the layout a spacing's samples read "
                                           "(docs/domain-format.md)");
}

SolveArgs SolveOptions::checked_args() const {
  SolveArgs args = args_;
  refuse_empty(args.input.string(), "INPUT");
  if (*seeds_option_) args.seeds = parse_seed_range(seeds_);
  if (*k_option_) args.options.stencil_size = static_cast<int>(whole_number(k_, "--k", 1, solve::kMaxStencilSize));
  if (*order_option_) args.options.order = static_cast<int>(whole_number(order_, "--order", 1, 3));
  if (*threads_option_) args.options.threads = static_cast<int>(whole_number(threads_, "--threads", 1, kMaxThreads));
  if (solver_ == "auto") args.options.solver = solve::LinearSolver::automatic;
  else if (solver_ == "lu") args.options.solver = solve::LinearSolver::sparse_lu;
  else if (solver_ == "bicgstab") args.options.solver = solve::LinearSolver::bicgstab_ilut;
  else throw InputError("--solver", "value", "expected auto, lu or bicgstab, got " + solver_);
  if (solution_ == "smooth") args.options.solution = solve::Solution::smooth;
  else if (solution_ == "front") args.options.solution = solve::Solution::front;
  else throw InputError("--solution", "value", "expected smooth or front, got " + solution_);
  if (*error_out_option_) {
    refuse_empty(error_out_, "--error-out");
    args.error_out = error_out_;
  }
  return args;
}

int SolveOptions::run() {
  const SolveArgs args = checked_args();
  require_threads_start(args.options.threads);
  auto solve_and_print = [&] {
    const int status = solve_command(args);
    require_stdout_written();
    return status;
  };
  // libhdf5 crashes on some corrupt files: a written file is solved in a child process, as stats reads it.
  reads_hdf5_ = is_hdf5(args.input);
  if (reads_hdf5_) return run_isolated(solve_and_print, args.input.string(), "libhdf5");
  return solve_and_print();
}

}  // namespace nodegen::cli
