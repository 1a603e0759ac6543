#pragma once
// Whole-number options read from their text, for the options CLI11 would otherwise wrap (an unsigned
// option took --seed -1 as 2^64 - 1).
#include <cstdint>
#include <string>

namespace nodegen::cli {

// A whole number in [lo, hi], spelled as digits (1e6 and 1.5e6 are accepted when whole). Throws
// InputError(option, "value", ...) otherwise.
std::uint64_t whole_number(const std::string& text, const char* option, std::uint64_t lo, std::uint64_t hi);

// An empty name (a shell variable left unset) is a mistake, not a file, and not a request for a
// default: throws InputError(name, "value", ...).
void refuse_empty(const std::string& given, const char* name);

}  // namespace nodegen::cli
