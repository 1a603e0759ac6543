#pragma once
// What a spacing that is not a constant evaluates: a Model, shared and immutable, and a Probe per
// evaluator, which holds one thread's state (an expression's bound variables and muparser stack, a
// sample interpolant's last cell). Spacing (spacing.hpp) holds the model and multiplies its values by
// the spacing's factor.
#include <memory>
#include <string>

namespace nodegen::spacing_detail {

class Probe {
 public:
  virtual ~Probe() = default;
  // h at (x, y, z) (z = 0 in 2D), before the spacing's factor.
  virtual double at(double x, double y, double z) = 0;
};

class Model {
 public:
  virtual ~Model() = default;
  // A fresh probe (called by each evaluator, on the thread that will use it).
  virtual std::unique_ptr<Probe> probe() const = 0;
  // What the spacing is, for reports and metadata ("0.01 + 0.1*dist(\"hole\")", "samples a.h5:/h").
  virtual std::string describe() const = 0;
};

}  // namespace nodegen::spacing_detail
