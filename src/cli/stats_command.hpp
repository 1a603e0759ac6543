#pragma once
// `nodegen stats FILE.h5 [--json]`: the quality report (io/quality.hpp) of a written file.
#include <cstddef>
#include <filesystem>

namespace nodegen::cli {

// samples = 0 picks the default (max(1e5, N), at most 1e7). Throws InputError for a bad file. Returns 0.
int stats_command(const std::filesystem::path& file, bool json, std::size_t samples);

}  // namespace nodegen::cli
