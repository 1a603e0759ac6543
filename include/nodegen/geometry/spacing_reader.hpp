#pragma once
// A domain file's "spacing" field read into a Spacing, and the spacing checked over the domain before
// any work: positive and finite wherever the fill may evaluate it, resolved by the coordinates, and not
// asking for clearly more nodes than the cap. The check also estimates the node count, which the fill
// reserves room by (DomainFile::expected_nodes).
#include <cstddef>

#include <nlohmann/json.hpp>

#include "nodegen/geometry/domain.hpp"
#include "nodegen/geometry/json_fields.hpp"
#include "nodegen/geometry/spacing.hpp"

namespace nodegen {

// A number (constant h) or an expression string in x, y, z. Throws InputError at "spacing".
Spacing read_spacing(const JsonFields& fields, const nlohmann::json& spacing);

// Samples h on a 64^d grid over the domain's bounding box, 2000 random points and the box's corners.
// Throws InputError at "spacing" when h is not positive and finite, below kMinSpacing, beyond what
// double precision or the fill's grid resolves, or when the estimate exceeds twice `max_nodes` (the
// message names --max-nodes when `cap_from_cli`, else fill.max_nodes). Returns the estimated node
// count: measure / h^d inside plus the boundary as a staircase of grid faces over h^(d-1).
struct NodeEstimate {
  double interior = 0.0, boundary = 0.0;
  double total() const { return interior + boundary; }
};
template <int D>
NodeEstimate check_spacing(const JsonFields& fields, const Spacing& spacing, const Domain<D>& domain,
                           std::size_t max_nodes, bool cap_from_cli);

extern template NodeEstimate check_spacing<2>(const JsonFields&, const Spacing&, const Domain<2>&, std::size_t, bool);
extern template NodeEstimate check_spacing<3>(const JsonFields&, const Spacing&, const Domain<3>&, std::size_t, bool);

}  // namespace nodegen
