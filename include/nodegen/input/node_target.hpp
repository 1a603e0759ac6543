#pragma once
// A target node count (fill.nodes, --nodes): the spacing scaled by one constant factor so that the fill
// lands within 2 % of the count. The first factor comes from the loader's estimate (its interior term
// calibrated by how densely the PNP fill packs, its boundary term as it is); when that fill misses by
// more than 2 %, one more fill runs at the factor its own counts give (interior ~ h^-d, boundary ~
// h^-(d-1)). Both fills are functions of the domain file and the seed, so the factor and the nodes are
// the same at any thread count.
#include "nodegen/fill/discretization.hpp"
#include "nodegen/input/domain_file.hpp"

namespace nodegen {

// How far the fill may land from the target before a second fill runs.
inline constexpr double kTargetTolerance = 0.02;

// Refuses (InputError at fill.nodes) a target count the run may land beyond the node cap by
// kTargetTolerance: checked before any work.
void check_node_target(const DomainFile& file);

// Refuses (InputError at spacing) a file without a target whose estimated node count
// (estimated_node_count) is beyond FillParams::kMaxNodeCap, the most nodes an output's int32 indexes
// address: at load, whatever the cap, since a cap at that limit let such a run fill until memory ran out.
void check_node_limit(const DomainFile& file);

// The nodes the fill is expected to place at the file's spacing: the loader's estimate, its interior
// term calibrated by the fill's packing.
double estimated_node_count(const DomainFile& file);

// The factor the loader's estimate gives for `target` nodes (what the first fill uses; --dry-run prints it).
double estimated_spacing_factor(const DomainFile& file, std::size_t target);

struct TargetedFill {
  AnyDiscretization nodes;
  double factor = 1.0;  // the spacing's factor of the fill kept
  int fills = 1;        // 1, 2 when the first missed by more than kTargetTolerance, 3 when it also reached the cap
};

// Fills `file` to file.target_nodes (which must be set), leaving file.spacing and file.expected_nodes
// scaled as the kept fill had them (the output's h is the scaled spacing's). A first fill that reaches
// the node cap (the estimate undershot) runs again aiming well below it before the correction. Throws
// InputError at fill.nodes when the target is within kTargetTolerance of the cap, and what fill_domain
// throws.
TargetedFill fill_domain_to_target(DomainFile& file, const FillOptions& options);

// The fill a run asks for: to file.target_nodes when it is set, else at the spacing as written
// (fields 1 and 0 of TargetedFill). The fill's own errors become InputErrors of the file's fields, as
// the loader's are: a SpacingFault at "spacing", StoreFull at "fill.max_nodes" (naming the cap).
TargetedFill fill_as_asked(DomainFile& file, const FillOptions& options);

}  // namespace nodegen
