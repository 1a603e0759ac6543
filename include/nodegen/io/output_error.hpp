#pragma once
// The one place where io builds its user-facing errors, in the geometry layer's InputError format
// "FILE: FIELD: REASON" (the CLI prints it as one line and exits with status 2).
#include <filesystem>
#include <string>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::io::detail {

[[noreturn]] inline void throw_io_error(const std::filesystem::path& file, const std::string& field,
                                        const std::string& reason) {
  throw InputError(file.string(), field, reason);
}

}  // namespace nodegen::io::detail
