#pragma once
// A domain file's "fill" object (candidates, seed, max_nodes, nodes) read into FillParams and the
// node count asked for.
#include <cstddef>
#include <optional>

#include <nlohmann/json.hpp>

#include "nodegen/fill/fill_params.hpp"
#include "nodegen/geometry/json_fields.hpp"

namespace nodegen::input_detail {

struct FillFields {
  FillParams params;
  std::optional<std::size_t> nodes;  // "nodes": the count the spacing is scaled to give
};

// Starts from FillParams::defaults_for(fields.dim()); throws InputError at "fill.KEY".
FillFields read_fill_fields(const JsonFields& fields, const nlohmann::json& fill);

}  // namespace nodegen::input_detail
