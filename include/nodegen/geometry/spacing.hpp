#pragma once
// Nodal spacing h(x): a constant, a muparser expression in x, y, z (z = 0 in 2D) that may hold the
// distance to a boundary part, dist("NAME"), or an interpolant of sampled values (spacing_samples.hpp);
// any of them times a constant factor (scaled(): a target node count's).
//
// Thread use: an expression's parser binds variables by pointer and a sample interpolant keeps where
// its last query was, so every worker thread makes its own evaluator once (`auto h = spacing.evaluator();`)
// and calls `h(p)`; an evaluator is never shared. Made on the thread that uses it, its memory comes from
// that thread's heap: evaluators one thread made one after the other share cache lines, which every h(x)
// writes. Copying an evaluator makes fresh state, so a copy is independent of the original. What the
// evaluators share (distance fields, sample interpolants) is immutable once built.
// A constant spacing never touches the models (the fill's hot loop pays one branch).
#include <algorithm>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nodegen/geometry/box.hpp>
#include <nodegen/spatial/point.hpp>

namespace nodegen {

// The spacings the fill's arithmetic resolves, checked by the loader on its samples and by the fill
// wherever it evaluates h: h^2 stays a normal double, and coordinates resolve h (at |x| / h = 1e12 a
// unit in the last place of x is still 1/4500 of h; beyond 2^52, candidates one h away round onto
// their parent node: a box at 1e15 with h = 0.05 ended in the k-d tree's depth limit).
inline constexpr double kMinSpacing = 1e-100;
inline constexpr double kMaxCoordinateOverSpacing = 1e12;
// And the fill's k-d tree keeps nodes on a grid of 2^32 steps over the domain's box
// (spatial/grid_frame.hpp): with the box's largest extent / h at most 2^22, h spans at least ~340 steps,
// so a node's grid point lies within 0.3 % of h of it (a spot of h below that: nodes tested at the
// wrong places, and more than a leaf of them on one grid point).
inline constexpr double kMaxExtentOverSpacing = 4194304;  // 2^22
// The least h the fill resolves in a domain with this bounding box.
template <int D>
double least_spacing(const Box<D>& box) {
  return std::max(
      {kMinSpacing, box.reach() / kMaxCoordinateOverSpacing, box.size().maxCoeff() / kMaxExtentOverSpacing});
}

namespace spacing_detail {
class Model;  // what a non-constant spacing evaluates (src/geometry/spacing/spacing_model.hpp)
class Probe;  // one evaluator's state of a model
}  // namespace spacing_detail

// The distance from a point to a boundary part's geometry (distance_field.hpp); what dist("NAME") reads.
class DistanceField;

class Spacing {
 public:
  class Evaluator {
   public:
    Evaluator(const Evaluator& other);
    Evaluator& operator=(const Evaluator& other);
    Evaluator(Evaluator&&) noexcept;
    Evaluator& operator=(Evaluator&&) noexcept;
    ~Evaluator();

    double operator()(double x, double y, double z = 0.0) const {
      return probe_ ? scale_ * evaluate_model(x, y, z) : constant_;
    }
    template <int D>
    double operator()(const Vec<D>& p) const {
      static_assert(D == 2 || D == 3, "nodegen works in 2D and 3D");
      if constexpr (D == 2) return (*this)(p[0], p[1], 0.0);
      else return (*this)(p[0], p[1], p[2]);
    }

    // h at every point into out (out.size() == points.size()): the values one by one gives, in one
    // call of the model for a spacing that prefers batches.
    template <int D>
    void at_many(std::span<const Vec<D>> points, std::span<double> out) const;
    // Whether gathering points for at_many pays (a spacing called across a language boundary); the
    // fill and the loader's check then evaluate in batches.
    bool prefers_batches() const;

   private:
    friend class Spacing;
    Evaluator(double constant, std::shared_ptr<const spacing_detail::Model> model, double scale);
    double evaluate_model(double x, double y, double z) const;

    double constant_ = 0.0;
    double scale_ = 1.0;
    std::shared_ptr<const spacing_detail::Model> model_;  // null for a constant spacing
    std::unique_ptr<spacing_detail::Probe> probe_;        // this evaluator's state of model_
    mutable std::vector<double> xyz_;                      // at_many's points, 3 coordinates each
  };

  // Unit spacing; real spacings come from constant() / expression() / the domain file.
  Spacing() = default;
  static Spacing constant(double h);
  // Throws std::invalid_argument (with muparser's message) when the expression does not parse or uses
  // variables other than x, y, z and dist("NAME"). Its distances must be bound (with_distances) before
  // it is evaluated. Positivity is checked by the domain loader over the bounding box.
  static Spacing expression(const std::string& text);
  // A spacing of its own kind (sampled values, a user's function); `describe` says what it is.
  static Spacing from_model(std::shared_ptr<const spacing_detail::Model> model);

  // The same spacing times `factor` (> 0).
  Spacing scaled(double factor) const;
  double scale() const { return scale_; }

  // The part names dist("NAME") reads, in the order they first appear (empty for other spacings).
  const std::vector<std::string>& distance_parts() const;
  // The expression with its distances bound: fields[i] is the distance to distance_parts()[i].
  Spacing with_distances(std::vector<std::shared_ptr<const DistanceField>> fields) const;

  bool is_constant() const { return model_ == nullptr; }
  double constant_value() const { return constant_; }  // meaningful when is_constant()
  std::string describe() const;  // "0.005", the expression, or the model's description; with its factor
  std::string brief() const;     // describe(), shortened to its start and length past 120 characters: for messages

  Evaluator evaluator() const { return Evaluator(constant_, model_, scale_); }
  // One evaluator for each member of a team of `threads` (parallel/thread_team.hpp), evaluator t made by
  // member t, so its memory comes from that thread's heap ("Thread use" above). Call it where the
  // caller's own parallel_for of `threads` could run.
  std::vector<Evaluator> evaluators(int threads) const;

 private:
  double constant_ = 1.0;
  double scale_ = 1.0;  // a model's factor (a constant's is in constant_)
  std::shared_ptr<const spacing_detail::Model> model_;  // null: the constant
};

extern template void Spacing::Evaluator::at_many<2>(std::span<const Vec<2>>, std::span<double>) const;
extern template void Spacing::Evaluator::at_many<3>(std::span<const Vec<3>>, std::span<double>) const;

}  // namespace nodegen
