#pragma once
// What a spacing that is not a constant evaluates: a Model, shared and immutable, and a Probe per
// evaluator, which holds one thread's state (an expression's bound variables and muparser stack, a
// sample interpolant's last cell). Spacing (spacing.hpp) holds the model and multiplies its values by
// the spacing's factor.
#include <cstddef>
#include <memory>
#include <span>
#include <string>

namespace nodegen::spacing_detail {

class Probe {
 public:
  virtual ~Probe() = default;
  // h at (x, y, z) (z = 0 in 2D), before the spacing's factor.
  virtual double at(double x, double y, double z) = 0;
  // h at n points, xyz holding 3 coordinates a point (z = 0 in 2D), into out[0 .. n): the values `at`
  // gives, point by point unless the model has a cheaper way for many (a Python function's call).
  virtual void at_many(std::span<const double> xyz, std::span<double> out) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = at(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
  }
};

class Model {
 public:
  virtual ~Model() = default;
  // A fresh probe (called by each evaluator, on the thread that will use it).
  virtual std::unique_ptr<Probe> probe() const = 0;
  // Whether a call costs far more than the arithmetic of one point (a call into Python): then callers
  // that evaluate many points gather them for one at_many (Spacing::Evaluator::prefers_batches).
  virtual bool prefers_batches() const { return false; }
  // What the spacing is, for reports and metadata ("0.01 + 0.1*dist(\"hole\")", "samples a.h5:/h").
  virtual std::string describe() const = 0;
};

}  // namespace nodegen::spacing_detail
