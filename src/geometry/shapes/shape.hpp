#pragma once
// The internal shape tree behind Domain<D>: leaves (box, ball, polygon, triangle mesh), CSG nodes and
// transforms. Virtual calls are fine here: contains() costs one call per tree node, and the expensive
// leaf (the mesh) answers most queries from a voxel cache.
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include <nodegen/geometry/box.hpp>
#include <nodegen/spatial/point.hpp>

#include "geometry/boundary/boundary_sink.hpp"
#include "geometry/shapes/part_geometry.hpp"

namespace nodegen::geometry_detail {

// The inverse of a transform's matrix. Eigen inverts a small matrix by its cofactors over the
// determinant, which overflows for a scale of 1e155 in 2D (its square) and left the inverse 0: every
// point mapped to the origin, and a scale of 1e200 of a scale of 1e-200 was an empty shape. Where the
// determinant is not a finite normal number, an LU factorisation inverts it instead. (The cofactors
// give the determinant and the inverse in one pass, as inverse() computes them.)
template <class Mat>
Mat inverse_of(const Mat& A) {
  Mat inverse;
  double det = 0;
  bool nonzero = false;
  A.computeInverseAndDetWithCheck(inverse, det, nonzero, 0.0);
  if (nonzero && std::isfinite(det) && std::abs(det) >= std::numeric_limits<double>::min()) return inverse;
  return A.partialPivLu().inverse();
}

// x_world = A x_local + b. Normals map with the inverse transpose of A.
template <int D>
struct Affine {
  using Mat = Eigen::Matrix<double, D, D>;
  Mat A = Mat::Identity();
  Vec<D> b = Vec<D>::Zero();

  Vec<D> point(const Vec<D>& x) const { return A * x + b; }
  Vec<D> normal(const Vec<D>& n) const { return (inverse_of(A).transpose() * n).normalized(); }
  Affine then(const Affine& outer) const { return {outer.A * A, outer.A * b + outer.b}; }
};

// The box around the image of box b under t: the box of its mapped corners.
template <int D>
Box<D> image_of_box(const Box<D>& b, const Affine<D>& t) {
  Box<D> out{Vec<D>::Constant(std::numeric_limits<double>::infinity()), Vec<D>::Constant(-std::numeric_limits<double>::infinity())};
  for (int corner = 0; corner < (1 << D); ++corner) {
    Vec<D> c;
    for (int i = 0; i < D; ++i) c[i] = (corner >> i) & 1 ? b.hi[i] : b.lo[i];
    const Vec<D> w = t.point(c);
    out.lo = out.lo.cwiseMin(w);
    out.hi = out.hi.cwiseMax(w);
  }
  return out;
}

// Where a leaf sits in the world: its transform and whether its outward side is flipped (a subtracted
// child of a difference contributes its boundary with normals reversed).
template <int D>
struct Placement {
  Affine<D> to_world;
  bool flip = false;

  Vec<D> point(const Vec<D>& x) const { return to_world.point(x); }
  Vec<D> normal(const Vec<D>& n) const { return flip ? Vec<D>(-to_world.normal(n)) : to_world.normal(n); }
};

// The boundary parts of one shape as it registers them: the id of "LABEL:NAME", registered (appended
// to the domain's names) the first time a name is asked for.
class ShapeParts {
 public:
  ShapeParts(std::vector<std::string>& names, std::string label) : names_(names), label_(std::move(label)) {}
  int id(const std::string& name) {
    const auto [it, fresh] = ids_.emplace(name, static_cast<int>(names_.size()) + 1);
    if (fresh) names_.push_back(label_ + ":" + name);
    return it->second;
  }

 private:
  std::vector<std::string>& names_;
  std::string label_;
  std::map<std::string, int> ids_;
};

template <int D>
class Shape {
 public:
  virtual ~Shape() = default;
  // Local coordinates of this shape (the parent applies any transform before calling).
  virtual bool contains(const Vec<D>& p) const = 0;
  virtual Box<D> bounds() const = 0;
  // A box around this shape's image under `to_world` (world = to_world(local)). The default maps the
  // corners of bounds(); a ball bounds its ellipse closer, and transforms pass their map down, so a
  // chain of transforms bounds the leaf itself: boxes of rotated boxes grew at each level (250 nested
  // 7-degree turns of a 1 x 0.01 box gave a box 1e11 times too large, whose grid saw no inside point).
  virtual Box<D> bounds_under(const Affine<D>& to_world) const { return image_of_box(bounds(), to_world); }
  // Appends boxes, in world coordinates under `to_world`, whose union holds the shape: one per leaf (a
  // difference or an intersection lies within its first child).
  virtual void leaf_boxes(const Affine<D>& to_world, std::vector<Box<D>>& out) const {
    out.push_back(bounds_under(to_world));
  }
  // Leaves (boxes, balls, polygons, meshes) in this subtree: an inside test evaluates at most this many.
  virtual std::size_t leaf_count() const { return 1; }
  // Appends this subtree's boundary part names; leaves remember the id of their first part.
  virtual void register_parts(std::vector<std::string>& names) = 0;
  // Emits this subtree's boundary nodes in world coordinates through the sink.
  virtual void emit_boundary(const Placement<D>& where, BoundarySink<D>& sink) const = 0;
  // Appends the geometry of this subtree's boundary parts under `to_world` (part_geometry.hpp), each
  // primitive with its part's id: the whole surface a part's shape defines, whether or not the CSG
  // above keeps all of it on the combined boundary.
  virtual void part_geometry(const Affine<D>& to_world, std::vector<PartPrimitive>& out) const = 0;
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
// A polygon ring's edges named apart (a domain file's "edge_names"): the names in the order they first
// appear in the file, and for each edge of the ring (from its vertex i to vertex i + 1) the index of its
// name, or -1 for the ring's own part ("outer", "holeK"). No edge_name at all: every edge is the ring's.
struct RingEdgeNames {
  std::vector<std::string> names;
  std::vector<int> edge_name;
};
// rings[0] is the outline; `edge_names`: none, or one per ring.
ShapePtr<2> make_polygon(std::vector<std::vector<Vec<2>>> rings, std::string label,
                         std::vector<RingEdgeNames> edge_names = {});
struct CadOptions;  // geometry/files/cad_file.hpp
struct MeshOptions {
  bool accelerate = true;  // false skips the voxel cache (every inside test goes to CGAL): for checks
  bool repair = true;      // false: refuse a mesh that is not closed or does not bound a volume
  double max_hole = std::numeric_limits<double>::infinity();  // longest hole border the repair closes
  // Degrees: an edge whose faces' normals differ by more is sharp (mesh_features.hpp); 180: none is.
  double feature_angle = 30.0;
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
  // The voxel caches of one domain's meshes share kAllCells: each mesh may take half of what is left
  // (the first ones their full 2^23 cells), never less than kFewestCells. 150 distinct meshes at a
  // full 32 MiB each took gigabytes.
  static constexpr std::size_t kAllCells = std::size_t{1} << 26, kFewestCells = std::size_t{1} << 18;
  struct Loaded;
  std::map<std::string, std::unique_ptr<Loaded>> loaded_;
  std::size_t cells_ = 0;  // voxel cells of the meshes loaded so far
  // make_mesh's and make_cad's loading (mesh_shape.cpp).
  template <class Load>
  friend ShapePtr<3> shared_surface_leaf(MeshCache&, const std::string&, std::string, std::vector<std::string>&, Load);
};
// Throws std::runtime_error saying what is wrong. `notes`: what the repair changed, one line each.
ShapePtr<3> make_mesh(const std::string& file, std::string label, const MeshOptions& options,
                      std::vector<std::string>& notes, MeshCache& cache);
// A CAD part (cad_file.hpp) as a mesh leaf: one part per face, nodes on the exact surface. Throws
// std::runtime_error saying what is wrong; `notes`: its unit and what ShapeFix mended.
ShapePtr<3> make_cad(const std::string& file, std::string label, const CadOptions& options,
                     std::vector<std::string>& notes, MeshCache& cache);

enum class CsgOp { union_, intersection, difference };
template <int D>
ShapePtr<D> make_csg(CsgOp op, std::vector<ShapePtr<D>> children);
template <int D>
ShapePtr<D> make_transform(const Affine<D>& to_parent, ShapePtr<D> child);

}  // namespace nodegen::geometry_detail
