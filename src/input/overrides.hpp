#pragma once
// `nodegen run --set KEY=VALUE`: a field of the domain file replaced before it is read. KEY is the
// field's path, names separated by dots with [i] for an array's element ("spacing", "fill.seed",
// "shape.children[1].radius"); objects missing on the way are made. VALUE is JSON where it parses as
// JSON (0.002, true, {"samples": ...}), else a string ("0.01+0.1*x").
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nodegen::input_detail {

// Applies each "KEY=VALUE" in order. Throws InputError("--set", KEY, reason) for a malformed one, a
// path through something that is not an object or array, or an index past an array's end.
void apply_overrides(nlohmann::json& root, const std::vector<std::string>& overrides);

}  // namespace nodegen::input_detail
