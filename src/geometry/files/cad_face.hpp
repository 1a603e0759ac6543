#pragma once
// A 2D domain from a CAD file (a "cad" shape in a "dim": 2 file): its one planar face, a sketch's
// region or a plate's profile, read by Open CASCADE as a 3D part is (cad_reading.hpp, the same units).
//
// The face's wires are the rings of a polygon: the outer wire first, the others holes. Each B-rep edge
// is drawn as a polyline within `tolerance` of its exact curve (GCPnts_QuasiUniformDeflection; default
// 1e-4 of the face's bounding-box diagonal), so the boundary nodes lie within the tolerance of the exact
// edges and their normals turn smoothly along a curved one (the polygon's walk, polygon_shape.cpp). Each
// edge is its own part: the name a STEP file gives it (its EDGE_CURVE's), else "edge<k>", k its number
// in OCCT's map order of the face's edges, from 1; edges of one name are one part.
// Coordinates: x and y when the face lies in a plane z = constant, else the coordinates along the
// plane's own two unit directions, which `plane` states for the run's notes.
#include <string>
#include <vector>

#include <nodegen/spatial/point.hpp>

#include "geometry/files/cad_file.hpp"
#include "geometry/shapes/shape.hpp"

namespace nodegen::geometry_detail {

struct CadFace {
  std::vector<std::vector<Vec<2>>> rings;  // rings[0] the outline
  std::vector<RingEdgeNames> edge_names;   // per ring: each polyline edge's B-rep edge
  std::string plane;                       // "the plane z = 0, coordinates x and y", ...
};

// Throws std::runtime_error naming the file and the reason: no face or several, a face that is not
// planar, a tolerance outside 1e-7 to 0.01 of the face's size.
CadFace read_cad_face(const std::string& file, const CadOptions& options, std::vector<std::string>& notes);

}  // namespace nodegen::geometry_detail
