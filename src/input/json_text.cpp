#include "input/json_text.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::input_detail {
namespace {

using nlohmann::json;

// "line L, column C" of byte `at` of the text.
std::string line_column(const std::string& text, std::size_t at) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < std::min(at, text.size()); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// A key given twice in one object: JSON parsers keep the last one silently, which hid a typo's fix (or
// a stale value) and led to a confusing error elsewhere. Found by a SAX pass over the (valid) text,
// linear in its size.
class DuplicateKeys : public nlohmann::json_sax<json> {
 public:
  std::string first;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    open_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (!open_.back().insert(k).second) first = k;
    return first.empty();  // stops at the first duplicate
  }
  bool end_object() override {
    open_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  std::vector<std::set<std::string>> open_;
};

std::string first_duplicate_key(const std::string& text) {
  DuplicateKeys keys;
  json::sax_parse(text, &keys);
  return keys.first;
}

// The byte where the text's arrays and objects first nest deeper than `limit`, or npos. Counts brackets
// outside strings; a malformed text is left to the parser.
std::size_t too_deep_at(const std::string& text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return std::string::npos;
}

std::string syntax_reason(const json::parse_error& e) {
  std::string what = e.what();
  const auto colon = what.find(": ", what.find("column"));
  if (colon != std::string::npos) return what.substr(colon + 2);
  return what;
}

}  // namespace

json parse_json_text(const std::string& text, const std::string& file) {
  // Refused before parsing: the loader walks the shape tree recursively.
  if (const std::size_t deep = too_deep_at(text, kMaxJsonDepth); deep != std::string::npos)
    throw InputError(file, line_column(text, deep),
                     "arrays and objects are nested deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels (shape trees may be " + std::to_string(kMaxShapeDepth) + " deep)");
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    // The byte where parsing stopped.
    throw InputError(file, line_column(text, e.byte == 0 ? 0 : e.byte - 1), "invalid JSON: " + syntax_reason(e));
  } catch (const json::out_of_range& e) {
    // A number beyond double's range (1e400): the library names the number but not where it is.
    const std::string what = e.what();
    const auto open = what.find('\''), close = what.rfind('\'');
    const std::string number = open != std::string::npos && close > open ? what.substr(open + 1, close - open - 1) : "";
    const std::size_t at = number.empty() ? std::string::npos : text.find(number);
    throw InputError(file, at == std::string::npos ? std::string("JSON") : line_column(text, at),
                     "invalid JSON: the number " + number + " is out of range (a double holds about 1.8e308 at most)");
  }
  if (const std::string duplicate = first_duplicate_key(text); !duplicate.empty())
    throw InputError(file, duplicate, "given twice in one object (JSON would keep only the last); remove one");
  return root;
}

}  // namespace nodegen::input_detail
