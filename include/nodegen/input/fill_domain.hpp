#pragma once
// The fill of a loaded domain file: its boundary nodes placed (geometry), then its interior filled on
// the backend FillOptions names (fill.hpp), with room reserved by the loader's node estimate.
#include "nodegen/fill/discretization.hpp"
#include "nodegen/input/domain_file.hpp"

namespace nodegen {

// Places the domain file's boundary nodes, then fills its interior on options.backend. fill_seconds
// covers both (not the output copy's caller). Throws StoreFull (one line naming the node cap) when
// FillParams::max_nodes would be exceeded, SpacingFault for a spacing the fill cannot take. A fill
// that runs out of the room it reserved runs again with twice the room; its nodes are the same.
AnyDiscretization fill_domain(const DomainFile& file, const FillOptions& options);

}  // namespace nodegen
