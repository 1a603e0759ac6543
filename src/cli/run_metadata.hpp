#pragma once
// What `nodegen run` hands to the output files: the nodes as flat arrays with h evaluated per node, and
// the run's metadata (attributes of /domain: docs/output-format.md).
#include <string_view>
#include <vector>

#include "nodegen/fill/discretization.hpp"
#include "nodegen/geometry/spacing.hpp"
#include "nodegen/input/domain_file.hpp"
#include "nodegen/io/node_arrays.hpp"
#include "run_command.hpp"
#include "run_totals.hpp"

namespace nodegen::cli {

// A flat view of the fill's vectors (Vec<D> is D packed doubles) with h evaluated in parallel, block
// by block, with one Spacing evaluator per thread (muparser evaluators are not thread-safe), each made
// by its thread (Spacing::evaluators). `evaluators` must outlive the view.
template <int D>
io::NodeArraysView view_of(const Discretization<D>& disc, const Spacing& spacing, int threads,
                           std::vector<Spacing::Evaluator>& evaluators);

// The attributes of /domain; `totals` gives the node counts and times known before writing.
io::RunMetadata run_metadata(const RunArgs& args, const DomainFile& domain, std::string_view backend,
                             const RunTotals& totals, double seconds_before_write);

}  // namespace nodegen::cli
