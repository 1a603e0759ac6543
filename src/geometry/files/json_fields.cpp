#include "nodegen/geometry/json_fields.hpp"
#include "nodegen/geometry/input_error.hpp"

#include <climits>
#include <cmath>
#include <sstream>

namespace nodegen {

using nlohmann::json;

std::string json_type_name(const json& j) {
  switch (j.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    default: return "a number";
  }
}

std::string number_text(double v) {
  if (std::isnan(v)) return "nan";  // not "-nan": the sign of a NaN means nothing to a user
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

const json& JsonFields::require(const json& obj, const std::string& at, const char* key) const {
  auto it = obj.find(key);
  if (it == obj.end()) fail(join(at, key), "missing");
  return *it;
}

void JsonFields::only(const json& obj, const std::string& at, std::set<std::string> allowed) const {
  allowed.insert({"comment", "name"});
  for (auto it = obj.begin(); it != obj.end(); ++it)
    if (!allowed.count(it.key())) {
      std::string known;
      for (const auto& k : allowed) known += (known.empty() ? "" : ", ") + k;
      fail(join(at, shown(it.key())), "unknown field (expected one of: " + known + ")");
    }
}

double JsonFields::number(const json& j, const std::string& at) const {
  if (!j.is_number()) fail(at, "expected a number, got " + json_type_name(j));
  const double v = j.get<double>();
  if (!std::isfinite(v)) fail(at, "must be finite");
  return v;
}

double JsonFields::positive(const json& j, const std::string& at) const {
  const double v = number(j, at);
  if (!(v > 0)) fail(at, "must be positive, got " + number_text(v));
  return v;
}

std::string JsonFields::string(const json& j, const std::string& at) const {
  if (!j.is_string()) fail(at, "expected a string, got " + json_type_name(j));
  return j.get<std::string>();
}

std::string JsonFields::resolve(const json& j, const std::string& at) const {
  const std::string file = string(j, at);
  // Resolved, an empty name would be the domain file's folder.
  if (file.empty()) fail(at, "is empty: name a file");
  if (const std::size_t nul = file.find('\0'); nul != std::string::npos)
    fail(at, "the file name \"" + shown(file) + "\" holds a NUL byte at offset " + std::to_string(nul) +
                 ", which no file name can");
  // The system opens no path longer than PATH_MAX: refused here, so that no error echoes a name of
  // megabytes in full (one that names the file it could not open).
  if (file.size() >= PATH_MAX)
    fail(at, "the file name \"" + shown(file) + "\" is longer than the " + std::to_string(PATH_MAX - 1) +
                 " characters a path may have");
  const std::filesystem::path p(file);
  inputs_.push_back(p.is_absolute() ? p : file_.parent_path() / p);
  return inputs_.back().string();
}

}  // namespace nodegen
