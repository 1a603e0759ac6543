#pragma once
// `nodegen solve FILE.h5|DOMAIN.json ...`: the RBF-FD Poisson check (solve/poisson.hpp) on a written
// file, or on a domain file filled in-process, once or once per seed of a range.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nodegen/solve/poisson.hpp"

namespace nodegen::cli {

struct SolveArgs {
  std::filesystem::path input;                 // a nodegen HDF5 file, or a domain file (JSON)
  std::vector<std::string> neumann;            // boundary part names (boundary_names) with du/dn = g
  solve::PoissonOptions options;               // neumann_ids are filled in from the names
  std::optional<std::pair<std::uint64_t, std::uint64_t>> seeds;  // --seeds A-B (domain file only)
  bool json = false;
  std::optional<std::filesystem::path> error_out;  // --error-out: |u - u*| and h at every node, as point fields
};

// Seeds one `solve --seeds A-B` fills and solves at most: each is a whole fill and solve, so one
// command on an example domain stays within a minute (a thousand seeds of the square ran for minutes),
// and a larger study is several ranges, each with its own summary.
inline constexpr std::uint64_t kMaxSeedCount = 100;

// Parses "A-B" or "A" (whole numbers up to the largest seed, A <= B, at most kMaxSeedCount seeds).
// Throws InputError naming --seeds.
std::pair<std::uint64_t, std::uint64_t> parse_seed_range(const std::string& text);

// True when `file` begins with HDF5's signature (a written file), false for anything else (a domain
// file). Throws InputError naming the file when it is missing or not a regular file.
bool is_hdf5(const std::filesystem::path& file);

// Throws InputError for bad input (the caller prints it and exits 2). Returns 0.
int solve_command(const SolveArgs& args);

}  // namespace nodegen::cli
