#pragma once
// The last steps of discretize (nodegen.hpp) after the fill: h at every node, the supports, and the
// attributes Nodes::write stores.
#include "api/api_state.hpp"
#include "nodegen/fill/discretization.hpp"
#include "nodegen/input/domain_file.hpp"

namespace nodegen::api_detail {

// Evaluates file.spacing (as the fill ran it) at every node in parallel, one evaluator per thread as
// the command's writer does; finds `supports` nearest nodes of each when > 0; records the metadata.
template <int D>
void complete(FilledNodes<D>& out, const DomainFile& file, const FillOptions& fill, int supports);

}  // namespace nodegen::api_detail
