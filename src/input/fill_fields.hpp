#pragma once
// A domain file's "fill" object (candidates, seed, max_nodes) read into FillParams.
#include <nlohmann/json.hpp>

#include "nodegen/fill/fill_params.hpp"
#include "nodegen/geometry/json_fields.hpp"

namespace nodegen::input_detail {

// Starts from FillParams::defaults_for(fields.dim()); throws InputError at "fill.KEY".
FillParams read_fill_params(const JsonFields& fields, const nlohmann::json& fill);

}  // namespace nodegen::input_detail
