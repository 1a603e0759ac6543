#pragma once
// The one error type for bad user input (domain files, meshes, spacing). what() is a single line
// "FILE: FIELD: REASON" so the CLI can print it as is and exit with status 2.
#include <stdexcept>
#include <string>

namespace nodegen {

// A byte as a message names it: "0x0d".
inline std::string hex_byte(unsigned char c) {
  constexpr char kHex[] = "0123456789abcdef";
  return std::string("0x") + kHex[c >> 4] + kHex[c & 15];
}

// Text fit for one line of a message: newlines (library messages, nlohmann's, muparser's, CGAL's,
// sometimes hold them) become spaces, and other control bytes a file may hold (quoted back in a
// reason) are written as \xHH: a NUL ends the text wherever it passes through a C string (what()),
// and an escape sequence would reach the user's terminal.
inline std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n' || c == '\r') {
      out += ' ';
    } else if ((u < 0x20 && c != '\t') || u == 0x7f) {
      out += "\\x";
      out += hex_byte(u).substr(2);
    } else {
      out += c;
    }
  }
  return out;
}

// A value from the input as a message echoes it: whole up to 200 characters, else its start and its
// length (a file may hold a megabyte where a name belongs), printable.
inline std::string shown(const std::string& text) {
  constexpr std::size_t kShown = 200;
  if (text.size() <= kShown) return printable(text);
  return printable(text.substr(0, kShown)) + "... (" + std::to_string(text.size()) + " characters)";
}

class InputError : public std::runtime_error {
 public:
  // field is a JSON path such as "shape.children[1].radius", or "line 3, column 7" for syntax errors.
  InputError(std::string file, std::string field, std::string reason)
      : std::runtime_error(printable(file + ": " + field + ": " + reason)),
        file_(std::move(file)),
        field_(std::move(field)),
        reason_(std::move(reason)) {}

  const std::string& file() const noexcept { return file_; }
  const std::string& field() const noexcept { return field_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_, field_, reason_;
};

}  // namespace nodegen
