#include "input/overrides.hpp"

#include <cctype>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::input_detail {
namespace {

using nlohmann::json;

struct Step {
  std::string name;  // an object's key, or empty for an array index
  std::size_t index = 0;
};

std::vector<Step> parse_key(const std::string& key) {
  std::vector<Step> steps;
  std::size_t i = 0;
  auto fail = [&](const std::string& why) -> void { throw InputError("--set", key, why); };
  while (i < key.size()) {
    if (key[i] == '[') {
      const std::size_t close = key.find(']', i);
      const std::string digits = close == std::string::npos ? "" : key.substr(i + 1, close - i - 1);
      if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
        fail("expected an index such as [0] after '[' at character " + std::to_string(i + 1));
      steps.push_back({"", std::stoul(digits)});
      i = close + 1;
      if (i < key.size() && key[i] == '.') ++i;
      continue;
    }
    const std::size_t end = key.find_first_of(".[", i);
    const std::string name = key.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (name.empty()) fail("a field name is empty (two dots, or a dot at either end)");
    steps.push_back({name, 0});
    i = end == std::string::npos ? key.size() : (key[end] == '.' ? end + 1 : end);
  }
  if (steps.empty()) fail("names no field");
  // A dot at the end ends the loop above as if nothing followed it: "fill." would replace "fill".
  if (key.back() == '.') fail("a field name is empty (two dots, or a dot at either end)");
  return steps;
}

}  // namespace

void apply_overrides(json& root, const std::vector<std::string>& overrides) {
  for (const std::string& item : overrides) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set", item.substr(0, 120), "expected KEY=VALUE, e.g. --set spacing=0.002 or --set fill.seed=7");
    const std::string key = item.substr(0, eq), text = item.substr(eq + 1);
    json value = json::parse(text, nullptr, false);
    if (value.is_discarded()) value = text;  // not JSON: a string (an expression, a file name)
    json* at = &root;
    std::string path;
    for (const Step& s : parse_key(key)) {
      if (!s.name.empty()) {
        if (at->is_null()) *at = json::object();
        if (!at->is_object()) throw InputError("--set", key, path + " is not an object, so it has no field " + s.name);
        at = &(*at)[s.name];
        if (!path.empty()) path += '.';
        path += s.name;
      } else {
        if (!at->is_array() || s.index >= at->size())
          throw InputError("--set", key, (path.empty() ? "the document" : path) + " has no element [" +
                                             std::to_string(s.index) + "]");
        at = &(*at)[s.index];
        path += '[';
        path += std::to_string(s.index);
        path += ']';
      }
    }
    *at = std::move(value);
  }
}

}  // namespace nodegen::input_detail
