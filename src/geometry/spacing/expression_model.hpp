#pragma once
// A spacing written as a muparser expression in x, y, z, with dist("NAME") for the distance from the
// point to the boundary part NAME (a name of boundary_names, or a shape's name for all its parts).
// Before muparser sees the text, each dist("NAME") becomes a variable of its own; a probe sets x, y, z
// and every distance the expression reads (through the part's DistanceField, warm-started from the
// probe's last query), then evaluates.
#include <memory>
#include <string>
#include <vector>

#include "geometry/spacing/spacing_model.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "nodegen/geometry/distance_field.hpp"

namespace nodegen::spacing_detail {

using nodegen::shown;  // input_error.hpp

class ExpressionModel : public Model {
 public:
  // Throws std::invalid_argument when the text does not parse, gives other than one value, assigns to a
  // coordinate, or holds a string other than a dist() argument.
  explicit ExpressionModel(std::string text);

  std::unique_ptr<Probe> probe() const override;
  std::string describe() const override { return text_; }

  const std::vector<std::string>& distance_parts() const { return parts_; }
  // A copy whose dist() reads fields[i] for distance_parts()[i].
  std::shared_ptr<const ExpressionModel> with_distances(std::vector<std::shared_ptr<const DistanceField>> fields) const;

  const std::string& muparser_text() const { return rewritten_; }
  const std::vector<std::shared_ptr<const DistanceField>>& fields() const { return fields_; }

 private:
  std::string text_;       // as written
  std::string rewritten_;  // dist("NAME") replaced by the variable distance_variable(i)
  std::vector<std::string> parts_;
  std::vector<std::shared_ptr<const DistanceField>> fields_;  // bound: one per part; else empty
};

// The muparser variable that stands for the i-th distinct dist("NAME").
std::string distance_variable(std::size_t i);

}  // namespace nodegen::spacing_detail
