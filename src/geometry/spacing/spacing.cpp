// Spacing: constant fast path, or one muparser instance per evaluator (muparser binds variables by
// pointer and keeps evaluation state, so an instance must never be shared between threads).
#include <nodegen/geometry/spacing.hpp>

#include <nodegen/geometry/input_error.hpp>
#include <nodegen/parallel/thread_team.hpp>

#include <muParser.h>

#include <optional>
#include <sstream>
#include <stdexcept>

namespace nodegen {

struct Spacing::Evaluator::Parser {
  // Heap-allocated so the addresses muparser holds stay valid when the evaluator is moved.
  double x = 0.0, y = 0.0, z = 0.0;
  std::string text;
  mu::Parser parser;

  explicit Parser(const std::string& expression) : text(expression) {
    parser.DefineVar("x", &x);
    parser.DefineVar("y", &y);
    parser.DefineVar("z", &z);
    parser.SetExpr(expression);
    parser.Eval();  // compiles to bytecode now, so the first real call is not the slow one
  }
};

Spacing::Evaluator::Evaluator(double constant, const std::string* expression) : constant_(constant) {
  if (expression) parser_ = std::make_unique<Parser>(*expression);
}

Spacing::Evaluator::Evaluator(const Evaluator& other) : constant_(other.constant_) {
  if (other.parser_) parser_ = std::make_unique<Parser>(other.parser_->text);
}

Spacing::Evaluator& Spacing::Evaluator::operator=(const Evaluator& other) {
  if (this != &other) {
    constant_ = other.constant_;
    parser_ = other.parser_ ? std::make_unique<Parser>(other.parser_->text) : nullptr;
  }
  return *this;
}

Spacing::Evaluator::Evaluator(Evaluator&&) noexcept = default;
Spacing::Evaluator& Spacing::Evaluator::operator=(Evaluator&&) noexcept = default;
Spacing::Evaluator::~Evaluator() = default;

std::vector<Spacing::Evaluator> Spacing::evaluators(int threads) const {
  std::vector<Evaluator> out;
  if (threads <= 1) {  // no team: a team of one would shrink OpenMP's pool (thread_team.hpp)
    out.push_back(evaluator());
    return out;
  }
  std::vector<std::optional<Evaluator>> made(static_cast<std::size_t>(threads));
  run_team(threads, [&](int t, int) { made[static_cast<std::size_t>(t)].emplace(evaluator()); });
  out.reserve(made.size());
  for (auto& e : made) out.push_back(std::move(*e));  // the parser stays where its thread put it
  return out;
}

double Spacing::Evaluator::evaluate_expression(double x, double y, double z) const {
  Parser& p = *parser_;
  p.x = x;
  p.y = y;
  p.z = z;
  return p.parser.Eval();
}

Spacing Spacing::constant(double h) {
  Spacing s;
  s.constant_ = h;
  return s;
}

namespace {

// Text as a message shows it: whole up to 120 characters, else its start and length (a domain file may
// hold megabytes of expression, which made an error "line" of 8 MB).
// Control bytes are written as \xHH (input_error.hpp, printable).
std::string shown(const std::string& text) {
  constexpr std::size_t kShown = 120;
  if (text.size() <= kShown) return printable(text);
  return printable(text.substr(0, kShown)) + "... (" + std::to_string(text.size()) + " characters)";
}
std::string quoted(const std::string& text) { return "\"" + shown(text) + "\""; }

}  // namespace

Spacing Spacing::expression(const std::string& text) {
  if (text.find_first_not_of(" \t\n") == std::string::npos) throw std::invalid_argument("empty expression");
  try {
    mu::Parser probe;
    // Odd probe values, so that an assignment of any round number shows as a change below.
    constexpr double x0 = 0.4142135623730951, y0 = 0.7320508075688772, z0 = 0.2360679774997897;
    double x = x0, y = y0, z = z0;
    probe.DefineVar("x", &x);
    probe.DefineVar("y", &y);
    probe.DefineVar("z", &z);
    probe.SetExpr(text);
    probe.Eval();
    // muparser also takes "0.1, 0.05" (several results: the last one was used) and "x = 0.05" (an
    // assignment to the coordinate, which then reads as h = 0.05 everywhere): typos, not spacings.
    if (probe.GetNumResults() != 1)
      throw std::invalid_argument("expression " + quoted(text) + " gives " + std::to_string(probe.GetNumResults()) +
                                  " values (a comma separates them); it must give one");
    if (x != x0 || y != y0 || z != z0)
      throw std::invalid_argument("expression " + quoted(text) + " assigns to x, y or z (\"=\"); compare with \"==\"");
  } catch (const mu::Parser::exception_type& e) {
    throw std::invalid_argument("cannot parse expression " + quoted(text) + ": " + e.GetMsg());
  }
  Spacing s;
  s.constant_ = 0.0;
  s.expression_ = text;
  return s;
}

std::string Spacing::brief() const { return shown(describe()); }

std::string Spacing::describe() const {
  if (!is_constant()) return expression_;
  std::ostringstream out;
  out.precision(17);
  out << constant_;
  return out.str();
}

}  // namespace nodegen
