#include "number_argument.hpp"

#include <charconv>
#include <cstdlib>
#include <system_error>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::cli {

std::uint64_t whole_number(const std::string& text, const char* option, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [stop, ec] = std::from_chars(text.data(), end, value);
  // 1e6: as a double, if it is a whole number in range (decimal only: strtod would also read 0x10).
  if (ec == std::errc() && stop != end && text.find_first_not_of("0123456789.eE+") == std::string::npos) {
    char* dstop = nullptr;
    const double d = std::strtod(text.c_str(), &dstop);
    if (dstop == text.c_str() + text.size() && d >= 0 && d <= 1.8e19 &&  // in range before the cast
        d == static_cast<double>(static_cast<std::uint64_t>(d))) {
      value = static_cast<std::uint64_t>(d);
      ec = std::errc(), stop = end;
    }
  }
  if (ec != std::errc() || stop != end || value < lo || value > hi)
    throw InputError(option, "value", "expected a whole number from " + std::to_string(lo) + " to " +
                                          std::to_string(hi) + ", got " + text);
  return value;
}

void refuse_empty(const std::string& given, const char* name) {
  if (given.empty()) throw InputError(name, "value", "is empty: give a file name");
}

}  // namespace nodegen::cli
