#pragma once
// The samples of a spacing read from an HDF5 file (docs/domain-format.md, "Spacing from samples"): one
// position and one value per sample, as a previous run's output holds them (/domain/pos, {d, N}) or as
// any tool writes them (a dataset of positions {N, d}, a dataset of values {N}).
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace nodegen::io {

struct SampleArrays {
  int dim = 0;
  std::vector<double> positions;  // N x dim, interleaved
  std::vector<double> values;     // N
};

// Samples read at most: the spacing's interpolant takes a few hundred bytes a sample.
inline constexpr std::size_t kMaxSamples = 50'000'000;

// `positions`: the dataset of positions, "" for /domain/pos where the file has it (nodegen's layout,
// {d, N}) and else /positions ({N, d}); a dataset named other than /domain/pos is {N, d}. `values`: a
// dataset of N numbers. With `isolated`, the file is read in a child process (libhdf5 crashes on some
// corrupt files: the crash is then this file's error). Throws InputError "<file>: <dataset>: <reason>"
// for a missing file, one that is not HDF5, a missing or malformed dataset, a coordinate that is not
// finite, shapes that disagree, or more than kMaxSamples samples. The values are returned as stored
// (their sign is the caller's check).
SampleArrays read_sample_file(const std::filesystem::path& file, const std::string& positions,
                              const std::string& values, bool isolated = true);

}  // namespace nodegen::io
