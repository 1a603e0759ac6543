#pragma once
// Nodal spacing h(x): a constant, or a muparser expression in x, y, z (z = 0 in 2D).
//
// Thread use: muparser binds variables by pointer and is not thread-safe, so every worker thread makes
// its own evaluator once (`auto h = spacing.evaluator();`) and calls `h(p)`; an evaluator is never shared.
// Made on the thread that uses it, its memory comes from that thread's heap: evaluators one thread made
// one after the other share cache lines, which every h(x) writes (its variables, muparser's stack).
// Copying an evaluator compiles a fresh parser, so a copy is independent of the original.
// A constant spacing never touches the parser (the fill's hot loop pays one branch).
#include <algorithm>
#include <memory>
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
      return parser_ ? evaluate_expression(x, y, z) : constant_;
    }
    template <int D>
    double operator()(const Vec<D>& p) const {
      static_assert(D == 2 || D == 3, "nodegen works in 2D and 3D");
      if constexpr (D == 2) return (*this)(p[0], p[1], 0.0);
      else return (*this)(p[0], p[1], p[2]);
    }

   private:
    friend class Spacing;
    struct Parser;  // mu::Parser plus the x, y, z it is bound to (src/geometry/spacing.cpp)
    Evaluator(double constant, const std::string* expression);
    double evaluate_expression(double x, double y, double z) const;

    double constant_ = 0.0;
    std::unique_ptr<Parser> parser_;  // null for a constant spacing
  };

  // Unit spacing; real spacings come from constant() / expression() / the domain file.
  Spacing() = default;
  static Spacing constant(double h);
  // Throws std::invalid_argument (with muparser's message) when the expression does not parse or uses
  // variables other than x, y, z. Positivity is checked by the domain loader over the bounding box.
  static Spacing expression(const std::string& text);

  bool is_constant() const { return expression_.empty(); }
  double constant_value() const { return constant_; }  // meaningful when is_constant()
  const std::string& expression_text() const { return expression_; }
  std::string describe() const;  // "0.005" or the expression, for reports and metadata
  std::string brief() const;     // describe(), shortened to its start and length past 120 characters: for messages

  Evaluator evaluator() const { return Evaluator(constant_, is_constant() ? nullptr : &expression_); }
  // One evaluator for each member of a team of `threads` (parallel/thread_team.hpp), evaluator t made by
  // member t, so its memory comes from that thread's heap ("Thread use" above). Call it where the
  // caller's own parallel_for of `threads` could run.
  std::vector<Evaluator> evaluators(int threads) const;

 private:
  double constant_ = 1.0;
  std::string expression_;
};

}  // namespace nodegen
