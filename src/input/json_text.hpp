#pragma once
// A domain file's text parsed as JSON, with the mistakes a parser would hide or report obscurely
// turned into one-line InputErrors at "line L, column C": nesting deeper than the loader recurses,
// syntax errors, numbers beyond double's range, and keys given twice in one object.
#include <string>

#include <nlohmann/json.hpp>

#include "nodegen/geometry/shape_reader.hpp"

namespace nodegen::input_detail {

// JSON nesting is refused beyond twice the shape tree's depth limit plus the few levels around the
// tree (a CSG level is an object and its children array), before anything is built.
inline constexpr int kMaxJsonDepth = 2 * kMaxShapeDepth + 8;

// Parses `text` (named `file` in errors). Throws InputError.
nlohmann::json parse_json_text(const std::string& text, const std::string& file);

}  // namespace nodegen::input_detail
