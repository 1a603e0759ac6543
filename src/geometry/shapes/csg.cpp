// Inner nodes of the shape tree: union / intersection / difference, and affine transforms.
#include <algorithm>
#include <optional>

#include "geometry/shapes/box_hierarchy.hpp"
#include "geometry/shapes/shape.hpp"

namespace nodegen::geometry_detail {
namespace {

template <int D>
class CsgShape final : public Shape<D> {
 public:
  CsgShape(CsgOp op, std::vector<ShapePtr<D>> children) : op_(op), children_(std::move(children)) {
    box_ = combined([](const Shape<D>& c) { return c.bounds(); });
    // Unions and differences of many children find the few whose box holds a point through a box
    // hierarchy; a handful are faster asked in turn. An intersection must ask every child anyway.
    const std::size_t first = op_ == CsgOp::difference ? 1 : 0;
    if (op_ != CsgOp::intersection && children_.size() - first > kDirectChildren) {
      std::vector<Box<D>> boxes;
      for (std::size_t i = first; i < children_.size(); ++i) boxes.push_back(children_[i]->bounds());
      hierarchy_.emplace(std::move(boxes));
    }
  }

  bool contains(const Vec<D>& p) const override {
    if (hierarchy_) {
      const std::size_t first = op_ == CsgOp::difference ? 1 : 0;
      if (first == 1 && !children_.front()->contains(p)) return false;
      const bool in_any = hierarchy_->any(p, [&](std::uint32_t i) { return children_[first + i]->contains(p); });
      return first == 1 ? !in_any : in_any;
    }
    switch (op_) {
      case CsgOp::union_:
        return std::any_of(children_.begin(), children_.end(), [&](const auto& c) { return c->contains(p); });
      case CsgOp::intersection:
        return std::all_of(children_.begin(), children_.end(), [&](const auto& c) { return c->contains(p); });
      case CsgOp::difference:
        return children_.front()->contains(p) &&
               std::none_of(children_.begin() + 1, children_.end(), [&](const auto& c) { return c->contains(p); });
    }
    return false;
  }
  Box<D> bounds() const override { return box_; }
  Box<D> bounds_under(const Affine<D>& to_world) const override {
    return combined([&to_world](const Shape<D>& c) { return c.bounds_under(to_world); });
  }
  void leaf_boxes(const Affine<D>& to_world, std::vector<Box<D>>& out) const override {
    if (op_ != CsgOp::union_) return children_.front()->leaf_boxes(to_world, out);
    for (const auto& c : children_) c->leaf_boxes(to_world, out);
  }
  std::size_t leaf_count() const override {
    std::size_t n = 0;
    for (const auto& c : children_) n += c->leaf_count();
    return n;
  }
  void register_parts(std::vector<std::string>& names) override {
    for (auto& c : children_) c->register_parts(names);
  }
  void part_geometry(const Affine<D>& to_world, std::vector<PartPrimitive>& out) const override {
    for (const auto& c : children_) c->part_geometry(to_world, out);
  }
  void emit_boundary(const Placement<D>& where, BoundarySink<D>& sink) const override {
    for (std::size_t i = 0; i < children_.size(); ++i) {
      Placement<D> child = where;
      // The boundary of a subtracted shape bounds the result from the other side.
      if (op_ == CsgOp::difference && i > 0) child.flip = !child.flip;
      children_[i]->emit_boundary(child, sink);
    }
  }
  bool is_csg() const override { return true; }

 private:
  static constexpr std::size_t kDirectChildren = 16;

  // The box of the combined shape from its children's boxes (box_of(child)): their union's, their
  // intersection's, or a difference's first child's, within which it lies.
  template <class BoxOf>
  Box<D> combined(BoxOf&& box_of) const {
    Box<D> box = box_of(*children_.front());
    if (op_ == CsgOp::difference) return box;
    for (std::size_t i = 1; i < children_.size(); ++i) {
      const Box<D> b = box_of(*children_[i]);
      if (op_ == CsgOp::union_) {
        box.lo = box.lo.cwiseMin(b.lo);
        box.hi = box.hi.cwiseMax(b.hi);
      } else {
        box.lo = box.lo.cwiseMax(b.lo);
        box.hi = box.hi.cwiseMin(b.hi);
      }
    }
    return box;
  }

  CsgOp op_;
  std::vector<ShapePtr<D>> children_;
  Box<D> box_;
  std::optional<BoxHierarchy<D>> hierarchy_;  // over the union's children or the difference's subtracted ones
};

template <int D>
class TransformShape final : public Shape<D> {
 public:
  TransformShape(const Affine<D>& to_parent, ShapePtr<D> child)
      : to_parent_(to_parent), child_(std::move(child)) {
    from_parent_.A = inverse_of(to_parent_.A);
    from_parent_.b = -(from_parent_.A * to_parent_.b);
    box_ = child_->bounds_under(to_parent_);
  }

  bool contains(const Vec<D>& p) const override { return child_->contains(from_parent_.point(p)); }
  Box<D> bounds() const override { return box_; }
  Box<D> bounds_under(const Affine<D>& to_world) const override {
    return child_->bounds_under(to_parent_.then(to_world));
  }
  void leaf_boxes(const Affine<D>& to_world, std::vector<Box<D>>& out) const override {
    child_->leaf_boxes(to_parent_.then(to_world), out);
  }
  std::size_t leaf_count() const override { return child_->leaf_count(); }
  void register_parts(std::vector<std::string>& names) override { child_->register_parts(names); }
  void part_geometry(const Affine<D>& to_world, std::vector<PartPrimitive>& out) const override {
    child_->part_geometry(to_parent_.then(to_world), out);
  }
  void emit_boundary(const Placement<D>& where, BoundarySink<D>& sink) const override {
    Placement<D> inner = where;
    inner.to_world = to_parent_.then(where.to_world);
    child_->emit_boundary(inner, sink);
  }
  bool is_csg() const override { return child_->is_csg(); }

 private:
  Affine<D> to_parent_, from_parent_;
  ShapePtr<D> child_;
  Box<D> box_;
};

}  // namespace

template <int D>
ShapePtr<D> make_csg(CsgOp op, std::vector<ShapePtr<D>> children) {
  return std::make_shared<CsgShape<D>>(op, std::move(children));
}
template <int D>
ShapePtr<D> make_transform(const Affine<D>& to_parent, ShapePtr<D> child) {
  return std::make_shared<TransformShape<D>>(to_parent, std::move(child));
}

template ShapePtr<2> make_csg<2>(CsgOp, std::vector<ShapePtr<2>>);
template ShapePtr<3> make_csg<3>(CsgOp, std::vector<ShapePtr<3>>);
template ShapePtr<2> make_transform<2>(const Affine<2>&, ShapePtr<2>);
template ShapePtr<3> make_transform<3>(const Affine<3>&, ShapePtr<3>);

}  // namespace nodegen::geometry_detail
