#pragma once
// Axis-aligned box: bounding boxes of shapes and domains.
#include <algorithm>

#include <nodegen/spatial/point.hpp>

namespace nodegen {

template <int D>
struct Box {
  Vec<D> lo = Vec<D>::Zero();
  Vec<D> hi = Vec<D>::Zero();

  bool contains(const Vec<D>& p) const { return (p.array() >= lo.array()).all() && (p.array() <= hi.array()).all(); }
  Vec<D> size() const { return hi - lo; }
  Vec<D> center() const { return 0.5 * (lo + hi); }
  double volume() const { return size().prod(); }  // area in 2D
  double reach() const { return std::max(lo.cwiseAbs().maxCoeff(), hi.cwiseAbs().maxCoeff()); }  // the largest |x|
  bool empty() const { return (hi.array() < lo.array()).any(); }
};

}  // namespace nodegen
