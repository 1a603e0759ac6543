#pragma once
// The distance from a point to a boundary part's geometry, what a spacing's dist("NAME") reads.
//
// Geometry: segments (2D edges: polygons, boxes), triangles (3D faces: boxes, meshes) and rounds (a
// ball's circle or sphere, kept exact where its transform is a similarity; under an anisotropic scale it
// is tessellated finely instead). Everything is in 3D coordinates, z = 0 in 2D.
//
// Search: a bounding-volume hierarchy over the primitives (median splits of their centres along the
// longest axis, four primitives a leaf), walked depth first, nearer child first, pruning a box farther
// than the best distance so far. A query starts from the primitive that was closest to the caller's
// previous query (Hint): the fill asks for points next to each other, so that bound prunes almost
// everything at once.
//
// Determinism: the distance returned is the least of the primitives' computed distances, and a box is
// pruned only when it is farther than the best by a relative margin well above rounding, so every
// primitive whose distance could be the least is evaluated whatever the hint: the value does not depend
// on the order of the queries (nor on the thread asking).
//
// Thread use: immutable once built; const queries from any number of threads, each with its own Hint.
#include <array>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace nodegen {

class DistanceField {
 public:
  struct Primitive {
    enum class Kind : std::uint8_t { segment, triangle, round };
    Kind kind = Kind::segment;
    Eigen::Vector3d a = Eigen::Vector3d::Zero(), b = Eigen::Vector3d::Zero(), c = Eigen::Vector3d::Zero();
    double radius = 0.0;  // round: |‖p - a‖ - radius|
  };
  // One caller's warm start: the primitive closest to its last query.
  struct Hint {
    std::uint32_t primitive = 0;
  };

  // Throws std::invalid_argument when `primitives` is empty.
  explicit DistanceField(std::vector<Primitive> primitives);

  double distance(double x, double y, double z, Hint& hint) const;
  std::size_t size() const { return primitives_.size(); }

  // The distance from p to one primitive (the search's own measure).
  static double distance_to(const Primitive& primitive, const Eigen::Vector3d& p);

 private:
  struct Node {
    Eigen::Vector3d lo, hi;
    std::uint32_t first = 0;  // leaf: its first primitive; inner: its second child (the first follows it)
    std::uint32_t count = 0;  // leaf: its primitives; inner: 0
  };
  std::uint32_t build(std::uint32_t first, std::uint32_t count);

  std::vector<Primitive> primitives_;  // in leaf order
  std::vector<Node> nodes_;            // nodes_[0] is the root
};

}  // namespace nodegen
