// The spacing field and its check over the domain (spacing_reader.hpp).
#include "nodegen/geometry/spacing_reader.hpp"

#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "nodegen/fill/fill_params.hpp"

namespace nodegen {

Spacing read_spacing(const JsonFields& fields, const nlohmann::json& sp) {
  if (sp.is_number()) {
    const double h = sp.get<double>();
    if (!std::isfinite(h) || !(h > 0)) fields.fail("spacing", "must be positive and finite, got " + sp.dump());
    return Spacing::constant(h);
  }
  if (sp.is_string()) {
    try {
      return Spacing::expression(sp.get<std::string>());
    } catch (const std::invalid_argument& e) {
      fields.fail("spacing", e.what());
    }
  }
  fields.fail("spacing", "expected a number or an expression string in x, y, z, got " + json_type_name(sp));
}

namespace {

// Evaluates h at points of the box, failing at the first value the fill cannot take, and keeps the
// least value seen and where.
template <int D>
class SpacingSurvey {
 public:
  SpacingSurvey(const JsonFields& fields, const Spacing& spacing)
      : fields_(fields), spacing_(spacing), h_(spacing.evaluator()) {}

  // h at every point into out (one batch for a spacing that prefers them), checked in order.
  void at_all(std::span<const Vec<D>> points, std::span<double> out) {
    h_.at_many(points, out);
    for (std::size_t i = 0; i < points.size(); ++i) check(points[i], out[i]);
  }

  void check(const Vec<D>& p, double v) {
    if (v < least_) least_ = v, least_at_ = p;
    if (!std::isfinite(v) || !(v > 0) || v < kMinSpacing)
      fields_.fail("spacing", "h = " + number_text(v) + " at (" + where(p) + ") is not " +
                                  (v > 0 && std::isfinite(v) ? "at least " + number_text(kMinSpacing) +
                                                                   " (its square would underflow)"
                                                             : std::string("positive and finite")) +
                                  " (\"" + spacing_.brief() + "\", sampled over the bounding box)");
  }
  double least() const { return least_; }
  std::string least_at() const { return where(least_at_); }

  static std::string where(const Vec<D>& p) {
    std::string text;
    for (int i = 0; i < D; ++i) text += (i ? ", " : "") + number_text(p[i]);
    return text;
  }

 private:
  const JsonFields& fields_;
  const Spacing& spacing_;
  Spacing::Evaluator h_;
  double least_ = std::numeric_limits<double>::infinity();
  Vec<D> least_at_ = Vec<D>::Zero();
};

// measure / h^d over the inside cells of an n^d grid, and the boundary's nodes: its length (2D) or
// area (3D) over h^(d-1), the boundary taken as the faces between inside cells and cells outside or
// beyond the box (a staircase, longer than a curved boundary by up to 1.5 times). The interior alone
// misses thin domains: a 1e9 x 1e-9 box at h = 1e-3 has 1e6 nodes' worth of area but 2e12 boundary nodes.
template <int D>
NodeEstimate estimate_nodes(SpacingSurvey<D>& survey, const Domain<D>& domain, const Box<D>& box, int n) {
  const Vec<D> step = box.size() / n;
  const double cell_measure = step.prod();
  const long total = static_cast<long>(std::pow(n, D));
  std::vector<char> inside(static_cast<std::size_t>(total));
  std::vector<double> h_at(static_cast<std::size_t>(total));
  std::vector<Vec<D>> centres(static_cast<std::size_t>(total));
  for (long k = 0; k < total; ++k) {
    long r = k;
    for (int i = 0; i < D; ++i) {
      centres[static_cast<std::size_t>(k)][i] = box.lo[i] + (static_cast<double>(r % n) + 0.5) * step[i];
      r /= n;
    }
  }
  survey.at_all(centres, h_at);
  NodeEstimate estimate;
  for (long k = 0; k < total; ++k) {
    const auto cell = static_cast<std::size_t>(k);
    inside[cell] = domain.contains(centres[cell]);
    if (inside[cell]) estimate.interior += cell_measure / std::pow(h_at[cell], D);
  }
  for (long k = 0; k < total; ++k) {
    if (!inside[static_cast<std::size_t>(k)]) continue;
    long stride = 1;
    for (int i = 0; i < D; ++i, stride *= n) {
      const long at = (k / stride) % n;
      const double faces = (at == 0 || !inside[static_cast<std::size_t>(k - stride)]) +
                           (at == n - 1 || !inside[static_cast<std::size_t>(k + stride)]);
      if (faces > 0)
        estimate.boundary += faces * (cell_measure / step[i]) / std::pow(h_at[static_cast<std::size_t>(k)], D - 1);
    }
  }
  return estimate;
}

// Random points and the corners of the box, beyond the grid's cell centres.
template <int D>
void sample_beyond_grid(SpacingSurvey<D>& survey, const Box<D>& box) {
  std::mt19937_64 rng(12345);
  std::vector<Vec<D>> points(2000 + (1 << D));
  for (int k = 0; k < 2000; ++k)
    for (int i = 0; i < D; ++i)
      points[static_cast<std::size_t>(k)][i] = std::uniform_real_distribution<double>(box.lo[i], box.hi[i])(rng);
  for (int corner = 0; corner < (1 << D); ++corner)
    for (int i = 0; i < D; ++i) points[static_cast<std::size_t>(2000 + corner)][i] = (corner >> i) & 1 ? box.hi[i] : box.lo[i];
  std::vector<double> h(points.size());
  survey.at_all(points, h);
}

}  // namespace

template <int D>
NodeEstimate check_spacing(const JsonFields& fields, const Spacing& spacing, const Domain<D>& domain,
                           std::size_t max_nodes, bool cap_from_cli) {
  const Box<D> box = domain.bounding_box();
  SpacingSurvey<D> survey(fields, spacing);
  const NodeEstimate nodes = estimate_nodes(survey, domain, box, 64);
  sample_beyond_grid(survey, box);
  const double h_min = survey.least();
  // |x| / h bounds the extent / h too (the extent is at most twice the largest |x|).
  const double reach = box.reach();
  if (reach > kMaxCoordinateOverSpacing * h_min)
    fields.fail("spacing", "h = " + number_text(h_min) + " at (" + survey.least_at() +
                               ") is below what double precision resolves at coordinates as large as " +
                               number_text(reach) + " (|x| / h must be at most " +
                               number_text(kMaxCoordinateOverSpacing) +
                               "); move the domain nearer the origin or use a larger spacing");
  // measure / h^d is a rough count (the fill packs somewhat more; bench/RESULTS.md, Fill), and the
  // boundary's a staircase one, so only clearly hopeless spacings are refused here (at twice the cap,
  // above the staircase's overestimate); the fill enforces the exact cap.
  const double total = nodes.interior + nodes.boundary;
  if (total > 2.0 * static_cast<double>(max_nodes))
    fields.fail("spacing", "would need about " + number_text(total) + " nodes (" + number_text(nodes.interior) +
                               " inside: domain measure / h^" + std::to_string(D) + "; " +
                               number_text(nodes.boundary) + " on the boundary: its " +
                               (D == 2 ? "length / h" : "area / h^2") + "), far above " +
                               (cap_from_cli ? "--max-nodes " : "fill.max_nodes = ") + std::to_string(max_nodes) +
                               "; use a larger spacing" +
                               (max_nodes < FillParams::kMaxNodeCap
                                    ? std::string(" or raise ") + (cap_from_cli ? "--max-nodes" : "fill.max_nodes")
                                    : std::string(" (the cap is already the most an output holds: its node indexes "
                                                  "are int32, as Medusa reads them)")));
  // The fill's k-d tree keeps nodes on a grid of 2^32 steps over the box (spacing.hpp,
  // kMaxExtentOverSpacing). After the count: a domain too thin for its h is refused for its count.
  const double extent = box.size().maxCoeff();
  if (extent > kMaxExtentOverSpacing * h_min)
    fields.fail("spacing", "h = " + number_text(h_min) + " at (" + survey.least_at() +
                               ") is finer than the fill resolves in a domain whose box is " + number_text(extent) +
                               " across (its extent / h must be at most " +
                               std::to_string(static_cast<long long>(kMaxExtentOverSpacing)) +
                               "); use a larger spacing there");
  return nodes;
}

template NodeEstimate check_spacing<2>(const JsonFields&, const Spacing&, const Domain<2>&, std::size_t, bool);
template NodeEstimate check_spacing<3>(const JsonFields&, const Spacing&, const Domain<3>&, std::size_t, bool);

}  // namespace nodegen
