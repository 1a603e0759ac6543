#pragma once
// The internal shape tree behind Domain<D>: leaves (box, ball, polygon, triangle mesh), CSG nodes and
// transforms. Virtual calls are fine here: contains() costs one call per tree node, and the expensive
// leaf (the mesh) answers most queries from a voxel cache.
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include <nodegen/geometry/box.hpp>
#include <nodegen/spatial/point.hpp>

#include "boundary_sink.hpp"

namespace nodegen::geometry_detail {

// x_world = A x_local + b. Normals map with the inverse transpose of A.
template <int D>
struct Affine {
  using Mat = Eigen::Matrix<double, D, D>;
  Mat A = Mat::Identity();
  Vec<D> b = Vec<D>::Zero();

  Vec<D> point(const Vec<D>& x) const { return A * x + b; }
  Vec<D> normal(const Vec<D>& n) const { return (A.inverse().transpose() * n).normalized(); }
  Affine then(const Affine& outer) const { return {outer.A * A, outer.A * b + outer.b}; }
};

// Where a leaf sits in the world: its transform and whether its outward side is flipped (a subtracted
// child of a difference contributes its boundary with normals reversed).
template <int D>
struct Placement {
  Affine<D> to_world;
  bool flip = false;

  Vec<D> point(const Vec<D>& x) const { return to_world.point(x); }
  Vec<D> normal(const Vec<D>& n) const { return flip ? Vec<D>(-to_world.normal(n)) : to_world.normal(n); }
};

template <int D>
class Shape {
 public:
  virtual ~Shape() = default;
  // Local coordinates of this shape (the parent applies any transform before calling).
  virtual bool contains(const Vec<D>& p) const = 0;
  virtual Box<D> bounds() const = 0;
  // Appends this subtree's boundary part names; leaves remember the id of their first part.
  virtual void register_parts(std::vector<std::string>& names) = 0;
  // Emits this subtree's boundary nodes in world coordinates through the sink.
  virtual void emit_boundary(const Placement<D>& where, BoundarySink<D>& sink) const = 0;
  // True for CSG nodes: then the domain must filter boundary nodes against the combined shape.
  virtual bool is_csg() const { return false; }
};

template <int D>
using ShapePtr = std::shared_ptr<Shape<D>>;

// Builders used by the domain file loader. `label` names the shape in boundary names (the user's
// "name" field or the JSON path).
template <int D>
ShapePtr<D> make_box(const Vec<D>& lo, const Vec<D>& hi, std::string label);
template <int D>
ShapePtr<D> make_ball(const Vec<D>& center, double radius, std::string label);
ShapePtr<2> make_polygon(std::vector<std::vector<Vec<2>>> rings, std::string label);  // rings[0] outer
struct MeshOptions {
  bool accelerate = true;  // false skips the voxel cache (every inside test goes to CGAL): for checks
  bool repair = true;      // false: refuse a mesh that is not closed or does not bound a volume
  double max_hole = std::numeric_limits<double>::infinity();  // longest hole border the repair closes
};
// The meshes one domain file has loaded, by file and options: leaves that name the same mesh (copies
// of a part under transforms) share one loaded surface, read, repaired and indexed once (its inside
// test's voxel cache alone is up to 32 MiB). Distinct meshes share one budget of voxel cells.
class MeshCache {
 public:
  MeshCache();
  ~MeshCache();
  MeshCache(const MeshCache&) = delete;
  MeshCache& operator=(const MeshCache&) = delete;

 private:
  struct Loaded;
  std::map<std::string, std::unique_ptr<Loaded>> loaded_;
  std::size_t cells_ = 0;  // voxel cells of the meshes loaded so far
  friend ShapePtr<3> make_mesh(const std::string&, std::string, const MeshOptions&, std::vector<std::string>&,
                               MeshCache&);
};
// Throws std::runtime_error saying what is wrong. `notes`: what the repair changed, one line each.
ShapePtr<3> make_mesh(const std::string& file, std::string label, const MeshOptions& options,
                      std::vector<std::string>& notes, MeshCache& cache);

enum class CsgOp { union_, intersection, difference };
template <int D>
ShapePtr<D> make_csg(CsgOp op, std::vector<ShapePtr<D>> children);
template <int D>
ShapePtr<D> make_transform(const Affine<D>& to_parent, ShapePtr<D> child);

}  // namespace nodegen::geometry_detail
