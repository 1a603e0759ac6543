// A CAD file's one planar face as a polygon's rings (see cad_face.hpp).
#include "geometry/files/cad_face.hpp"

#include <BRepAdaptor_Curve.hxx>
#include <BRepAdaptor_Surface.hxx>
#include <BRepTools.hxx>
#include <BRepTools_WireExplorer.hxx>
#include <BRep_Tool.hxx>
#include <GCPnts_QuasiUniformDeflection.hxx>
#include <TopExp.hxx>
#include <TopExp_Explorer.hxx>
#include <TopTools_IndexedMapOfShape.hxx>
#include <TopoDS.hxx>
#include <TopoDS_Edge.hxx>
#include <TopoDS_Face.hxx>
#include <TopoDS_Wire.hxx>
#include <gp_Pln.hxx>

#include <algorithm>
#include <cmath>
#include "geometry/files/cad_reading.hpp"
#include "geometry/mesh/planar_mesh.hpp"

namespace nodegen::geometry_detail {
namespace {

// The face's plane as 2D coordinates: x and y on a plane z = constant, else the plane's own axes.
struct PlaneFrame {
  gp_Pnt origin;
  gp_Dir x, y;
  bool level = false;  // z = constant: coordinates x and y
  Vec<2> operator()(const gp_Pnt& p) const {
    if (level) return {p.X(), p.Y()};
    const gp_Vec d(origin, p);
    return {d.Dot(gp_Vec(x)), d.Dot(gp_Vec(y))};
  }
  std::string described() const {
    auto vec = [](const gp_XYZ& p) { return Vec<3>(p.X(), p.Y(), p.Z()); };
    if (level) return level_plane_text(origin.Z());
    return plane_text(vec(origin.XYZ()), vec(x.XYZ().Crossed(y.XYZ())), vec(x.XYZ()), vec(y.XYZ()));
  }
};

PlaneFrame plane_of(const std::string& file, const TopoDS_Face& face) {
  const BRepAdaptor_Surface surface(face);
  if (surface.GetType() != GeomAbs_Plane) refuse(file, "has a face that is not planar: a 2D domain is one planar face");
  const gp_Ax3 axes = surface.Plane().Position();
  PlaneFrame frame{axes.Location(), axes.XDirection(), axes.YDirection()};
  frame.level = std::abs(std::abs(axes.Direction().Z()) - 1.0) < 1e-12;
  return frame;
}

// One wire as a ring: its edges in order, each drawn within `deflection`, named by its B-rep edge.
void add_ring(const std::string& file, const TopoDS_Wire& wire, const TopoDS_Face& face, const TopTools_IndexedMapOfShape& edges,
              const ShapeNames& given, const PlaneFrame& frame, double deflection, double merge, CadFace& out) {
  std::vector<Vec<2>> ring;
  RingEdgeNames names;
  for (BRepTools_WireExplorer walk(wire, face); walk.More(); walk.Next()) {
    const TopoDS_Edge& edge = walk.Current();
    if (BRep_Tool::Degenerated(edge)) continue;
    const BRepAdaptor_Curve curve(edge);
    const GCPnts_QuasiUniformDeflection points(curve, deflection);
    if (!points.IsDone() || points.NbPoints() < 2) refuse(file, "has an edge OCCT could not draw at the tolerance");
    std::vector<Vec<2>> drawn;
    for (int i = 1; i <= points.NbPoints(); ++i) drawn.push_back(frame(points.Value(i)));
    if (walk.Orientation() == TopAbs_REVERSED) std::reverse(drawn.begin(), drawn.end());
    const std::string name = given.of(edge, "edge" + std::to_string(edges.FindIndex(edge)));
    auto found = std::find(names.names.begin(), names.names.end(), name);
    const int index = static_cast<int>(found - names.names.begin());
    if (found == names.names.end()) names.names.push_back(name);
    drawn.pop_back();  // the next edge starts there
    for (const Vec<2>& p : drawn) {
      if (!ring.empty() && (p - ring.back()).norm() <= merge) continue;
      ring.push_back(p);
      names.edge_name.push_back(index);
    }
  }
  if (ring.size() > 1 && (ring.front() - ring.back()).norm() <= merge) {
    ring.pop_back();
    names.edge_name.pop_back();
  }
  if (ring.size() < 3) refuse(file, "has a wire of fewer than three points at the tolerance");
  out.rings.push_back(std::move(ring));
  out.edge_names.push_back(std::move(names));
}

}  // namespace

CadFace read_cad_face(const std::string& file, const CadOptions& options, std::vector<std::string>& notes) {
  CadFace out;
  in_cad_library(file, options, [&] {
    FaceNames names;
    const TopoDS_Shape shape = read_cad_shape(file, options, notes, names);
    TopTools_IndexedMapOfShape faces;
    TopExp::MapShapes(shape, TopAbs_FACE, faces);
    if (faces.Extent() != 1)
      refuse(file, "holds " + std::to_string(faces.Extent()) + " faces: a 2D domain is one planar face (a sketch's region)");
    const TopoDS_Face face = TopoDS::Face(faces(1));
    const PlaneFrame frame = plane_of(file, face);
    const double deflection = deflection_for(file, face, options);
    const double merge = 1e-3 * deflection;  // points of a wire closer than this are one
    TopTools_IndexedMapOfShape edges;
    TopExp::MapShapes(face, TopAbs_EDGE, edges);
    const TopoDS_Wire outer = BRepTools::OuterWire(face);
    if (outer.IsNull()) refuse(file, "has a face without an outer wire");
    const ShapeNames named(names);
    add_ring(file, outer, face, edges, named, frame, deflection, merge, out);
    for (TopExp_Explorer w(face, TopAbs_WIRE); w.More(); w.Next())
      if (!w.Current().IsSame(outer)) add_ring(file, TopoDS::Wire(w.Current()), face, edges, named, frame, deflection, merge, out);
    out.plane = frame.described();
  });
  return out;
}

}  // namespace nodegen::geometry_detail
