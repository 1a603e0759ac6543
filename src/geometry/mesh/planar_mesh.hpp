#pragma once
// A triangle mesh that lies in one plane as a 2D domain: the region its faces cover, bounded by the
// loops of its border edges (each edge of one face only), which become a polygon's rings (the largest
// first, its outline; the others holes, or islands inside holes, or separate pieces, by the even-odd
// rule of polygon_shape.cpp).
//
// Plane: z constant (then the 2D coordinates are x and y), else the plane of the faces' summed area
// vector (Newell's, faces wound either way) through the first vertex, in coordinates along two unit
// directions in it (stated in the note). Every vertex must lie within 1e-6 of the mesh's extent (plus
// the rounding of float coordinates, 1e-7 of their magnitude) of that plane.
// Refused, naming the file and where: a mesh that is not planar, has no area, an edge of more than two
// faces, or border loops that touch at a vertex (one border vertex on two loops).
#include <string>
#include <vector>

#include <nodegen/spatial/point.hpp>

namespace nodegen::geometry_detail {

struct PlanarMesh {
  std::vector<std::vector<Vec<2>>> rings;  // the largest by area first
  std::string plane;                       // which plane and coordinates, for the summary's note
};

// What a 2D domain's coordinates are, as the run's note states them (a planar mesh's, a CAD face's):
// "the plane z = Z, coordinates x and y", or a plane's origin and normal and the two unit directions
// its coordinates run along.
std::string level_plane_text(double z);
std::string plane_text(const Vec<3>& origin, const Vec<3>& normal, const Vec<3>& u, const Vec<3>& v);

// Throws std::runtime_error saying what is wrong with `file` (a mesh file check_mesh_file passed).
PlanarMesh read_planar_mesh(const std::string& file);

}  // namespace nodegen::geometry_detail
