// Domain<D>: inside test and boundary nodes of a shape tree (see domain.hpp).
#include <nodegen/geometry/domain.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "geometry/boundary/boundary_sink.hpp"
#include "geometry/shapes/box_hierarchy.hpp"
#include "geometry/shapes/shape.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen {

namespace {

// Grid points (cell centres) of a box, n per axis.
template <int D, class F>
void for_each_grid_point(const Box<D>& box, int n, F&& f) {
  const Vec<D> step = box.size() / n;
  std::array<int, D> idx{};
  const long total = static_cast<long>(std::pow(n, D));
  for (long k = 0; k < total; ++k) {
    long r = k;
    Vec<D> p;
    for (int i = 0; i < D; ++i) {
      idx[i] = static_cast<int>(r % n);
      r /= n;
      p[i] = box.lo[i] + (idx[i] + 0.5) * step[i];
    }
    f(p);
  }
}

// The smallest offset that surely moves a point of the box: 64 units in the last place of its largest
// coordinate (the inside tests of transformed shapes round by a few units on their own). Offsets chosen
// relative to the box's size alone vanish for a small domain far from the origin: at 3e6 a unit in the
// last place is 4.7e-10, more than 1e-7 of a 1e-3 wide box.
template <int D>
double coordinate_resolution(const Box<D>& box) {
  return 64.0 * std::numeric_limits<double>::epsilon() * box.reach();
}

}  // namespace

template <int D>
Domain<D>::Domain(std::shared_ptr<const geometry_detail::Shape<D>> root, std::vector<std::string> boundary_names)
    : root_(std::move(root)), box_(root_->bounds()), names_(std::move(boundary_names)) {
  leaves_ = root_->leaf_count();
  const int n = D == 2 ? 256 : 64;
  long inside = 0, total = 0;
  for_each_grid_point<D>(box_, n, [&](const Vec<D>& p) {
    inside += contains(p);
    ++total;
  });
  measure_ = box_.volume() * static_cast<double>(inside) / static_cast<double>(total);
  if (inside < kFewInside) measure_ = measure_over_leaf_boxes(static_cast<std::size_t>(total));
}

// An unbiased estimate over the leaves' boxes, whose union holds the domain: a grid in each box, each
// inside point weighted by its box's cell volume over the number of boxes holding it. A shape much
// smaller than its bounding box (two disks 1e4 apart, a square with a long needle, a thin strip turned
// 45 degrees) has no or few points on the grid over that box, and was refused as empty.
template <int D>
double Domain<D>::measure_over_leaf_boxes(std::size_t budget) const {
  std::vector<Box<D>> boxes;
  root_->leaf_boxes(geometry_detail::Affine<D>{}, boxes);
  std::erase_if(boxes, [this](Box<D>& b) {
    b.lo = b.lo.cwiseMax(box_.lo);
    b.hi = b.hi.cwiseMin(box_.hi);
    return b.empty() || !(b.volume() > 0);
  });
  if (boxes.empty()) return 0.0;
  const geometry_detail::BoxHierarchy<D> hierarchy(boxes);
  const int per_axis = std::max(2, static_cast<int>(std::pow(static_cast<double>(budget) / static_cast<double>(boxes.size()), 1.0 / D)));
  // Counting the boxes that hold a point is bounded: past the budget a point counts as held by one (an
  // overestimate where the boxes overlap; the measure only has to be positive where the shape is).
  std::size_t visits_left = 64 * budget;
  double measure = 0.0;
  for (const Box<D>& b : boxes) {
    double weight_inside = 0.0;
    for_each_grid_point<D>(b, per_axis, [&](const Vec<D>& p) {
      if (!contains(p)) return;
      std::size_t holders = 0;
      hierarchy.any(p, [&](std::uint32_t) {
        ++holders;
        if (visits_left == 0) return true;  // stop counting
        --visits_left;
        return false;
      });
      weight_inside += 1.0 / static_cast<double>(std::max<std::size_t>(holders, 1));
    });
    measure += b.volume() * weight_inside / std::pow(per_axis, D);
  }
  return measure;
}

template <int D>
Domain<D>::~Domain() = default;

template <int D>
bool Domain<D>::contains(const Vec<D>& p) const {
  return box_.contains(p) && root_->contains(p);
}

template <int D>
std::vector<BoundaryNode<D>> Domain<D>::boundary_nodes(const Spacing& spacing, std::uint64_t seed, int threads,
                                                       std::size_t max_nodes) const {
  using namespace geometry_detail;
  auto h = spacing.evaluator();
  const double diag = box_.size().norm();
  // Cell size of the hash grids that check spacing: the geometric mean of the smallest and largest h,
  // so graded spacings neither scan thousands of cells per query (cells of the smallest h) nor crowd
  // hundreds of nodes into one cell (cells of the largest h).
  double h_min = diag, h_max = 0.0;
  for_each_grid_point<D>(box_, 16, [&](const Vec<D>& p) {
    const double hp = h(p);
    h_min = std::min(h_min, hp);
    h_max = std::max(h_max, hp);
  });
  const double cell = std::max(std::sqrt(h_min * std::max(h_min, h_max)), 1e-6 * diag);

  // A node of some part is on the boundary of the whole domain when just inside it (against its outward
  // normal) is in the domain and just outside is not. Without CSG every node is. "Just" is 1e-7 of the
  // diagonal, or the coordinates' resolution where that is coarser (else both probes round to p).
  const double resolution = coordinate_resolution(box_);
  std::function<bool(const Vec<D>&, const Vec<D>&)> keep;
  if (root_->is_csg()) {
    const double eps = std::max(1e-7 * diag, resolution);
    keep = [this, eps](const Vec<D>& p, const Vec<D>& n) {
      return root_->contains(p - eps * n) && !root_->contains(p + eps * n);
    };
  }
  std::function<bool(const Vec<D>&)> inside;
  if (keep) inside = [this](const Vec<D>& p) { return contains(p); };
  BoundarySink<D> sink(spacing, keep, inside, cell, resolution, least_spacing(box_), seed, threads, max_nodes);
  if (keep) {
    // keep() probes a node eps to either side: beyond the box by more than that it accepts none.
    const double pad = 10.0 * std::max(1e-7 * diag, resolution);
    sink.set_region(Box<D>{box_.lo.array() - pad, box_.hi.array() + pad});
  }
  root_->emit_boundary(Placement<D>{}, sink);
  sink.settle_junctions();

  // Where parts meet, nodes of different parts may be closer than the spacing allows: keep corners and
  // junctions first, then edges, then surfaces, dropping any node within 0.9 h of one already kept (no
  // two boundary nodes closer, as on one part's face; a node dropped has the one that displaced it
  // within 0.9 h, so the cover keeps no wider hole).
  constexpr double min_fraction = 0.9;
  auto& raw = sink.nodes();
  std::vector<std::size_t> order(raw.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return raw[a].priority < raw[b].priority; });
  PointGrid<D> kept(cell);
  std::vector<BoundaryNode<D>> out;
  out.reserve(raw.size());
  for (std::size_t i : order) {
    const auto& r = raw[i];
    if (kept.any_within(r.pos, min_fraction * h(r.pos))) continue;
    kept.insert(r.pos);
    out.push_back({r.pos, r.normal, r.id});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.boundary_id < b.boundary_id; });
  if (!rules_.empty()) apply_part_rules(out, threads);
  return out;
}

template <int D>
void Domain<D>::apply_part_rules(std::vector<BoundaryNode<D>>& nodes, int threads) const {
  std::vector<std::vector<Spacing::Evaluator>> where;  // [rule][thread]
  for (const ResolvedRule& r : rules_) where.push_back(r.where.evaluators(threads));
  parallel_for(nodes.size(), threads, [&](int t, std::size_t i) {
    BoundaryNode<D>& node = nodes[i];
    const auto original = static_cast<std::size_t>(node.boundary_id);
    for (std::size_t k = 0; k < rules_.size(); ++k) {
      const ResolvedRule& r = rules_[k];
      if (!r.of.empty() && (original >= r.of.size() || !r.of[original])) continue;
      // True where the condition is a number other than 0: not where it is NaN (sqrt of a negative),
      // which compares unequal to everything.
      const double holds = where[k][static_cast<std::size_t>(t)](node.pos);
      if (holds != 0.0 && !std::isnan(holds)) {
        node.boundary_id = r.id;
        break;
      }
    }
  });
  std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) { return a.boundary_id < b.boundary_id; });
}

template <int D>
Domain<D> Domain<D>::with_part_rules(std::vector<PartRule> rules) const {
  Domain<D> out = *this;
  for (PartRule& rule : rules) {
    if (rule.name.empty()) throw std::invalid_argument("a part made by a rule needs a name");
    if (std::find(out.names_.begin(), out.names_.end(), rule.name) != out.names_.end())
      throw std::invalid_argument("the part name \"" + shown(rule.name) + "\" is taken (each part is named once)");
    ResolvedRule resolved{static_cast<int>(out.names_.size()) + 1, {}, std::move(rule.where)};
    if (!rule.of.empty()) resolved.of = parts_named(rule.of);  // the shapes' parts, not other rules'
    out.names_.push_back(rule.name);
    out.rules_.push_back(std::move(resolved));
  }
  return out;
}

template <int D>
std::vector<bool> Domain<D>::parts_named(const std::string& name) const {
  const std::size_t shape_parts = names_.size() - rules_.size();
  std::vector<bool> wanted(shape_parts + 1, false);
  bool any = false;
  for (std::size_t i = 0; i < shape_parts; ++i)
    if (names_[i] == name || (names_[i].size() > name.size() && names_[i].compare(0, name.size(), name) == 0 &&
                              names_[i][name.size()] == ':')) {
      wanted[i + 1] = true;
      any = true;
    }
  if (!any) {
    std::string known;
    for (std::size_t i = 0; i < shape_parts && known.size() < 400; ++i) known += (i ? ", " : "") + shown(names_[i]);
    if (known.size() >= 400) known += ", ...";
    throw std::invalid_argument("no boundary part or shape is named \"" + shown(name) + "\" (parts: " + known + ")");
  }
  return wanted;
}

template <int D>
std::shared_ptr<const DistanceField> Domain<D>::distance_field(const std::string& name) const {
  const std::vector<bool> wanted = parts_named(name);
  std::vector<geometry_detail::PartPrimitive> all;
  root_->part_geometry(geometry_detail::Affine<D>{}, all);
  std::vector<DistanceField::Primitive> kept;
  for (const auto& p : all)
    if (p.part >= 1 && static_cast<std::size_t>(p.part) < wanted.size() && wanted[static_cast<std::size_t>(p.part)])
      kept.push_back(p.primitive);
  return std::make_shared<const DistanceField>(std::move(kept));
}

template class Domain<2>;
template class Domain<3>;

}  // namespace nodegen
