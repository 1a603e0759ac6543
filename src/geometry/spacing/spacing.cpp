// Spacing: the constant fast path, the factor, and the evaluators of a model (spacing_model.hpp), made
// one per thread (a model's probe keeps state: an expression's muparser instance binds variables by
// pointer, so an instance must never be shared between threads).
#include <nodegen/geometry/spacing.hpp>

#include <algorithm>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <nodegen/geometry/input_error.hpp>
#include <nodegen/parallel/thread_team.hpp>

#include "geometry/spacing/expression_model.hpp"
#include "geometry/spacing/spacing_model.hpp"

namespace nodegen {

Spacing::Evaluator::Evaluator(double constant, std::shared_ptr<const spacing_detail::Model> model, double scale)
    : constant_(constant), scale_(scale), model_(std::move(model)) {
  if (model_) probe_ = model_->probe();
}

Spacing::Evaluator::Evaluator(const Evaluator& other) : Evaluator(other.constant_, other.model_, other.scale_) {}

Spacing::Evaluator& Spacing::Evaluator::operator=(const Evaluator& other) {
  if (this != &other) {
    constant_ = other.constant_;
    scale_ = other.scale_;
    model_ = other.model_;
    probe_ = model_ ? model_->probe() : nullptr;
  }
  return *this;
}

Spacing::Evaluator::Evaluator(Evaluator&&) noexcept = default;
Spacing::Evaluator& Spacing::Evaluator::operator=(Evaluator&&) noexcept = default;
Spacing::Evaluator::~Evaluator() = default;

double Spacing::Evaluator::evaluate_model(double x, double y, double z) const { return probe_->at(x, y, z); }

template <int D>
void Spacing::Evaluator::at_many(std::span<const Vec<D>> points, std::span<double> out) const {
  if (!probe_) {
    std::fill(out.begin(), out.end(), constant_);
    return;
  }
  xyz_.resize(3 * points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    xyz_[3 * i] = points[i][0];
    xyz_[3 * i + 1] = points[i][1];
    xyz_[3 * i + 2] = D == 3 ? points[i][D - 1] : 0.0;
  }
  probe_->at_many(xyz_, out.first(points.size()));
  for (double& h : out) h *= scale_;  // as operator() multiplies each value
}

template void Spacing::Evaluator::at_many<2>(std::span<const Vec<2>>, std::span<double>) const;
template void Spacing::Evaluator::at_many<3>(std::span<const Vec<3>>, std::span<double>) const;

bool Spacing::Evaluator::prefers_batches() const { return model_ && model_->prefers_batches(); }

std::vector<Spacing::Evaluator> Spacing::evaluators(int threads) const {
  std::vector<Evaluator> out;
  if (threads <= 1) {  // no team: a team of one would shrink OpenMP's pool (thread_team.hpp)
    out.push_back(evaluator());
    return out;
  }
  std::vector<std::optional<Evaluator>> made(static_cast<std::size_t>(threads));
  run_team(threads, [&](int t, int) { made[static_cast<std::size_t>(t)].emplace(evaluator()); });
  out.reserve(made.size());
  for (auto& e : made) out.push_back(std::move(*e));  // the probe stays where its thread put it
  return out;
}

Spacing Spacing::constant(double h) {
  Spacing s;
  s.constant_ = h;
  return s;
}

Spacing Spacing::expression(const std::string& text) {
  return from_model(std::make_shared<const spacing_detail::ExpressionModel>(text));
}

Spacing Spacing::from_model(std::shared_ptr<const spacing_detail::Model> model) {
  Spacing s;
  s.constant_ = 0.0;
  s.model_ = std::move(model);
  return s;
}

Spacing Spacing::scaled(double factor) const {
  Spacing s = *this;
  if (is_constant()) s.constant_ *= factor;
  else s.scale_ *= factor;
  return s;
}

const std::vector<std::string>& Spacing::distance_parts() const {
  static const std::vector<std::string> none;
  const auto* expression = dynamic_cast<const spacing_detail::ExpressionModel*>(model_.get());
  return expression ? expression->distance_parts() : none;
}

Spacing Spacing::with_distances(std::vector<std::shared_ptr<const DistanceField>> fields) const {
  const auto* expression = dynamic_cast<const spacing_detail::ExpressionModel*>(model_.get());
  if (!expression) return *this;
  Spacing s = *this;
  s.model_ = expression->with_distances(std::move(fields));
  return s;
}

std::string Spacing::brief() const { return spacing_detail::shown(describe()); }

std::string Spacing::describe() const {
  std::ostringstream out;
  out.precision(17);
  if (is_constant()) {
    out << constant_;
    return out.str();
  }
  if (scale_ == 1.0) return model_->describe();
  out << scale_ << " * (" << model_->describe() << ")";
  return out.str();
}

}  // namespace nodegen
