#pragma once
// A 2D Delaunay triangulation of samples flattened for point location: its finite faces in one array
// in Morton order of their centroids, each holding its corners' coordinates and sample indices and its
// neighbours' places (-1 across the hull), and a grid of walk starts (start_grid.hpp). A spacing from
// 1e6 samples locates a point per node the fill places; a walk through CGAL's faces spends its time
// waiting for memory (a face, then each corner's vertex record, each elsewhere), a walk here reads one
// 72-byte face per step, and consecutive faces are mostly neighbours.
//
// Location is exact: a visibility walk (cross the first edge p is strictly outside of) on orientations
// whose sign floating point settles by Shewchuk's static bound, else CGAL's exact predicate. It ends
// in the closed face holding p, which it classifies as CGAL's locate does (inside, on an edge, at a
// corner), or leaves the hull through an edge p is strictly outside of (p is outside the hull). In a
// Delaunay triangulation a visibility walk never cycles, so the walk ends (its steps are capped at
// the face count all the same).
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include <Eigen/Core>

#include "geometry/spacing/start_grid.hpp"

namespace nodegen::spacing_detail {

class FlatTriangulation {
 public:
  // Corners in the order of their sample indices (the order the interpolant takes them in), so that a
  // face reads nothing else; `clockwise` says that order turns clockwise (the walk's edges reverse).
  struct Face {
    std::array<double, 3> x, y, value;
    std::array<std::int32_t, 3> across;  // neighbour across the edge opposite corner i; -1: the hull
    std::int32_t clockwise;
  };
  enum class Kind { kFace, kEdge, kCorner, kOutside };
  struct Location {
    Kind kind = Kind::kOutside;
    std::int32_t face = -1;
    int i = 0;  // kEdge: the edge opposite corner i; kCorner: corner i
  };

  FlatTriangulation() = default;

  // `dt` a CGAL Delaunay_triangulation_2 of dimension 2 whose vertex info has the sample `index` and
  // whose face info is an integer (overwritten: the face's place here); `points` the samples' positions
  // by index.
  template <class Dt>
  FlatTriangulation(Dt& dt, const std::vector<Eigen::Vector3d>& points) {
    std::vector<typename Dt::Face_handle> handles;
    for (auto f = dt.finite_faces_begin(); f != dt.finite_faces_end(); ++f) handles.push_back(f);
    order_by_morton(handles);
    for (std::size_t k = 0; k < handles.size(); ++k) handles[k]->info() = static_cast<std::int32_t>(k);
    faces_.resize(handles.size());
    std::vector<std::int32_t> face_of_sample(points.size(), 0);
    for (std::size_t k = 0; k < handles.size(); ++k) {
      std::array<int, 3> corner{0, 1, 2};  // CGAL's counterclockwise corners, sorted by sample index
      auto index = [&](int i) { return handles[k]->vertex(i)->info().index; };
      std::sort(corner.begin(), corner.end(), [&](int a, int b) { return index(a) < index(b); });
      Face& face = faces_[k];
      for (int i = 0; i < 3; ++i) {
        const auto v = handles[k]->vertex(corner[i]);
        face.x[i] = v->point().x();
        face.y[i] = v->point().y();
        face.value[i] = v->info().value;
        face_of_sample[v->info().index] = static_cast<std::int32_t>(k);
        const auto n = handles[k]->neighbor(corner[i]);
        face.across[i] = dt.is_infinite(n) ? -1 : n->info();
      }
      face.clockwise = (corner[1] - corner[0] + 3) % 3 == 2;  // a cyclic shift of (0, 1, 2) keeps the turn
    }
    starts_ = StartGrid<std::int32_t>(points, 2, 2.0, [&](std::size_t i) { return face_of_sample[i]; });
  }

  bool empty() const { return faces_.empty(); }
  const Face& face(std::int32_t k) const { return faces_[static_cast<std::size_t>(k)]; }
  const StartGrid<std::int32_t>& starts() const { return starts_; }

  // Where (x, y) is, by a walk from face `from`.
  Location locate(std::int32_t from, double x, double y) const {
    std::int32_t f = from;
    for (std::size_t step = 0; step <= faces_.size(); ++step) {
      const Face& face = faces_[static_cast<std::size_t>(f)];
      for (int i = 0; i < 3; ++i)  // a sample's own position (no predicate needs to say so)
        if (face.x[i] == x && face.y[i] == y) return {Kind::kCorner, f, i};
      int zeros = 0, zero_sum = 0, zero_at = -1, cross = -1;
      for (int i = 0; i < 3 && cross < 0; ++i) {
        int a = (i + 1) % 3, b = (i + 2) % 3;  // the edge opposite corner i, counterclockwise
        if (face.clockwise) std::swap(a, b);
        const int side = orientation(face.x[a], face.y[a], face.x[b], face.y[b], x, y);
        if (side < 0) cross = i;
        else if (side == 0) ++zeros, zero_sum += i, zero_at = i;
      }
      if (cross < 0) {
        if (zeros == 0) return {Kind::kFace, f, 0};
        if (zeros == 1) return {Kind::kEdge, f, zero_at};
        return {Kind::kCorner, f, 3 - zero_sum};  // on two edges' lines: the corner neither is opposite
      }
      if (face.across[cross] < 0) return {Kind::kOutside, f, 0};
      f = face.across[cross];
    }
    return {Kind::kOutside, f, 0};  // unreachable in a Delaunay triangulation (see the top)
  }

 private:
  // The sign of the turn a -> b -> p: +1 left (counterclockwise), -1 right, 0 on the line.
  static int orientation(double ax, double ay, double bx, double by, double px, double py) {
    constexpr double kEpsilon = 0x1p-53, kBound = (3.0 + 16.0 * kEpsilon) * kEpsilon;
    const double left = (ax - px) * (by - py), right = (ay - py) * (bx - px);
    const double det = left - right, bound = kBound * (std::abs(left) + std::abs(right));
    if (det > bound) return 1;
    if (det < -bound) return -1;
    // A point on an axis-parallel edge's line (nodes on a box's side among samples on it) is on it.
    if ((ax == bx && bx == px) || (ay == by && by == py)) return 0;
    using K = CGAL::Exact_predicates_inexact_constructions_kernel;
    return static_cast<int>(CGAL::orientation(K::Point_2(ax, ay), K::Point_2(bx, by), K::Point_2(px, py)));
  }

  // Faces sorted by the Morton code of their centroid on a 2^21 grid over their box.
  template <class Handle>
  static void order_by_morton(std::vector<Handle>& faces) {
    if (faces.empty()) return;
    std::vector<std::array<double, 2>> centre(faces.size());
    std::array<double, 2> lo{INFINITY, INFINITY}, hi{-INFINITY, -INFINITY};
    for (std::size_t k = 0; k < faces.size(); ++k) {
      for (int d = 0; d < 2; ++d) {
        double sum = 0;
        for (int i = 0; i < 3; ++i) sum += faces[k]->vertex(i)->point()[d];
        centre[k][static_cast<std::size_t>(d)] = sum / 3.0;
        lo[d] = std::min(lo[d], centre[k][d]);
        hi[d] = std::max(hi[d], centre[k][d]);
      }
    }
    std::vector<std::uint64_t> code(faces.size());
    for (std::size_t k = 0; k < faces.size(); ++k) {
      std::uint64_t c = 0;
      for (int d = 0; d < 2; ++d) {
        const double t = hi[d] > lo[d] ? (centre[k][d] - lo[d]) / (hi[d] - lo[d]) : 0.0;
        const auto q = static_cast<std::uint64_t>(std::clamp(t, 0.0, 1.0) * 2097151.0);
        for (int bit = 0; bit < 21; ++bit) c |= ((q >> bit) & 1u) << (2 * bit + d);
      }
      code[k] = c;
    }
    std::vector<std::size_t> order(faces.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return code[a] < code[b]; });
    std::vector<Handle> sorted(faces.size());
    for (std::size_t k = 0; k < order.size(); ++k) sorted[k] = faces[order[k]];
    faces.swap(sorted);
  }

  std::vector<Face> faces_;
  StartGrid<std::int32_t> starts_;
};

}  // namespace nodegen::spacing_detail
