#pragma once
// A domain file's spacing given as samples, {"samples": FILE, "values": DATASET} with optional
// "positions", "scale", "min" and "max" (docs/domain-format.md, "Spacing from samples"), read from the
// HDF5 file and made into the interpolating spacing (geometry/spacing_samples.hpp).
#include <nlohmann/json.hpp>

#include "nodegen/geometry/json_fields.hpp"
#include "nodegen/geometry/spacing.hpp"

namespace nodegen::input_detail {

// `isolated`: read the HDF5 file in a child process (io/sample_file.hpp). Throws InputError at
// "spacing.FIELD" or naming the samples file and its dataset.
Spacing read_sample_spacing(const JsonFields& fields, const nlohmann::json& spacing, bool isolated);

}  // namespace nodegen::input_detail
