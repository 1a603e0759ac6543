#pragma once
// What the CAD readers share (cad_file.cpp for solids, cad_face.cpp for a 2D face): OCCT's readers under
// one lock, with its messages kept off stdout and its process-wide unit put back afterwards.
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <TopTools_DataMapOfShapeInteger.hxx>
#include <TopoDS_Shape.hxx>

#include "geometry/files/cad_file.hpp"

namespace nodegen::geometry_detail {

[[noreturn]] inline void refuse(const std::string& file, const std::string& why) {
  throw std::runtime_error("CAD file " + file + " " + why);
}

// The names a file gives its faces and edges (a STEP ADVANCED_FACE's or EDGE_CURVE's name), by shape as read.
using FaceNames = std::vector<std::pair<TopoDS_Shape, std::string>>;

// The name a file gives a shape (the first, where it gives several), found as IsSame finds shapes.
class ShapeNames {
 public:
  explicit ShapeNames(const FaceNames& names);
  // Its name, or `otherwise` when it has none.
  std::string of(const TopoDS_Shape& shape, const std::string& otherwise) const;

 private:
  const FaceNames& names_;
  TopTools_DataMapOfShapeInteger index_;  // shape -> its first entry in names_
};

// Checks the file (a CAD format, within the size limit) and `options.unit`, then runs `body` holding
// the lock every use of OCCT's readers takes; an OCCT exception in it is a refusal naming the file.
void in_cad_library(const std::string& file, const CadOptions& options, const std::function<void()>& body);

// How far the shape's drawn edges or triangles may stray from it: `options.tolerance`, or 1e-4 of the
// shape's bounding-box diagonal; refused outside 1e-7 to 0.01 of the diagonal.
double deflection_for(const std::string& file, const TopoDS_Shape& shape, const CadOptions& options);

// The file's shape in the unit asked for (notes: the unit) and its faces' names; inside in_cad_library.
TopoDS_Shape read_cad_shape(const std::string& file, const CadOptions& options, std::vector<std::string>& notes,
                            FaceNames& names);

}  // namespace nodegen::geometry_detail
