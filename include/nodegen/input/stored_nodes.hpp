#pragma once
// The checks a node set read back from a file passes before anything is measured or solved on it,
// shared by `nodegen stats` (node_report.hpp) and `nodegen solve`, so both refuse the same files alike:
// h positive and finite where the file has it, every boundary node's normal a unit vector, and every
// boundary id one the file's part names name (or, without names, within the node count).
#include <filesystem>
#include <string>
#include <vector>

#include "nodegen/io/node_arrays.hpp"

namespace nodegen {

// How far a stored normal's length may be from 1. nodegen writes the fill's normals as doubles,
// normalized to rounding; the margin also admits normals that went through single precision once.
inline constexpr double kNormalLengthTolerance = 1e-6;

// The file's boundary part names: its boundary_names attribute, a JSON array of strings whose element
// k - 1 names boundary id k. Empty when the file has none (one Medusa wrote). Throws
// InputError(file, "/domain boundary_names", ...) when the attribute is not such an array.
std::vector<std::string> stored_part_names(const std::filesystem::path& file, const io::RunMetadata& metadata);

// Throws InputError naming `file` and the dataset: /domain/h for an h that is not positive and finite
// (h itself may be missing: a Medusa file has none), /domain/normals for a boundary node's normal that
// is not finite or not of unit length, /domain/types for a boundary id beyond `names` (or, when
// `names` is empty, above the node count).
void check_stored_nodes(const std::filesystem::path& file, const io::NodeArrays& nodes,
                        const std::vector<std::string>& names);

}  // namespace nodegen
