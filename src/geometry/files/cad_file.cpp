// CAD parts through Open CASCADE (cad_file.hpp): read, mend, fuse, tessellate, lift.
#include "geometry/files/cad_file.hpp"
#include "geometry/files/cad_reading.hpp"

#include <BRepAlgoAPI_Fuse.hxx>
#include <BRepBndLib.hxx>
#include <BRepBuilderAPI_MakeSolid.hxx>
#include <BRepBuilderAPI_Sewing.hxx>
#include <BRepCheck_Analyzer.hxx>
#include <BRepMesh_IncrementalMesh.hxx>
#include <BRepTools.hxx>
#include <BRep_Builder.hxx>
#include <BRep_Tool.hxx>
#include <Bnd_Box.hxx>
#include <Geom_Surface.hxx>
#include <IGESControl_Controller.hxx>
#include <IGESControl_Reader.hxx>
#include <IGESData_GlobalSection.hxx>
#include <IGESData_IGESEntity.hxx>
#include <IGESData_IGESModel.hxx>
#include <Interface_Static.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Message_PrinterOStream.hxx>
#include <Poly_Triangulation.hxx>
#include <Precision.hxx>
#include <STEPControl_Controller.hxx>
#include <STEPControl_Reader.hxx>
#include <StepData_StepModel.hxx>
#include <StepGeom_CartesianPoint.hxx>
#include <StepGeom_Direction.hxx>
#include <StepRepr_RepresentationItem.hxx>
#include <TCollection_HAsciiString.hxx>
#include <NCollection_DataMap.hxx>
#include <TopTools_ShapeMapHasher.hxx>
#include <TransferBRep.hxx>
#include <Transfer_TransientProcess.hxx>
#include <XSControl_TransferReader.hxx>
#include <XSControl_WorkSession.hxx>
#include <ShapeBuild_ReShape.hxx>
#include <ShapeExtend_Status.hxx>
#include <ShapeFix_Shape.hxx>
#include <Standard_Failure.hxx>
#include <TColStd_SequenceOfAsciiString.hxx>
#include <TopExp.hxx>
#include <TopExp_Explorer.hxx>
#include <TopTools_IndexedMapOfShape.hxx>
#include <TopTools_ListOfShape.hxx>
#include <TopoDS.hxx>
#include <TopoDS_Compound.hxx>
#include <TopoDS_Face.hxx>
#include <TopoDS_Shell.hxx>
#include <TopoDS_Solid.hxx>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>

#include "geometry/files/mesh_face_groups.hpp"
#include "geometry/files/mesh_text.hpp"
#include "geometry/files/quiet_library_output.hpp"
#include "nodegen/geometry/child_read.hpp"
#include "nodegen/geometry/input_file.hpp"
#include "nodegen/geometry/json_fields.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen::geometry_detail {
namespace {

using mesh_check::lower;


// A length unit as OCCT's "xstep.cascade.unit" names it, and as a domain file and the notes name it.
struct Unit {
  const char* occt;
  const char* name;
};
constexpr Unit kUnits[] = {{"M", "m"}, {"CM", "cm"}, {"MM", "mm"}, {"INCH", "in"}, {"FT", "ft"}, {"UM", "um"}, {"KM", "km"}};

const Unit* unit_named(const std::string& name) {
  for (const Unit& u : kUnits)
    if (name == u.name) return &u;
  return nullptr;
}

// The unit a STEP file's LENGTH_UNIT names (OCCT spells it "millimetre", "inch", ...).
const Unit* step_unit(const std::string& spelled) {
  const std::string s = lower(spelled);
  if (s.find("milli") != std::string::npos) return unit_named("mm");
  if (s.find("centi") != std::string::npos) return unit_named("cm");
  if (s.find("micro") != std::string::npos) return unit_named("um");
  if (s.find("kilo") != std::string::npos) return unit_named("km");
  if (s.find("inch") != std::string::npos) return unit_named("in");
  if (s.find("foot") != std::string::npos || s.find("feet") != std::string::npos) return unit_named("ft");
  if (s.find("metre") != std::string::npos || s.find("meter") != std::string::npos) return unit_named("m");
  return nullptr;
}

// The unit of an IGES file's global section (its unit flag, IGES 5.3 table 3).
const Unit* iges_unit(int flag) {
  switch (flag) {
    case 1: return unit_named("in");
    case 2: return unit_named("mm");
    case 4: return unit_named("ft");
    case 6: return unit_named("m");
    case 7: return unit_named("km");
    case 9: return unit_named("um");
    case 10: return unit_named("cm");
    default: return nullptr;
  }
}

// An IGES unit by name (unit flag 3: the global section names it).
const Unit* iges_unit_named(const std::string& spelled) {
  const std::string s = lower(spelled);
  for (const auto& [name, unit] : {std::pair{"mm", "mm"}, {"cm", "cm"}, {"m", "m"}, {"in", "in"}, {"inch", "in"}, {"ft", "ft"},
                                    {"um", "um"}, {"km", "km"}})
    if (s == name) return unit_named(unit);
  return nullptr;
}

// The unit the shape is read in: the one asked for, else the file's; notes name it.
const Unit* chosen_unit(const Unit* in_file, const CadOptions& options, std::vector<std::string>& notes) {
  if (!options.unit.empty()) {
    notes.push_back("lengths in " + options.unit + ", converted from the file's " + (in_file ? in_file->name : "unit"));
    return unit_named(options.unit);
  }
  if (!in_file) {
    notes.push_back("the file names no length unit OCCT knows: lengths in mm");
    return unit_named("mm");
  }
  notes.push_back(std::string("lengths in ") + in_file->name + ", the file's own unit");
  return in_file;
}

// The names the file gives the shape's faces and edges (a 2D domain's parts are its face's edges):
// name_of(entity) is the name of the file's entity that a face or edge was made from, "" for none.
// Exporters that name nothing write '' or 'NONE'. The entity of each face and edge comes from one pass
// over the transfer's results, the first whose result is that face or edge (as the reader's
// EntityFromShapeResult finds it, but that scans every result for each shape asked: hours for a file of
// tens of thousands of faces).
template <class NameOf>
void collect_names(const TopoDS_Shape& shape, const Handle(XSControl_TransferReader) & transfer, NameOf&& name_of,
                   FaceNames& names) {
  const Handle(Transfer_TransientProcess)& process = transfer->TransientProcess();
  NCollection_DataMap<TopoDS_Shape, std::string, TopTools_ShapeMapHasher> named;
  for (int j = 1; !process.IsNull() && j <= process->NbMapped(); ++j) {
    const TopoDS_Shape result = TransferBRep::ShapeResult(process, process->Mapped(j));
    if (result.IsNull() || (result.ShapeType() != TopAbs_FACE && result.ShapeType() != TopAbs_EDGE)) continue;
    if (!named.IsBound(result)) named.Bind(result, name_of(process->Mapped(j)));
  }
  for (const TopAbs_ShapeEnum kind : {TopAbs_FACE, TopAbs_EDGE}) {
    TopTools_IndexedMapOfShape items;
    TopExp::MapShapes(shape, kind, items);
    for (int k = 1; k <= items.Extent(); ++k) {
      const std::string* name = named.Seek(items(k));
      if (name && !name->empty() && lower(*name) != "none") names.emplace_back(items(k), *name);
    }
  }
}

// A point or direction whose coordinate is not a number: OCCT's transfer loops on it without end.
void refuse_non_finite(const std::string& file, const Handle(StepData_StepModel) & model) {
  for (int i = 1; !model.IsNull() && i <= model->NbEntities(); ++i) {
    const Handle(Standard_Transient)& entity = model->Value(i);
    bool finite = true;
    if (const auto point = Handle(StepGeom_CartesianPoint)::DownCast(entity); !point.IsNull())
      for (int k = 1; k <= point->NbCoordinates(); ++k) finite = finite && std::isfinite(point->CoordinatesValue(k));
    else if (const auto direction = Handle(StepGeom_Direction)::DownCast(entity); !direction.IsNull())
      for (int k = 1; k <= direction->NbDirectionRatios(); ++k) finite = finite && std::isfinite(direction->DirectionRatiosValue(k));
    if (!finite)
      refuse(file, "entity #" + std::to_string(model->IdentLabel(entity)) + " (" + entity->DynamicType()->Name() +
                       ") has a coordinate that is not a finite number");
  }
}

TopoDS_Shape read_step(const std::string& file, const CadOptions& options, std::vector<std::string>& notes,
                       FaceNames& names) {
  STEPControl_Reader reader;  // its controller initialised by read_cad
  if (reader.ReadFile(file.c_str()) != IFSelect_RetDone) refuse(file, "is not a STEP file OCCT can read");
  refuse_non_finite(file, reader.StepModel());
  TColStd_SequenceOfAsciiString lengths, angles, solid_angles;
  reader.FileUnits(lengths, angles, solid_angles);
  const Unit* in_file = lengths.IsEmpty() ? nullptr : step_unit(lengths.First().ToCString());
  Interface_Static::SetCVal("xstep.cascade.unit", chosen_unit(in_file, options, notes)->occt);
  if (reader.TransferRoots() == 0) refuse(file, "holds no shape OCCT can transfer");
  const TopoDS_Shape shape = reader.OneShape();
  collect_names(shape, reader.WS()->TransferReader(), [](const Handle(Standard_Transient) & entity) {
    const auto item = Handle(StepRepr_RepresentationItem)::DownCast(entity);
    return item.IsNull() || item->Name().IsNull() ? std::string() : std::string(item->Name()->ToCString());
  }, names);
  return shape;
}

// An IGES entity's name: its Name property, else its short label (8 characters, padded with blanks).
std::string iges_name(const Handle(Standard_Transient) & entity) {
  const auto item = Handle(IGESData_IGESEntity)::DownCast(entity);
  if (item.IsNull() || !item->HasName() || item->NameValue().IsNull()) return {};
  std::string name = item->NameValue()->ToCString();
  const auto first = name.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  return name.substr(first, name.find_last_not_of(' ') - first + 1);
}

TopoDS_Shape read_iges(const std::string& file, const CadOptions& options, std::vector<std::string>& notes,
                       FaceNames& names) {
  IGESControl_Controller::Init();
  IGESControl_Reader reader;
  if (reader.ReadFile(file.c_str()) != IFSelect_RetDone) refuse(file, "is not an IGES file OCCT can read");
  const IGESData_GlobalSection& global = reader.IGESModel()->GlobalSection();
  const Unit* in_file = iges_unit(global.UnitFlag());
  if (!in_file && !global.UnitName().IsNull()) in_file = iges_unit_named(global.UnitName()->ToCString());
  Interface_Static::SetCVal("xstep.cascade.unit", chosen_unit(in_file, options, notes)->occt);
  if (reader.TransferRoots() == 0) refuse(file, "holds no shape OCCT can transfer");
  const TopoDS_Shape shape = reader.OneShape();
  collect_names(shape, reader.WS()->TransferReader(), iges_name, names);
  return shape;
}

TopoDS_Shape read_brep(const std::string& file, const CadOptions& options, std::vector<std::string>& notes) {
  if (!options.unit.empty()) refuse(file, "is a .brep file, which has no length unit to convert from: leave \"unit\" out");
  TopoDS_Shape shape;
  BRep_Builder builder;
  if (!BRepTools::Read(shape, file.c_str(), builder) || shape.IsNull()) refuse(file, "is not a BRep file OCCT can read");
  notes.push_back("lengths as the .brep file gives them (it names no unit)");
  return shape;
}

// Puts OCCT's process-wide unit back as it was when this was made: the unit a read sets must not
// change what the program's own OCCT code reads or writes next.
class UnitRestored {
 public:
  UnitRestored() : saved_(Interface_Static::CVal("xstep.cascade.unit") ? Interface_Static::CVal("xstep.cascade.unit") : "MM") {}
  ~UnitRestored() { Interface_Static::SetCVal("xstep.cascade.unit", saved_.c_str()); }
  UnitRestored(const UnitRestored&) = delete;
  UnitRestored& operator=(const UnitRestored&) = delete;

 private:
  std::string saved_;
};

// The closed shells of the shape as solids.
std::vector<TopoDS_Shape> closed_shells(const TopoDS_Shape& shape) {
  std::vector<TopoDS_Shape> solids;
  for (TopExp_Explorer e(shape, TopAbs_SHELL); e.More(); e.Next()) {
    if (!BRep_Tool::IsClosed(e.Current())) continue;
    BRepBuilderAPI_MakeSolid make(TopoDS::Shell(e.Current()));
    if (make.IsDone()) solids.push_back(make.Solid());
  }
  return solids;
}

// Faces with no shell around them (IGES files of trimmed surfaces, as most IGES exporters write) sewn
// into shells where their edges meet within 1e-5 of the part's size (its box diagonal); the file's names
// move to the sewn faces and edges.
TopoDS_Shape sewn(const TopoDS_Shape& shape, FaceNames& names) {
  Bnd_Box box;
  BRepBndLib::Add(shape, box);
  BRepBuilderAPI_Sewing sewing(box.IsVoid() ? 1e-6 : 1e-5 * std::sqrt(box.SquareExtent()));
  sewing.Add(shape);
  sewing.Perform();
  for (auto& [item, name] : names)
    if (sewing.IsModifiedSubShape(item)) item = sewing.ModifiedSubShape(item);
  return sewing.SewedShape();
}

// The solids of the shape, mended by ShapeFix, closed shells made solids; several fused into one.
// `names`: the file's face names, moved onto the faces that ShapeFix and the union make of them.
TopoDS_Shape solid_of(const std::string& file, TopoDS_Shape shape, std::vector<std::string>& notes, FaceNames& names) {
  if (!BRepCheck_Analyzer(shape).IsValid()) {  // a valid shape is taken as it is
    ShapeFix_Shape fix(shape);
    fix.Perform();
    if (fix.Status(ShapeExtend_DONE)) notes.push_back("ShapeFix mended the shape (tolerances, wires or orientation)");
    shape = fix.Shape();
    for (auto& [face, name] : names) face = fix.Context()->Apply(face);
  }
  std::vector<TopoDS_Shape> solids;
  for (TopExp_Explorer e(shape, TopAbs_SOLID); e.More(); e.Next()) solids.push_back(e.Current());
  if (solids.empty()) {
    solids = closed_shells(shape);
    if (!solids.empty()) notes.push_back("closed shells without a solid taken as solids");
  }
  if (solids.empty() && TopExp_Explorer(shape, TopAbs_FACE).More()) {
    shape = sewn(shape, names);
    solids = closed_shells(shape);
    if (!solids.empty()) notes.push_back("loose faces sewn into closed shells (gaps up to 1e-5 of the part's size)");
  }
  if (solids.empty()) refuse(file, "holds no solid (nor faces that close a volume): nodegen fills volumes");
  TopoDS_Shape solid = solids.front();
  for (std::size_t i = 1; i < solids.size(); ++i) {
    BRepAlgoAPI_Fuse fuse(solid, solids[i]);
    if (!fuse.IsDone() || fuse.HasErrors()) refuse(file, "holds solids whose union OCCT cannot compute");
    solid = fuse.Shape();
    FaceNames moved;
    for (const auto& [face, name] : names) {
      if (fuse.IsDeleted(face)) continue;
      const TopTools_ListOfShape& pieces = fuse.Modified(face);
      if (pieces.IsEmpty()) moved.emplace_back(face, name);
      for (const TopoDS_Shape& piece : pieces) moved.emplace_back(piece, name);
    }
    names = std::move(moved);
  }
  if (solids.size() > 1) notes.push_back(std::to_string(solids.size()) + " solids fused into their union");
  if (!BRepCheck_Analyzer(solid).IsValid()) refuse(file, "holds a solid that is not valid even after ShapeFix");
  return solid;
}

// The exact surfaces of the faces, and of each triangle its face and its corners' (u, v).
class CadLift final : public SurfaceLift {
 public:
  struct Face {
    Handle(Geom_Surface) surface;
    gp_Trsf place;  // the surface's location
    bool reversed;
  };
  struct Corners {
    std::uint32_t face;
    std::array<double, 6> uv;
  };
  std::vector<Face> faces;
  std::vector<Corners> corners;

  void lift(std::uint32_t triangle, const Vec<3>& w, Vec<3>& pos, Vec<3>& normal) const override {
    const Corners& c = corners[triangle];
    evaluate(faces[c.face], w[0] * c.uv[0] + w[1] * c.uv[2] + w[2] * c.uv[4], w[0] * c.uv[1] + w[1] * c.uv[3] + w[2] * c.uv[5],
             pos, normal);
  }

  // Gauss-Newton steps on the surface's (u, v) from the weights' point towards `pos`: the surface's point
  // nearest to a point near it.
  void project(std::uint32_t triangle, const Vec<3>& w, Vec<3>& pos, Vec<3>& normal) const override {
    const Corners& c = corners[triangle];
    const Face& f = faces[c.face];
    double u = w[0] * c.uv[0] + w[1] * c.uv[2] + w[2] * c.uv[4], v = w[0] * c.uv[1] + w[1] * c.uv[3] + w[2] * c.uv[5];
    gp_Pnt target(pos[0], pos[1], pos[2]);
    target.Transform(f.place.Inverted());
    for (int step = 0; step < 12; ++step) {
      gp_Pnt p;
      gp_Vec du, dv;
      try {
        f.surface->D1(u, v, p, du, dv);
      } catch (const Standard_Failure&) {
        break;
      }
      const gp_Vec r(p, target);
      const double a = du.Dot(du), b = du.Dot(dv), d = dv.Dot(dv), det = a * d - b * b;
      if (!(std::abs(det) > 1e-300)) break;
      const double x = du.Dot(r), y = dv.Dot(r);
      const double su = (d * x - b * y) / det, sv = (a * y - b * x) / det;
      u += su;
      v += sv;
      if ((su * du + sv * dv).Magnitude() <= 1e-15 * (1.0 + p.XYZ().Modulus())) break;
    }
    evaluate(f, u, v, pos, normal);
  }

 private:
  // The surface's point at (u, v) in place, and its outward normal there (`normal` comes in as the
  // triangle's: it picks the side, and stays at a pole or where the surface has no derivatives).
  static void evaluate(const Face& f, double u, double v, Vec<3>& pos, Vec<3>& normal) {
    gp_Pnt p;
    gp_Vec du, dv;
    try {
      f.surface->D1(u, v, p, du, dv);
    } catch (const Standard_Failure&) {  // a surface without derivatives there: the triangle's point and normal
      return;
    }
    p.Transform(f.place);
    du.Transform(f.place);
    dv.Transform(f.place);
    pos = {p.X(), p.Y(), p.Z()};
    const gp_Vec n = du.Crossed(dv);
    const double length = n.Magnitude();
    // A pole (a derivative vanishes, or the two are parallel): the triangle's normal stays.
    if (!std::isfinite(length) || !(length > 1e-10 * du.Magnitude() * dv.Magnitude())) return;
    Vec<3> exact(n.X() / length, n.Y() / length, n.Z() / length);
    if (f.reversed) exact = -exact;
    // The surface's side as the triangles are oriented (outward once the mesh is checked).
    normal = exact.dot(normal) < 0 ? Vec<3>(-exact) : exact;
  }
};

// Each face's part: the name the file gives it, else "face<k>" (k its number in the solid); faces of one
// name are one part.
void name_parts(const std::string& file, const TopTools_IndexedMapOfShape& faces, const FaceNames& names,
                MeshSoup& soup, std::vector<int>& part_of_face) {
  const ShapeNames named(names);
  std::map<std::string, int> part;
  for (int k = 1; k <= faces.Extent(); ++k) {
    const std::string name = named.of(faces(k), "face" + std::to_string(k));
    if (const std::string problem = part_name_problem(name); !problem.empty())
      refuse(file, "names a face \"" + shown(name.substr(0, 40)) + (name.size() > 40 ? "..." : "") + "\", which " + problem);
    const auto [it, fresh] = part.emplace(name, static_cast<int>(soup.group_names.size()));
    if (fresh) soup.group_names.push_back(name);
    part_of_face.push_back(it->second);
  }
}

MeshSoup tessellate(const std::string& file, const TopoDS_Shape& solid, const CadOptions& options, const FaceNames& names) {
  const double deflection = deflection_for(file, solid, options);
  BRepMesh_IncrementalMesh mesher(solid, deflection, false, 0.2, false);
  if (!mesher.IsDone()) refuse(file, "could not be tessellated");
  MeshSoup soup;
  soup.name = file;
  auto lift = std::make_shared<CadLift>();
  std::map<std::array<double, 3>, std::uint32_t> index;  // faces share their edges' points exactly
  TopTools_IndexedMapOfShape faces;
  TopExp::MapShapes(solid, TopAbs_FACE, faces);
  std::vector<int> part_of_face;
  name_parts(file, faces, names, soup, part_of_face);
  for (int k = 1; k <= faces.Extent(); ++k) {
    const TopoDS_Face& face = TopoDS::Face(faces(k));
    TopLoc_Location at;
    const Handle(Poly_Triangulation) mesh = BRep_Tool::Triangulation(face, at);
    if (mesh.IsNull() || !mesh->HasUVNodes()) refuse(file, "has face " + std::to_string(k) + " that OCCT could not tessellate");
    TopLoc_Location surface_at;
    lift->faces.push_back({BRep_Tool::Surface(face, surface_at), surface_at.Transformation(), face.Orientation() == TopAbs_REVERSED});
    std::vector<std::uint32_t> node(static_cast<std::size_t>(mesh->NbNodes()) + 1);
    for (int i = 1; i <= mesh->NbNodes(); ++i) {
      const gp_Pnt p = mesh->Node(i).Transformed(at.Transformation());
      const auto [it, fresh] = index.emplace(std::array<double, 3>{p.X(), p.Y(), p.Z()}, static_cast<std::uint32_t>(soup.points.size()));
      if (fresh) soup.points.push_back({p.X(), p.Y(), p.Z()});
      node[static_cast<std::size_t>(i)] = it->second;
    }
    for (int t = 1; t <= mesh->NbTriangles(); ++t) {
      int a = 0, b = 0, c = 0;
      mesh->Triangle(t).Get(a, b, c);
      if (face.Orientation() == TopAbs_REVERSED) std::swap(b, c);
      const std::array<std::uint32_t, 3> corner{node[static_cast<std::size_t>(a)], node[static_cast<std::size_t>(b)],
                                                node[static_cast<std::size_t>(c)]};
      // At a pole (a degenerate edge) a triangle has two corners at one point: no area, no triangle.
      if (corner[0] == corner[1] || corner[1] == corner[2] || corner[0] == corner[2]) continue;
      soup.triangles.push_back(corner);
      soup.group.push_back(part_of_face[static_cast<std::size_t>(k - 1)]);
      soup.face.push_back(k - 1);
      CadLift::Corners corners{static_cast<std::uint32_t>(k - 1), {}};
      int j = 0;
      for (int n : {a, b, c}) {
        const gp_Pnt2d uv = mesh->UVNode(n);
        corners.uv[static_cast<std::size_t>(j++)] = uv.X();
        corners.uv[static_cast<std::size_t>(j++)] = uv.Y();
      }
      lift->corners.push_back(corners);
    }
  }
  soup.lift = std::move(lift);
  return soup;
}

}  // namespace

bool is_cad_unit(const std::string& unit) { return unit == "m" || unit == "cm" || unit == "mm" || unit == "in"; }

bool is_cad_file(const std::string& file) {
  const std::string ext = lower(std::filesystem::path(file).extension().string());
  return ext == ".step" || ext == ".stp" || ext == ".iges" || ext == ".igs" || ext == ".brep";
}

// How long a child may take over a file (CadOptions::isolated): far beyond what reading and meshing the
// largest parts takes, short of forever.
std::chrono::seconds read_limit(std::uintmax_t bytes) { return std::chrono::seconds(120 + bytes / 16384); }

void in_cad_library(const std::string& file, const CadOptions& options, const std::function<void()>& body) {
  if (!is_cad_file(file)) refuse(file, "is of no CAD format nodegen reads (.step, .stp, .iges, .igs, .brep)");
  if (!options.unit.empty() && !is_cad_unit(options.unit)) refuse(file, "is given the unit \"" + shown(options.unit) + "\", none of m, cm, mm, in");
  // A regular file within the limit, or why not.
  const std::uintmax_t bytes = check_input_file(file, InputFileLimits::kMeshFileBytes, "CAD files");
  // OCCT's reader settings (the unit) are process-wide, and its messages go to stdout unless removed.
  static std::mutex one_at_a_time;
  const std::lock_guard<std::mutex> lock(one_at_a_time);
  Message::DefaultMessenger()->RemovePrinters(STANDARD_TYPE(Message_PrinterOStream));
  STEPControl_Controller::Init();  // registers "xstep.cascade.unit", which the readers set and this puts back
  const UnitRestored restored;
  if (options.isolated) {
    // The child only finds whether the read ends: an error it meets, the read here meets and says alike.
    read_in_child(
        [&] {
          try {
            const QuietLibraryOutput quiet;
            body();
          } catch (...) {
          }
          return std::string();
        },
        file, "Open CASCADE", 0, read_limit(bytes));
  }
  try {
    const QuietLibraryOutput quiet;
    body();
  } catch (const Standard_Failure& e) {
    refuse(file, std::string("could not be read by OCCT: ") + (e.GetMessageString() ? e.GetMessageString() : "an OCCT exception"));
  }
}

ShapeNames::ShapeNames(const FaceNames& names) : names_(names) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!index_.IsBound(names[i].first)) index_.Bind(names[i].first, static_cast<int>(i));
}

std::string ShapeNames::of(const TopoDS_Shape& shape, const std::string& otherwise) const {
  return index_.IsBound(shape) ? names_[static_cast<std::size_t>(index_.Find(shape))].second : otherwise;
}

double deflection_for(const std::string& file, const TopoDS_Shape& shape, const CadOptions& options) {
  Bnd_Box box;
  BRepBndLib::Add(shape, box);
  if (box.IsVoid()) refuse(file, "holds a shape with no extent");
  const double diagonal = std::sqrt(box.SquareExtent());
  const double deflection = options.tolerance > 0 ? options.tolerance : 1e-4 * diagonal;
  if (!(deflection >= 1e-7 * diagonal && deflection <= 0.01 * diagonal))
    refuse(file, "is given a \"tolerance\" of " + number_text(deflection) +
                     ", outside 1e-7 to 0.01 of the part's size (its box diagonal, " + number_text(diagonal) +
                     "): finer without end, coarser misses its shape");
  // Open CASCADE takes no length below Precision::Confusion() as one: its mesher refuses a finer
  // deflection with words of its own.
  const double least = Precision::Confusion();
  if (deflection < least) {
    if (0.01 * diagonal < least)
      refuse(file, "holds a part only " + number_text(diagonal) + " across (its box diagonal, in its length unit): "
                   "Open CASCADE takes no length below " + number_text(least) + " as one, so it cannot tessellate it");
    refuse(file, std::string(options.tolerance > 0 ? "is given" : "gets by default") + " a tessellation \"tolerance\" of " +
                     number_text(deflection) + ", below Open CASCADE's least length " + number_text(least) +
                     " (the part is " + number_text(diagonal) + " across): give a \"tolerance\" of at least that");
  }
  return deflection;
}

TopoDS_Shape read_cad_shape(const std::string& file, const CadOptions& options, std::vector<std::string>& notes,
                            FaceNames& names) {
  const std::string ext = lower(std::filesystem::path(file).extension().string());
  const TopoDS_Shape shape = ext == ".brep"                   ? read_brep(file, options, notes)
                             : ext == ".iges" || ext == ".igs" ? read_iges(file, options, notes, names)
                                                               : read_step(file, options, notes, names);
  if (shape.IsNull()) refuse(file, "holds no shape");
  return shape;
}

MeshSoup read_cad(const std::string& file, const CadOptions& options, std::vector<std::string>& notes) {
  MeshSoup soup;
  in_cad_library(file, options, [&] {
    FaceNames names;
    const TopoDS_Shape solid = solid_of(file, read_cad_shape(file, options, notes, names), notes, names);
    soup = tessellate(file, solid, options, names);
  });
  return soup;
}

}  // namespace nodegen::geometry_detail
