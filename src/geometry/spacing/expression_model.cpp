// Expressions in x, y, z and dist("NAME") (expression_model.hpp).
#include "geometry/spacing/expression_model.hpp"

#include <muParser.h>

#include <cctype>
#include <stdexcept>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::spacing_detail {

std::string distance_variable(std::size_t i) { return "nodegen_dist_" + std::to_string(i); }

namespace {

std::string quoted(const std::string& text) { return "\"" + shown(text) + "\""; }

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// The text with every dist("NAME") replaced by its variable; the distinct names in `parts`.
std::string rewrite_distances(const std::string& text, std::vector<std::string>& parts) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    const bool word_start = i == 0 || !identifier_char(text[i - 1]);
    if (word_start && text.compare(i, 4, "dist") == 0 && (i + 4 == text.size() || !identifier_char(text[i + 4]))) {
      std::size_t j = i + 4;
      auto skip_blanks = [&] {
        while (j < text.size() && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
      };
      skip_blanks();
      const bool open = j < text.size() && text[j] == '(';
      if (open) ++j;
      skip_blanks();
      if (!open || j >= text.size() || text[j] != '"')
        throw std::invalid_argument("expression " + quoted(text) +
                                    ": dist takes a boundary part's name in double quotes, as in dist(\"hole\")");
      const std::size_t name_end = text.find('"', j + 1);
      if (name_end == std::string::npos)
        throw std::invalid_argument("expression " + quoted(text) + ": the part name after dist( has no closing quote");
      const std::string name = text.substr(j + 1, name_end - j - 1);
      j = name_end + 1;
      skip_blanks();
      if (j >= text.size() || text[j] != ')')
        throw std::invalid_argument("expression " + quoted(text) + ": dist(\"" + shown(name) +
                                    "\" takes one argument; a ')' must follow the name");
      std::size_t k = 0;
      while (k < parts.size() && parts[k] != name) ++k;
      if (k == parts.size()) parts.push_back(name);
      out += distance_variable(k);
      i = j + 1;
      continue;
    }
    if (text[i] == '"')
      throw std::invalid_argument("expression " + quoted(text) +
                                  ": a quoted string may only name a part, as in dist(\"hole\")");
    out += text[i++];
  }
  return out;
}

// muparser bound to x, y, z and the distances.
struct BoundParser {
  double x = 0.0, y = 0.0, z = 0.0;
  std::vector<double> distances;
  mu::Parser parser;

  BoundParser(const std::string& text, std::size_t parts) : distances(parts, 0.0) {
    parser.DefineVar("x", &x);
    parser.DefineVar("y", &y);
    parser.DefineVar("z", &z);
    for (std::size_t i = 0; i < parts; ++i) parser.DefineVar(distance_variable(i), &distances[i]);
    parser.SetExpr(text);
  }
};

// The probe of a bound expression: heap-allocated, so the addresses muparser holds stay valid.
class ExpressionProbe : public Probe {
 public:
  ExpressionProbe(const std::string& text, const std::vector<std::shared_ptr<const DistanceField>>& fields)
      : bound_(text, fields.size()), fields_(fields), hints_(fields.size()) {
    bound_.parser.Eval();  // compiles to bytecode now, so the first real call is not the slow one
  }
  double at(double x, double y, double z) override {
    bound_.x = x;
    bound_.y = y;
    bound_.z = z;
    for (std::size_t i = 0; i < fields_.size(); ++i) bound_.distances[i] = fields_[i]->distance(x, y, z, hints_[i]);
    return bound_.parser.Eval();
  }

 private:
  BoundParser bound_;
  const std::vector<std::shared_ptr<const DistanceField>>& fields_;
  std::vector<DistanceField::Hint> hints_;
};

// Parses the text once at probe values, refusing what muparser accepts but a spacing must not be.
void check_expression(const std::string& original, const std::string& rewritten, std::size_t parts) {
  try {
    // Odd probe values, so that an assignment of any round number shows as a change below.
    constexpr double x0 = 0.4142135623730951, y0 = 0.7320508075688772, z0 = 0.2360679774997897;
    BoundParser probe(rewritten, parts);
    probe.x = x0, probe.y = y0, probe.z = z0;
    probe.parser.Eval();
    // muparser also takes "0.1, 0.05" (several results: the last one was used) and "x = 0.05" (an
    // assignment to the coordinate, which then reads as h = 0.05 everywhere): typos, not spacings.
    if (probe.parser.GetNumResults() != 1)
      throw std::invalid_argument("expression " + quoted(original) + " gives " +
                                  std::to_string(probe.parser.GetNumResults()) +
                                  " values (a comma separates them); it must give one");
    if (probe.x != x0 || probe.y != y0 || probe.z != z0)
      throw std::invalid_argument("expression " + quoted(original) + " assigns to x, y or z (\"=\"); compare with \"==\"");
    for (double d : probe.distances)
      if (d != 0.0) throw std::invalid_argument("expression " + quoted(original) + " assigns to a dist(); compare with \"==\"");
  } catch (const mu::Parser::exception_type& e) {
    throw std::invalid_argument("cannot parse expression " + quoted(original) + ": " + e.GetMsg());
  }
}

}  // namespace

ExpressionModel::ExpressionModel(std::string text) : text_(std::move(text)) {
  if (text_.find_first_not_of(" \t\n") == std::string::npos) throw std::invalid_argument("empty expression");
  rewritten_ = rewrite_distances(text_, parts_);
  check_expression(text_, rewritten_, parts_.size());
}

std::unique_ptr<Probe> ExpressionModel::probe() const {
  if (fields_.size() != parts_.size())
    throw std::logic_error("spacing expression " + quoted(text_) + ": its dist() parts were never bound");
  return std::make_unique<ExpressionProbe>(rewritten_, fields_);
}

std::shared_ptr<const ExpressionModel> ExpressionModel::with_distances(
    std::vector<std::shared_ptr<const DistanceField>> fields) const {
  if (fields.size() != parts_.size())
    throw std::logic_error("spacing expression: " + std::to_string(fields.size()) + " distance fields for " +
                           std::to_string(parts_.size()) + " parts");
  auto bound = std::make_shared<ExpressionModel>(*this);
  bound->fields_ = std::move(fields);
  return bound;
}

}  // namespace nodegen::spacing_detail
