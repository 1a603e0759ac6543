// Closed triangle mesh leaf (3D): CGAL reads the file (STL ascii/binary, OBJ, OFF, PLY) and answers
// inside tests by ray casting on an AABB tree (Side_of_triangle_mesh). To reach >= 1e6 tests/s on
// 1e5-triangle meshes, a voxel grid caches the answer for every cell that no triangle touches; only
// points in cells the surface passes through go to CGAL.
#include <CGAL/AABB_face_graph_triangle_primitive.h>
#include <CGAL/AABB_traits.h>
#include <CGAL/AABB_tree.h>
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/IO/polygon_mesh_io.h>
#include <CGAL/Polygon_mesh_processing/orientation.h>
#include <CGAL/Polygon_mesh_processing/triangulate_faces.h>
#include <CGAL/Side_of_triangle_mesh.h>
#include <CGAL/Surface_mesh.h>
#include <CGAL/boost/graph/helpers.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "boundary_fill.hpp"
#include "shape.hpp"

namespace nodegen::geometry_detail {
namespace {

namespace PMP = CGAL::Polygon_mesh_processing;
using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using Point3 = Kernel::Point_3;
using Mesh = CGAL::Surface_mesh<Point3>;
using Primitive = CGAL::AABB_face_graph_triangle_primitive<Mesh>;
using Tree = CGAL::AABB_tree<CGAL::AABB_traits<Kernel, Primitive>>;
using Side = CGAL::Side_of_triangle_mesh<Mesh, Kernel>;

struct Triangle {
  Vec<3> a, b, c;
};

Vec<3> vec(const Point3& p) { return {p.x(), p.y(), p.z()}; }

// Cells the surface may pass through, and the side of every other cell.
class VoxelCache {
 public:
  enum State : std::uint8_t { unknown = 0, outside = 1, inside = 2, surface = 3 };

  VoxelCache(const std::vector<Triangle>& tris, const Box<3>& box, const Side& side) : box_(box) {
    // Cells about the size of a triangle (a closed surface of T triangles spans ~sqrt(T) of them along
    // its length), 48 to 320 along the longest side, at most 2^24 cells (16 MiB).
    const Vec<3> size = box.size();
    const double along = std::clamp(3.0 * std::sqrt(static_cast<double>(tris.size())), 48.0, 320.0);
    double cell = size.maxCoeff() / along;
    for (;;) {
      for (int i = 0; i < 3; ++i) n_[i] = std::max(1, static_cast<int>(std::ceil(size[i] / cell)));
      if (static_cast<double>(n_[0]) * n_[1] * n_[2] <= double(1 << 24)) break;
      cell *= 1.25;
    }
    for (int i = 0; i < 3; ++i) inv_[i] = n_[i] / std::max(size[i], 1e-300);
    cells_.assign(static_cast<std::size_t>(n_[0]) * n_[1] * n_[2], unknown);
    mark_surface(tris);
    classify_rest(side);
  }

  // The cached side of p's cell (p inside the box), or `surface` when CGAL must decide.
  State at(const Vec<3>& p) const {
    int c[3];
    for (int i = 0; i < 3; ++i) c[i] = std::clamp(static_cast<int>((p[i] - box_.lo[i]) * inv_[i]), 0, n_[i] - 1);
    return static_cast<State>(cells_[index(c[0], c[1], c[2])]);
  }

  double surface_fraction() const {
    return static_cast<double>(std::count(cells_.begin(), cells_.end(), surface)) / static_cast<double>(cells_.size());
  }

 private:
  std::size_t index(int x, int y, int z) const {
    return (static_cast<std::size_t>(z) * n_[1] + y) * n_[0] + x;
  }
  Vec<3> cell_lo(int x, int y, int z) const {
    return box_.lo + Vec<3>(x / inv_[0], y / inv_[1], z / inv_[2]);
  }

  // A cell is marked when it overlaps the triangle's bounding box and the triangle's plane: a superset
  // of the cells the triangle really touches, so unmarked cells are certainly free of the surface.
  void mark_surface(const std::vector<Triangle>& tris) {
    const Vec<3> half(0.5 / inv_[0], 0.5 / inv_[1], 0.5 / inv_[2]);
    const double pad = 1e-9 * box_.size().norm();
    for (const auto& t : tris) {
      const Vec<3> lo = t.a.cwiseMin(t.b).cwiseMin(t.c).array() - pad;
      const Vec<3> hi = t.a.cwiseMax(t.b).cwiseMax(t.c).array() + pad;
      int c0[3], c1[3];
      for (int i = 0; i < 3; ++i) {
        c0[i] = std::clamp(static_cast<int>(std::floor((lo[i] - box_.lo[i]) * inv_[i])), 0, n_[i] - 1);
        c1[i] = std::clamp(static_cast<int>(std::floor((hi[i] - box_.lo[i]) * inv_[i])), 0, n_[i] - 1);
      }
      const Vec<3> normal = (t.b - t.a).cross(t.c - t.a);
      const double reach = normal.cwiseAbs().dot(half) + pad * normal.norm();
      for (int z = c0[2]; z <= c1[2]; ++z)
        for (int y = c0[1]; y <= c1[1]; ++y)
          for (int x = c0[0]; x <= c1[0]; ++x) {
            const Vec<3> centre = cell_lo(x, y, z) + half;
            if (std::abs(normal.dot(centre - t.a)) <= reach) cells_[index(x, y, z)] = surface;
          }
    }
  }

  // Face-adjacent cells that the surface does not touch lie on the same side, so one CGAL query per
  // connected group of free cells classifies all of them.
  void classify_rest(const Side& side) {
    std::vector<std::size_t> stack;
    for (int z = 0; z < n_[2]; ++z)
      for (int y = 0; y < n_[1]; ++y)
        for (int x = 0; x < n_[0]; ++x) {
          if (cells_[index(x, y, z)] != unknown) continue;
          const Vec<3> c = cell_lo(x, y, z) + Vec<3>(0.5 / inv_[0], 0.5 / inv_[1], 0.5 / inv_[2]);
          const State s = side(Point3(c[0], c[1], c[2])) == CGAL::ON_BOUNDED_SIDE ? inside : outside;
          cells_[index(x, y, z)] = s;
          stack.push_back(index(x, y, z));
          while (!stack.empty()) {
            const std::size_t k = stack.back();
            stack.pop_back();
            const int cx = static_cast<int>(k % n_[0]);
            const int cy = static_cast<int>((k / n_[0]) % n_[1]);
            const int cz = static_cast<int>(k / (static_cast<std::size_t>(n_[0]) * n_[1]));
            const int nb[6][3] = {{cx - 1, cy, cz}, {cx + 1, cy, cz}, {cx, cy - 1, cz},
                                  {cx, cy + 1, cz}, {cx, cy, cz - 1}, {cx, cy, cz + 1}};
            for (const auto& q : nb) {
              if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= n_[0] || q[1] >= n_[1] || q[2] >= n_[2]) continue;
              const std::size_t j = index(q[0], q[1], q[2]);
              if (cells_[j] != unknown) continue;
              cells_[j] = s;
              stack.push_back(j);
            }
          }
        }
  }

  Box<3> box_;
  int n_[3] = {1, 1, 1};
  double inv_[3] = {1, 1, 1};
  std::vector<std::uint8_t> cells_;
};

class MeshShape final : public Shape<3> {
 public:
  MeshShape(const std::string& file, std::string label, bool accelerate) : label_(std::move(label)) {
    if (!std::filesystem::exists(file)) throw std::runtime_error("file not found: " + file);
    {
      std::ifstream probe(file, std::ios::binary);
      if (!probe) throw std::runtime_error("cannot open " + file);
    }
    bool read = false;
    try {
      read = CGAL::IO::read_polygon_mesh(file, mesh_);
    } catch (const std::exception& e) {
      throw std::runtime_error("cannot read mesh " + file + ": " + e.what());
    }
    if (!read || mesh_.number_of_faces() == 0)
      throw std::runtime_error("cannot read mesh " + file +
                               " (unsupported format, malformed data, or a non-manifold surface; "
                               "supported: .stl ascii/binary, .obj, .off, .ply)");
    if (!CGAL::is_triangle_mesh(mesh_)) PMP::triangulate_faces(mesh_);
    if (!CGAL::is_closed(mesh_)) {
      std::size_t border = 0;
      for (auto h : mesh_.halfedges())
        if (mesh_.is_border(h)) ++border;
      throw std::runtime_error("mesh " + file + " is not closed (" + std::to_string(border) +
                               " border edges): the inside test needs a watertight surface");
    }
    if (!PMP::is_outward_oriented(mesh_)) PMP::reverse_face_orientations(mesh_);

    box_ = {Vec<3>::Constant(1e300), Vec<3>::Constant(-1e300)};
    for (auto v : mesh_.vertices()) {
      const Vec<3> p = vec(mesh_.point(v));
      box_.lo = box_.lo.cwiseMin(p);
      box_.hi = box_.hi.cwiseMax(p);
    }
    for (auto f : mesh_.faces()) {
      auto h = mesh_.halfedge(f);
      triangles_.push_back({vec(mesh_.point(mesh_.source(h))), vec(mesh_.point(mesh_.target(h))),
                            vec(mesh_.point(mesh_.target(mesh_.next(h))))});
    }
    // Built eagerly: Side_of_triangle_mesh would otherwise build its tree on the first query, and
    // contains() is called from many threads without a lock.
    tree_ = std::make_unique<Tree>(faces(mesh_).first, faces(mesh_).second, mesh_);
    tree_->build();
    side_ = std::make_unique<Side>(*tree_);
    if (accelerate) cache_ = std::make_unique<VoxelCache>(triangles_, box_, *side_);
  }

  bool contains(const Vec<3>& p) const override {
    if (!box_.contains(p)) return false;
    switch (cache_ ? cache_->at(p) : VoxelCache::surface) {
      case VoxelCache::inside: return true;
      case VoxelCache::outside: return false;
      default: return (*side_)(Point3(p[0], p[1], p[2])) != CGAL::ON_UNBOUNDED_SIDE;
    }
  }
  Box<3> bounds() const override { return box_; }
  void register_parts(std::vector<std::string>& names) override {
    id_ = static_cast<int>(names.size()) + 1;
    names.push_back(label_ + ":surface");
  }
  void emit_boundary(const Placement<3>& where, BoundarySink<3>& sink) const override {
    std::vector<WorldTriangle> world;
    world.reserve(triangles_.size());
    for (const auto& t : triangles_) {
      const Vec<3> n = (t.b - t.a).cross(t.c - t.a);
      if (!(n.norm() > 0)) continue;  // degenerate triangles carry no area
      world.push_back({where.point(t.a), where.point(t.b), where.point(t.c), where.normal(n.normalized())});
    }
    sample_triangles(world, id_, sink);
  }

 private:
  std::string label_;
  Mesh mesh_;
  Box<3> box_;
  std::vector<Triangle> triangles_;
  std::unique_ptr<Tree> tree_;
  std::unique_ptr<Side> side_;
  std::unique_ptr<VoxelCache> cache_;
  int id_ = 1;
};

}  // namespace

ShapePtr<3> make_mesh(const std::string& file, std::string label, bool accelerate) {
  return std::make_shared<MeshShape>(file, std::move(label), accelerate);
}

}  // namespace nodegen::geometry_detail
