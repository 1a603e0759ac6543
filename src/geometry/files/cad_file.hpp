#pragma once
// CAD parts (STEP .step/.stp, IGES .iges/.igs, OCCT's .brep) read by Open CASCADE into a closed
// triangle surface that a mesh leaf fills (mesh_soup.hpp), one part per B-rep face, with a SurfaceLift
// that puts every boundary node on its face's exact surface with the surface's own outward normal.
//
// Reading: the file's solids, mended by ShapeFix where it can (each fix named in the notes), checked by
// BRepCheck; several solids are fused into their union (BRepAlgoAPI_Fuse). A file with no solid, or one
// still invalid after the fix, is refused with the reason.
// Units: lengths come in the file's own unit (a STEP or IGES file names it; OCCT would otherwise convert
// to millimetres); `unit` converts to m, cm, mm or in on request. A .brep file has no unit.
// Tessellation: BRepMesh with a linear deflection of `tolerance` (default 1e-4 of the part's bounding
// box diagonal) and an angular one of 0.2 rad: the inside test runs on these triangles, so a point
// within the tolerance of a curved face may be taken as on either side of it. Boundary nodes do not
// stay on the triangles: each is lifted to the face's surface at the parameters (u, v) interpolated from
// its triangle's corners, and takes the surface's normal there (oriented as the face is in the solid).
// Parts: a face the STEP file names (its ADVANCED_FACE's name, kept through ShapeFix and the union) is
// part of that name, faces of one name one part; any other face is "face<k>", numbered in OCCT's map
// order of the fused solid (TopExp::MapShapes), k from 1. The names '' and 'NONE' name nothing.
#include <string>
#include <vector>

#include "geometry/mesh/mesh_soup.hpp"

namespace nodegen::geometry_detail {

struct CadOptions {
  std::string unit;        // "" (the file's own), "m", "cm", "mm" or "in"
  double tolerance = 0.0;  // the tessellation's linear deflection; 0: 1e-4 of the bounding box diagonal
  // Reads the file in a child process first (child_read.hpp): Open CASCADE dereferences a STEP file's
  // dangling references and loops on a NaN coordinate, where the child's crash or time limit is one
  // error line. The file is then read again here (its shapes must live in this process).
  bool isolated = true;
};

// Whether `unit` is one CadOptions::unit may name (m, cm, mm, in).
bool is_cad_unit(const std::string& unit);
// Whether `file`'s extension names a CAD format nodegen reads.
bool is_cad_file(const std::string& file);

// Throws std::runtime_error naming the file and what is wrong. `notes`: the unit the lengths are in and
// what ShapeFix mended, one line each.
MeshSoup read_cad(const std::string& file, const CadOptions& options, std::vector<std::string>& notes);

}  // namespace nodegen::geometry_detail
