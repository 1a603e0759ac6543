#include "input/sample_spacing_field.hpp"

#include <stdexcept>

#include "nodegen/geometry/spacing_samples.hpp"
#include "nodegen/io/sample_file.hpp"

namespace nodegen::input_detail {

Spacing read_sample_spacing(const JsonFields& fields, const nlohmann::json& sp, bool isolated) {
  fields.only(sp, "spacing", {"samples", "values", "positions", "scale", "min", "max", "grading"});
  const std::string file = fields.resolve(fields.require(sp, "spacing", "samples"), "spacing.samples");
  const std::string values = fields.string(fields.require(sp, "spacing", "values"), "spacing.values");
  const std::string positions = sp.contains("positions") ? fields.string(sp["positions"], "spacing.positions") : "";
  if (values.empty()) fields.fail("spacing.values", "is empty: name the dataset of values, e.g. \"/domain/h_new\"");
  SampleSpacingOptions options;
  if (sp.contains("scale")) options.scale = fields.positive(sp["scale"], "spacing.scale");
  if (sp.contains("min")) options.min = fields.positive(sp["min"], "spacing.min");
  if (sp.contains("max")) options.max = fields.positive(sp["max"], "spacing.max");
  if (options.min > options.max) fields.fail("spacing.min", "is above spacing.max");
  if (sp.contains("grading")) options.grading = fields.positive(sp["grading"], "spacing.grading");
  io::SampleArrays samples = io::read_sample_file(file, positions, values, isolated);
  if (samples.dim != fields.dim())
    fields.fail("spacing.samples", file + ": the samples have " + std::to_string(samples.dim) +
                                       " coordinates but the file has dim " + std::to_string(fields.dim()));
  options.description = "samples " + file + ":" + values;
  try {
    return sample_spacing(samples.dim, std::move(samples.positions), std::move(samples.values), options);
  } catch (const std::invalid_argument& e) {
    fields.fail("spacing.samples", file + ":" + values + ": " + e.what());
  }
}

}  // namespace nodegen::input_detail
