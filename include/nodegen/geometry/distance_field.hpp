#pragma once
// The distance from a point to a boundary part's geometry, what a spacing's dist("NAME") reads.
//
// Geometry: segments (2D edges: polygons, boxes), triangles (3D faces: boxes, meshes) and rounds (a
// ball's circle or sphere, kept exact where its transform is a similarity; under an anisotropic scale it
// is tessellated finely instead). Everything is in 3D coordinates, z = 0 in 2D.
//
// Search: a bounding-volume hierarchy over the primitives, built by median splits of their centres
// along the longest spread (four primitives a leaf) and then collapsed to four children a node. Each
// child's box is oriented along its primitives' principal axes (or along x, y, z where that box is
// smaller): a run of segments along a curve, or a patch of a smooth surface, lies in a thin box whose
// distance is nearly the primitives' own, where an axis-aligned box would reach far closer to a point
// beside it. The four boxes sit side by side, one vector lane each, and are measured at once. The walk
// is depth first, nearest box first, pruning a box farther than the best distance so far; inside a
// leaf, a primitive whose plane (a segment's line) is already farther is skipped. A query starts from the
// leaf that held the closest primitive of the caller's previous query (Hint): the fill asks for points
// next to each other, so that bound prunes most of the hierarchy at once.
//
// Value: the least of the primitives' computed distances, except that a point within the slack of the
// part (1e-12 of the largest coordinate of its primitives: far below any spacing, far above rounding)
// is at exactly 0. So a node placed on the part reads 0, and the search stops at the first primitive
// that shows it: the boundary's samples, which all lie on their part, cost a leaf or two each.
//
// Determinism: a box or a primitive's plane is pruned only when it is farther than the best by a
// relative margin (1e-9) plus the slack, both well above the rounding of either computation, so every
// primitive whose distance could be the least is evaluated whatever the hint, and 0 is returned only
// when some primitive is within the slack, which does not depend on which one is found first: the
// value does not depend on the order of the queries (nor on the thread asking).
//
// Thread use: immutable once built; const queries from any number of threads, each with its own Hint.
#include <array>
#include <cstdint>
#include <vector>

#include <Eigen/Core>

namespace nodegen {

namespace distance_detail {

// Four children's boxes side by side (a lane each, so one pass of vector arithmetic measures all
// four): box l holds its primitives in the frame of the rows axes[3r..3r+2][l] (unit vectors).
struct WideNode {
  static constexpr int kLanes = 4;
  alignas(64) double axes[9][kLanes];
  double centre[3][kLanes];
  double half[3][kLanes];
  std::uint32_t child[kLanes];  // leaf lane: its first primitive; inner lane: its wide node; unused: 0
  std::uint32_t count[kLanes];  // leaf lane: its primitives; else 0
  WideNode();  // every lane unused: a box no point is near
};

// The plane through a primitive: |normal . p - offset| is at most its distance from p (a zero normal:
// no bound).
struct Plane {
  Eigen::Vector3d normal = Eigen::Vector3d::Zero();
  double offset = 0.0;
};

}  // namespace distance_detail

class DistanceField {
 public:
  struct Primitive {
    enum class Kind : std::uint8_t { segment, triangle, round };
    Kind kind = Kind::segment;
    Eigen::Vector3d a = Eigen::Vector3d::Zero(), b = Eigen::Vector3d::Zero(), c = Eigen::Vector3d::Zero();
    double radius = 0.0;  // round: |‖p - a‖ - radius|
  };
  // One caller's warm start: the leaf of the hierarchy that held the primitive closest to its last
  // query (primitives [first, first + count) in leaf order; none while count is 0).
  struct Hint {
    std::uint32_t first = 0, count = 0;
  };

  // Throws std::invalid_argument when `primitives` is empty.
  explicit DistanceField(std::vector<Primitive> primitives);

  double distance(double x, double y, double z, Hint& hint) const;
  std::size_t size() const { return primitives_.size(); }

  // The distance from p to one primitive (the search's own measure).
  static double distance_to(const Primitive& primitive, const Eigen::Vector3d& p);

 private:
  std::vector<Primitive> primitives_;             // in leaf order
  std::vector<distance_detail::Plane> planes_;     // planes_[i] holds primitives_[i]
  std::vector<distance_detail::WideNode> wide_;    // wide_[0] is the root
  double slack_ = 0.0;                            // the absolute part of the pruning margin
  bool planar_ = false;                           // every corner at z = 0: boxes measured in the plane
};

}  // namespace nodegen
