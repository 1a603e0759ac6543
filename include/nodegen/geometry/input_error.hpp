#pragma once
// The one error type for bad user input (domain files, meshes, spacing). what() is a single line
// "FILE: FIELD: REASON" so the CLI can print it as is and exit with status 2.
#include <stdexcept>
#include <string>

namespace nodegen {

class InputError : public std::runtime_error {
 public:
  // field is a JSON path such as "shape.children[1].radius", or "line 3, column 7" for syntax errors.
  InputError(std::string file, std::string field, std::string reason)
      : std::runtime_error(one_line(file + ": " + field + ": " + reason)),
        file_(std::move(file)),
        field_(std::move(field)),
        reason_(std::move(reason)) {}

  const std::string& file() const noexcept { return file_; }
  const std::string& field() const noexcept { return field_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  // Library messages (nlohmann, muparser, CGAL) sometimes contain newlines; the contract is one line.
  static std::string one_line(std::string s) {
    for (char& c : s)
      if (c == '\n' || c == '\r') c = ' ';
    return s;
  }
  std::string file_, field_, reason_;
};

}  // namespace nodegen
