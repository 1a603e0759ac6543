#pragma once
// A closed surface given as triangles in memory rather than as a mesh file: a CAD part's tessellation
// (cad_file.hpp), which a mesh leaf fills as it fills a file's triangles (mesh_shape.cpp), its parts one
// per face group, and whose nodes a SurfaceLift may move onto the exact surface it approximates.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nodegen/spatial/point.hpp>

namespace nodegen::geometry_detail {

// Where a point of a triangle of the soup lies on the exact surface, and the surface's outward unit
// normal there. Called from several threads at once: implementations are const and keep no state.
class SurfaceLift {
 public:
  virtual ~SurfaceLift() = default;
  // `weights`: the point's barycentric coordinates in triangle `triangle` (its corners in soup order);
  // `pos` and `normal` come in as the triangle's point and normal and leave as the surface's.
  virtual void lift(std::uint32_t triangle, const Vec<3>& weights, Vec<3>& pos, Vec<3>& normal) const = 0;
  // The exact surface's point nearest to `pos` (a point near the triangle's face, whose parameters the
  // weights start from), and its normal; `normal` comes in as the triangle's.
  virtual void project(std::uint32_t triangle, const Vec<3>& weights, Vec<3>& pos, Vec<3>& normal) const = 0;
};

struct MeshSoup {
  std::string name;                                  // what messages call it (its file)
  std::vector<Vec<3>> points;
  std::vector<std::array<std::uint32_t, 3>> triangles;  // corners counterclockwise seen from outside
  std::vector<int> group;                            // per triangle: its index in group_names
  std::vector<std::string> group_names;              // the parts, in order
  std::vector<int> face;                             // per triangle: its face (a CAD part's B-rep face); empty: its group
  std::shared_ptr<const SurfaceLift> lift;           // null: nodes stay on the triangles
};

}  // namespace nodegen::geometry_detail
