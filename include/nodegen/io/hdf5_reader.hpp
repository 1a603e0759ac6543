#pragma once
// Reads back files written by write_hdf5 (for `nodegen stats` and the tests). Reads /domain only, so
// it also accepts a file that Medusa wrote with DomainDiscretization::save, minus h: when /domain/h
// is missing, h is left empty.
#include <filesystem>

#include "nodegen/io/node_arrays.hpp"

namespace nodegen::io {

struct StoredDiscretization {
  NodeArrays nodes;
  RunMetadata metadata;  // the attributes of /domain except N, in file order
};

// Throws InputError "<file>: <dataset>: <reason>" for a missing or malformed file.
StoredDiscretization read_hdf5(const std::filesystem::path& file);

// Convenience lookups into metadata (nullptr / nullopt when absent or of another type).
const std::string* find_string(const RunMetadata& metadata, const std::string& name);
const std::int64_t* find_integer(const RunMetadata& metadata, const std::string& name);
const double* find_double(const RunMetadata& metadata, const std::string& name);

}  // namespace nodegen::io
