#pragma once
// A domain: the solid described by a shape tree (CSG of boxes, balls, polygons, triangle meshes,
// transforms). Answers "is this point inside" for the fill's hot loop and places boundary nodes.
//
// Domains are made by load_domain_file() / parse_domain_text() (domain_file.hpp); the shape tree itself
// is internal (src/geometry/), so CGAL stays out of this header.
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nodegen/geometry/box.hpp>
#include <nodegen/geometry/distance_field.hpp>
#include <nodegen/geometry/spacing.hpp>
#include <nodegen/spatial/point.hpp>

namespace nodegen {

template <int D>
struct BoundaryNode {
  Vec<D> pos;
  Vec<D> normal;    // outward, unit length
  int boundary_id;  // >= 1; boundary_names()[boundary_id - 1] says which part of which shape
};

namespace geometry_detail {
template <int D>
class Shape;
}

// A boundary part a domain file makes by a rule (its "parts" field): the boundary nodes at positions
// where `where` is non-zero, among those on the parts `of` names (a part's name or a shape's, as
// dist() takes them; empty: any part), take the part `name`. Rules are tried in order; the first that
// matches a node wins; a node no rule matches keeps its shape's part, and its normal stays the
// geometry's either way.
struct PartRule {
  std::string name;
  std::string of;
  Spacing where;  // an expression in x, y, z (and dist()), read as a condition
};

template <int D>
class Domain {
 public:
  static_assert(D == 2 || D == 3, "nodegen works in 2D and 3D");
  static constexpr int kDim = D;

  // Takes the root of a finished shape tree (whose leaves have built their acceleration structures
  // eagerly) and its boundary part names, so all const member functions are safe to call from many
  // threads at once without locks.
  Domain(std::shared_ptr<const geometry_detail::Shape<D>> root, std::vector<std::string> boundary_names);
  // Copies share the shape tree, which no member function modifies.
  Domain(const Domain&) = default;
  Domain& operator=(const Domain&) = default;
  ~Domain();

  // Thread-safe, no lazy initialisation. Points on the boundary may be reported either way.
  bool contains(const Vec<D>& p) const;

  const Box<D>& bounding_box() const { return box_; }

  // Area (2D) or volume (3D), estimated once at construction from a grid of inside tests over the
  // bounding box, or, where that grid finds fewer than kFewInside points inside, from grids over the
  // boxes of the shape tree's leaves.
  double measure() const { return measure_; }

  // Nodes on every boundary part at spacing h(x), with outward unit normals and boundary ids, sorted by
  // boundary id. Deterministic for a given seed. Parts of CSG children are kept only where they lie on
  // the boundary of the combined shape; nodes where boundaries meet are thinned to the spacing.
  // `threads`: how many threads the placement may use (the result does not depend on it). Throws
  // StoreFull once the placement holds twice `max_nodes` (before thinning where parts meet) or a part
  // needs more than that, before it allocates for them.
  std::vector<BoundaryNode<D>> boundary_nodes(const Spacing& spacing, std::uint64_t seed, int threads = 1,
                                              std::size_t max_nodes = std::numeric_limits<std::size_t>::max()) const;

  // Leaves of the shape tree (boxes, balls, polygons, meshes): an inside test evaluates at most this
  // many, and callers that run many tests bound their work by it.
  std::size_t leaf_count() const { return leaves_; }

  // Names of the boundary parts; index = boundary id - 1 (e.g. "outer:x-", "shape.children[1]:surface"),
  // the rules' parts after the shapes'.
  const std::vector<std::string>& boundary_names() const { return names_; }

  // This domain with `rules` applied to its boundary nodes, their parts named after the shapes'.
  // Throws std::invalid_argument when a rule's name is empty or already a part's, or its `of` names no
  // part or shape. The rules' expressions must have their distances bound.
  Domain with_part_rules(std::vector<PartRule> rules) const;

  // The distance to the boundary parts `name` stands for: the part of that name, or every part of the
  // shape of that name ("hole" for "hole:surface", "plate" for its four edges). Measured to each part's
  // whole surface as its shape defines it (geometry/distance_field.hpp). Throws std::invalid_argument,
  // listing the names there are, when none matches.
  std::shared_ptr<const DistanceField> distance_field(const std::string& name) const;

 private:
  static constexpr long kFewInside = 64;
  double measure_over_leaf_boxes(std::size_t budget) const;
  // The ids (index = id) `name` stands for: a part of that name or every part of the shape of that name.
  // Throws std::invalid_argument listing the names there are when none matches.
  std::vector<bool> parts_named(const std::string& name) const;
  // Gives each node the part of the first rule that matches it, then sorts the nodes by part again.
  void apply_part_rules(std::vector<BoundaryNode<D>>& nodes, int threads) const;

  struct ResolvedRule {
    int id;                 // the rule's part
    std::vector<bool> of;   // the parts it applies to (index = id); empty: all
    Spacing where;
  };
  std::vector<ResolvedRule> rules_;

  std::shared_ptr<const geometry_detail::Shape<D>> root_;
  Box<D> box_;
  double measure_ = 0.0;
  std::size_t leaves_ = 0;
  std::vector<std::string> names_;
};

extern template class Domain<2>;
extern template class Domain<3>;

}  // namespace nodegen
