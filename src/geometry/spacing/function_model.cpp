// function_spacing and function_batch_spacing (geometry/spacing_function.hpp): Models over the caller's
// function, point by point or in batches. The function is shared by every probe (it is the caller's
// promise that it is thread-safe), so a probe holds nothing.
#include "nodegen/geometry/spacing_function.hpp"

#include <memory>
#include <stdexcept>
#include <utility>

#include "geometry/spacing/spacing_model.hpp"

namespace nodegen {
namespace {

using Function = std::function<double(double, double, double)>;

class FunctionProbe : public spacing_detail::Probe {
 public:
  explicit FunctionProbe(const Function& h) : h_(h) {}
  double at(double x, double y, double z) override { return h_(x, y, z); }

 private:
  const Function& h_;  // owned by the model, which the evaluator holding this probe keeps alive
};

class FunctionModel : public spacing_detail::Model {
 public:
  FunctionModel(Function h, std::string description) : h_(std::move(h)), description_(std::move(description)) {}
  std::unique_ptr<spacing_detail::Probe> probe() const override { return std::make_unique<FunctionProbe>(h_); }
  std::string describe() const override { return description_; }

 private:
  Function h_;
  std::string description_;
};

using BatchFunction = std::function<void(std::span<const double>, std::span<double>)>;

class BatchProbe : public spacing_detail::Probe {
 public:
  explicit BatchProbe(const BatchFunction& h) : h_(h) {}
  double at(double x, double y, double z) override {
    const double xyz[3] = {x, y, z};
    double out = 0.0;
    h_(xyz, std::span<double>(&out, 1));
    return out;
  }
  void at_many(std::span<const double> xyz, std::span<double> out) override { h_(xyz, out); }

 private:
  const BatchFunction& h_;
};

class BatchFunctionModel : public spacing_detail::Model {
 public:
  BatchFunctionModel(BatchFunction h, std::string description) : h_(std::move(h)), description_(std::move(description)) {}
  std::unique_ptr<spacing_detail::Probe> probe() const override { return std::make_unique<BatchProbe>(h_); }
  bool prefers_batches() const override { return true; }
  std::string describe() const override { return description_; }

 private:
  BatchFunction h_;
  std::string description_;
};

}  // namespace

Spacing function_batch_spacing(BatchFunction h, std::string description) {
  if (!h) throw std::invalid_argument("the spacing function is empty");
  return Spacing::from_model(std::make_shared<const BatchFunctionModel>(std::move(h), std::move(description)));
}

Spacing function_spacing(Function h, std::string description) {
  if (!h) throw std::invalid_argument("the spacing function is empty");
  return Spacing::from_model(std::make_shared<const FunctionModel>(std::move(h), std::move(description)));
}

}  // namespace nodegen
