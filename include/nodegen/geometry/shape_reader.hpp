#pragma once
// Reading a domain file's "shape" field (docs/domain-format.md: box, ball, disk, sphere, polygon, mesh,
// union, intersection, difference, translate, scale, rotate) into a Domain<D>: the meshes it names
// read, checked and repaired, the polygons' rings checked not to cross, CSG nodes checked for the
// cost of their overlaps, the whole checked for coordinates the fill's arithmetic holds. Every problem
// is one InputError naming the field's JSON path.
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nodegen/geometry/domain.hpp"
#include "nodegen/geometry/json_fields.hpp"

namespace nodegen {

// Shape trees deeper than this are refused: the loader, the inside test and the boundary placement
// recurse once per level, the inside test on the fill's threads. A tree at the limit runs in a 1 MiB
// stack in the release build and in the 8 MB of a thread under AddressSanitizer, whose frames are
// larger; the CLI's stacks are sized for it whatever ulimit -s says (src/cli/thread_stacks.hpp).
inline constexpr int kMaxShapeDepth = 256;

template <int D>
struct ReadShape {
  std::shared_ptr<const Domain<D>> domain;
  std::vector<std::string> repairs;  // what was mended in its meshes, a CAD part's unit, one line each ("NAME: WHAT")
};

// `shape`: the file's "shape" value; `fields` names the file and remembers the files it reads.
template <int D>
ReadShape<D> read_shape(const JsonFields& fields, const nlohmann::json& shape);

extern template ReadShape<2> read_shape<2>(const JsonFields&, const nlohmann::json&);
extern template ReadShape<3> read_shape<3>(const JsonFields&, const nlohmann::json&);

}  // namespace nodegen
