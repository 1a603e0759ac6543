// CAD parts (geometry/files/cad_file.hpp) made here with Open CASCADE and written as STEP, IGES and
// BRep: boundary nodes on the exact surfaces with their exact outward normals (a sphere, a tube, a
// filleted box), one part per face, lengths in the file's unit or converted on request, several solids
// filled as their union, the same nodes at 1, 2 and 7 threads, and bad files refused naming the file
// and the reason.
#include <gtest/gtest.h>

#include <BRepAlgoAPI_Cut.hxx>
#include <BRepFilletAPI_MakeFillet.hxx>
#include <BRepPrimAPI_MakeBox.hxx>
#include <BRepPrimAPI_MakePrism.hxx>
#include <BRepPrimAPI_MakeCylinder.hxx>
#include <BRepPrimAPI_MakeSphere.hxx>
#include <BRepBuilderAPI_MakeEdge.hxx>
#include <BRepBuilderAPI_MakeFace.hxx>
#include <BRepBuilderAPI_MakePolygon.hxx>
#include <BRepBuilderAPI_MakeWire.hxx>
#include <BRepBuilderAPI_Transform.hxx>
#include <BRepTools.hxx>
#include <BRep_Builder.hxx>
#include <IGESControl_Controller.hxx>
#include <IGESControl_Writer.hxx>
#include <IGESData_IGESEntity.hxx>
#include <Interface_Static.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Message_PrinterOStream.hxx>
#include <XCAFApp_Application.hxx>
#include <XCAFDoc_DocumentTool.hxx>
#include <XCAFDoc_ShapeTool.hxx>
#include <STEPCAFControl_Controller.hxx>
#include <STEPCAFControl_Writer.hxx>
#include <STEPControl_Controller.hxx>
#include <STEPControl_Writer.hxx>
#include <TCollection_HAsciiString.hxx>
#include <TDataStd_Name.hxx>
#include <TDocStd_Document.hxx>
#include <TopExp_Explorer.hxx>
#include <TopoDS.hxx>
#include <TopoDS_Compound.hxx>
#include <TransferBRep.hxx>
#include <TransferBRep_ShapeMapper.hxx>
#include <Transfer_FinderProcess.hxx>
#include <gp_Ax2.hxx>
#include <gp_Circ.hxx>
#include <gp_Pln.hxx>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/input/fill_domain.hpp"
#include "support/geometry_test_support.hpp"
#include "support/temp_dir.hpp"

namespace nodegen {
namespace {

using test::domain_of;

void quiet_occt() { Message::DefaultMessenger()->RemovePrinters(STANDARD_TYPE(Message_PrinterOStream)); }

// Writes the shape (in millimetres) as STEP in `unit` ("MM", "CM", ...).
void write_step(const TopoDS_Shape& shape, const std::filesystem::path& file, const char* unit = "MM") {
  STEPControl_Controller::Init();
  quiet_occt();
  Interface_Static::SetCVal("write.step.unit", unit);
  STEPControl_Writer writer;
  writer.Transfer(shape, STEPControl_AsIs);
  ASSERT_EQ(writer.Write(file.c_str()), IFSelect_RetDone);
  Interface_Static::SetCVal("write.step.unit", "MM");
}

// The shape written through OCCT's document writer with names on some of its faces (`names[k]` for its
// k-th face in TopExp_Explorer order; "" leaves it unnamed), as CAD programs export named faces.
void write_named_step(const TopoDS_Shape& shape, const std::vector<std::string>& names, const std::filesystem::path& file) {
  STEPCAFControl_Controller::Init();
  quiet_occt();
  Handle(TDocStd_Document) doc;
  XCAFApp_Application::GetApplication()->NewDocument("MDTV-XCAF", doc);
  const Handle(XCAFDoc_ShapeTool) tool = XCAFDoc_DocumentTool::ShapeTool(doc->Main());
  const TDF_Label root = tool->AddShape(shape, false);
  std::size_t k = 0;
  for (TopExp_Explorer e(shape, TopAbs_FACE); e.More(); e.Next(), ++k)
    if (k < names.size() && !names[k].empty()) TDataStd_Name::Set(tool->AddSubShape(root, e.Current()), names[k].c_str());
  Interface_Static::SetIVal("write.stepcaf.subshapes.name", 1);
  STEPCAFControl_Writer writer;
  ASSERT_TRUE(writer.Transfer(doc, STEPControl_AsIs));
  ASSERT_EQ(writer.Write(file.c_str()), IFSelect_RetDone);
  Interface_Static::SetIVal("write.stepcaf.subshapes.name", 0);
}

// The same as IGES (`brep_mode` 1: faces as B-rep entities, 0: as trimmed surfaces), the names as the
// faces' labels, as IGES exporters write them (8 characters at most).
void write_named_iges(const TopoDS_Shape& shape, const std::vector<std::string>& names, const std::filesystem::path& file,
                      int brep_mode) {
  IGESControl_Controller::Init();
  quiet_occt();
  IGESControl_Writer writer("MM", brep_mode);
  writer.AddShape(shape);
  const Handle(Transfer_FinderProcess) process = writer.TransferProcess();
  std::size_t k = 0;
  for (TopExp_Explorer e(shape, TopAbs_FACE); e.More(); e.Next(), ++k) {
    if (k >= names.size() || names[k].empty()) continue;
    Handle(Standard_Transient) entity;
    ASSERT_TRUE(process->FindTypedTransient(TransferBRep::ShapeMapper(process, e.Current()),
                                            STANDARD_TYPE(IGESData_IGESEntity), entity));
    Handle(IGESData_IGESEntity)::DownCast(entity)->SetLabel(new TCollection_HAsciiString(names[k].c_str()));
  }
  writer.ComputeModel();
  ASSERT_TRUE(writer.Write(file.c_str()));
}

TopoDS_Shape tube() {  // radius 1 around z from 0 to 1, a hole of radius 0.4 through it
  const TopoDS_Shape outer = BRepPrimAPI_MakeCylinder(1.0, 1.0).Shape();
  const TopoDS_Shape hole = BRepPrimAPI_MakeCylinder(gp_Ax2(gp_Pnt(0, 0, -0.5), gp_Dir(0, 0, 1)), 0.4, 2.0).Shape();
  return BRepAlgoAPI_Cut(outer, hole).Shape();
}

DomainFile load(const std::filesystem::path& dir, const std::string& shape, const std::string& spacing = "0.08") {
  std::ofstream(dir / "part.json") << R"({"dim":3,"spacing":)" << spacing << R"(,"shape":)" << shape << "}";
  return load_domain_file(dir / "part.json");
}

// The distance from p to the tube's surface, and its outward normal at p: on an edge (two of its
// surfaces within 1e-6 of p, counted in `surfaces`) the bisector of theirs, as an edge node carries.
double tube_surface(const Vec<3>& p, Vec<3>& normal, int* surfaces = nullptr) {
  const double r = std::hypot(p[0], p[1]);
  const Vec<3> radial(p[0] / r, p[1] / r, 0.0);
  const double d[4] = {std::abs(r - 1.0), std::abs(r - 0.4), std::abs(p[2]), std::abs(p[2] - 1.0)};
  const Vec<3> n[4] = {radial, -radial, Vec<3>(0, 0, -1), Vec<3>(0, 0, 1)};
  int best = 0;
  for (int k = 1; k < 4; ++k)
    if (d[k] < d[best]) best = k;
  Vec<3> sum = Vec<3>::Zero();
  int near = 0;
  for (int k = 0; k < 4; ++k)
    if (d[k] < 1e-6) sum += n[k], ++near;
  normal = near > 1 ? Vec<3>(sum.normalized()) : n[best];
  if (surfaces) *surfaces = near;
  return d[best];
}

TEST(Cad, SphereNodesLieOnTheSphereWithRadialNormals) {
  const test::TempDir dir("cad");
  write_step(BRepPrimAPI_MakeSphere(0.5).Shape(), dir / "ball.step");
  const DomainFile f = load(dir.path(), R"({"type":"cad","name":"ball","file":"ball.step"})");
  const auto& d = *domain_of<3>(f);
  EXPECT_EQ(d.boundary_names(), std::vector<std::string>{"ball:face1"});
  const auto nodes = d.boundary_nodes(f.spacing, 2);
  ASSERT_GT(nodes.size(), 300u);
  for (const auto& n : nodes) {
    ASSERT_NEAR(n.pos.norm(), 0.5, 1e-6) << n.pos.transpose();
    ASSERT_GT(n.normal.dot(n.pos.normalized()), std::cos(1e-5)) << n.pos.transpose();
  }
  EXPECT_EQ(f.repairs, std::vector<std::string>{"ball: lengths in mm, the file's own unit"});
}

TEST(Cad, TubeNodesLieOnTheirFacesWithExactNormalsAndFillTheSameAtAnyThreadCount) {
  const test::TempDir dir("cad");
  write_step(tube(), dir / "tube.step");
  const DomainFile f = load(dir.path(), R"({"type":"cad","name":"tube","file":"tube.step"})");
  const auto& d = *domain_of<3>(f);
  ASSERT_EQ(d.boundary_names().size(), 4u);  // outside, hole, top, bottom
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(d.boundary_names()[k], "tube:face" + std::to_string(k + 1));
  std::vector<int> per_part(5, 0);
  std::map<std::pair<bool, bool>, int> on_rim;  // (outer, top): nodes on the four circular edges
  const auto nodes = d.boundary_nodes(f.spacing, 2);
  for (const auto& n : nodes) {
    Vec<3> exact;
    int surfaces = 0;
    ASSERT_LT(tube_surface(n.pos, exact, &surfaces), 1e-6) << n.pos.transpose();
    ASSERT_GT(n.normal.dot(exact), std::cos(1e-5)) << n.pos.transpose();
    ++per_part[static_cast<std::size_t>(n.boundary_id)];
    if (surfaces == 2) ++on_rim[{std::hypot(n.pos[0], n.pos[1]) > 0.7, n.pos[2] > 0.5}];
  }
  for (std::size_t k = 1; k <= 4; ++k) EXPECT_GT(per_part[k], 20) << d.boundary_names()[k - 1];
  // The edges carry nodes at the spacing along them (2 pi r / 0.08), placed before the faces.
  for (const auto& [rim, count] : on_rim)
    EXPECT_NEAR(count, 2 * 3.14159265358979 * (rim.first ? 1.0 : 0.4) / 0.08, 1.0) << rim.first << rim.second;
  EXPECT_EQ(on_rim.size(), 4u);
  for (std::size_t i = 0; i < nodes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) ASSERT_GT((nodes[i].pos - nodes[j].pos).norm(), 0.9 * 0.08);
  FillOptions options;
  auto fill = [&](int threads) {
    options.threads = threads;
    return std::get<Discretization<3>>(fill_domain(f, options));
  };
  const Discretization<3> one = fill(1);
  for (std::size_t i = one.boundary_count; i < one.positions.size(); ++i) {
    const double r = std::hypot(one.positions[i][0], one.positions[i][1]);
    ASSERT_TRUE(r > 0.4 && r < 1.0 && one.positions[i][2] > 0 && one.positions[i][2] < 1) << one.positions[i].transpose();
  }
  for (int threads : {2, 7}) {
    const Discretization<3> other = fill(threads);
    EXPECT_EQ(other.positions, one.positions) << threads << " threads";
    EXPECT_EQ(other.normals, one.normals) << threads << " threads";
  }
}

// A box with every edge rounded: flat faces, cylinders and the corners' spheres meet tangentially.
TEST(Cad, FilletedBoxNodesLieInsideItsBoxWithUnitNormals) {
  const test::TempDir dir("cad");
  const TopoDS_Shape box = BRepPrimAPI_MakeBox(2, 1, 0.5).Shape();
  BRepFilletAPI_MakeFillet fillet(box);
  for (TopExp_Explorer e(box, TopAbs_EDGE); e.More(); e.Next()) fillet.Add(0.1, TopoDS::Edge(e.Current()));
  write_step(fillet.Shape(), dir / "bracket.step");
  const DomainFile f = load(dir.path(), R"({"type":"cad","name":"b","file":"bracket.step"})", "0.05");
  const auto& d = *domain_of<3>(f);
  EXPECT_EQ(d.boundary_names().size(), 26u);  // 6 faces, 12 edge fillets, 8 corners
  for (const auto& n : d.boundary_nodes(f.spacing, 2)) {
    ASSERT_NEAR(n.normal.norm(), 1.0, 1e-12);
    for (int k = 0; k < 3; ++k) {
      const double hi = k == 0 ? 2.0 : k == 1 ? 1.0 : 0.5;
      ASSERT_TRUE(n.pos[k] > -1e-9 && n.pos[k] < hi + 1e-9) << n.pos.transpose();
      // On a flat face (0.1 from the rounded edges) the normal is the axis.
      if (std::abs(n.pos[k]) < 1e-9 && n.pos[(k + 1) % 3] > 0.11 && n.pos[(k + 2) % 3] > 0.11 &&
          n.pos[(k + 1) % 3] < (k == 2 ? 2.0 : k == 1 ? 0.5 : 1.0) - 0.11) {
        ASSERT_LT(n.normal[k], -1.0 + 1e-9) << n.pos.transpose();
      }
    }
  }
}

// A CAD part under CSG: the sphere cut out of a box keeps its nodes on the exact sphere (the filters
// test them on the triangles, then they are lifted), and a tube cut by a box keeps its nodes on its
// exact faces where the box clips its triangles.
TEST(Cad, PartsUnderCsgKeepTheirNodesOnTheExactSurfaces) {
  const test::TempDir dir("cad");
  write_step(BRepPrimAPI_MakeSphere(0.5).Shape(), dir / "ball.step");
  write_step(tube(), dir / "tube.step");
  const DomainFile cut = load(dir.path(), R"({"type":"difference","children":[{"type":"box","min":[-1,-1,-1],"max":[1,1,1]},
      {"type":"cad","name":"ball","file":"ball.step"}]})");
  const auto& d = *domain_of<3>(cut);
  std::size_t on_ball = 0;
  for (const auto& n : d.boundary_nodes(cut.spacing, 2)) {
    if (d.boundary_names()[static_cast<std::size_t>(n.boundary_id) - 1] != "ball:face1") continue;
    ++on_ball;
    ASSERT_NEAR(n.pos.norm(), 0.5, 1e-6) << n.pos.transpose();
    ASSERT_GT(n.normal.dot(-n.pos.normalized()), std::cos(1e-5)) << "a cavity's normal points into it";
  }
  EXPECT_GT(on_ball, 300u);
  const DomainFile half = load(dir.path(), R"({"type":"intersection","children":[{"type":"cad","name":"tube","file":"tube.step"},
      {"type":"box","min":[-2,-2,-2],"max":[0.3,2,2]}]})");
  std::size_t on_tube = 0;
  for (const auto& n : domain_of<3>(half)->boundary_nodes(half.spacing, 2)) {
    if (n.pos[0] > 0.3 - 1e-6) continue;  // on the box's face, or a junction where it cuts the tube (found to 1e-7)
    Vec<3> exact;
    ASSERT_LT(tube_surface(n.pos, exact), 1e-6) << n.pos.transpose();
    ASSERT_GT(n.normal.dot(exact), std::cos(1e-5)) << n.pos.transpose();
    ++on_tube;
  }
  EXPECT_GT(on_tube, 800u);  // of the whole tube's 1593 at this spacing, 1022 lie at x < 0.3
}

// A unit box whose faces x = 0, x = 1, y = 0, y = 1 the file `file` names inlet, outlet, wall, wall:
// its named faces are parts of those names (two faces of one name one part), the others face<k>; the
// edges of the named faces carry nodes at the spacing. With `walls_own_no_edge`, the edges the walls
// share with the inlet and outlet are the inlet's and outlet's (the face order of a file of solids);
// in a sewn shell the order, and so which face's part an edge's nodes take, is the sewing's.
void expect_named_duct(const std::filesystem::path& dir, const std::string& file, bool walls_own_no_edge = true) {
  SCOPED_TRACE(file);
  const DomainFile f = load(dir, R"({"type":"cad","name":"duct","file":")" + file + R"("})", "0.1");
  if (!walls_own_no_edge) {
    EXPECT_NE(std::find(f.repairs.begin(), f.repairs.end(),
                        "duct: loose faces sewn into closed shells (gaps up to 1e-5 of the part's size)"),
              f.repairs.end());
  }
  const auto& d = *domain_of<3>(f);
  auto names = d.boundary_names();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"duct:face5", "duct:face6", "duct:inlet", "duct:outlet", "duct:wall"}));
  int on_wall_edge = 0;
  for (const auto& n : d.boundary_nodes(f.spacing, 2)) {
    const std::string& part = d.boundary_names()[static_cast<std::size_t>(n.boundary_id) - 1];
    const bool x0 = n.pos[0] < 1e-9, x1 = n.pos[0] > 1 - 1e-9, y0 = n.pos[1] < 1e-9, y1 = n.pos[1] > 1 - 1e-9;
    if (part == "duct:inlet") {
      ASSERT_TRUE(x0) << n.pos.transpose();
    } else if (part == "duct:outlet") {
      ASSERT_TRUE(x1) << n.pos.transpose();
    } else if (part == "duct:wall") {
      ASSERT_TRUE((y0 || y1) && (!walls_own_no_edge || (!x0 && !x1))) << n.pos.transpose();
    }
    // The four edges where the wall meets the bottom and top: 9 nodes each between the corners.
    on_wall_edge += (y0 || y1) && (n.pos[2] < 1e-9 || n.pos[2] > 1 - 1e-9) && !x0 && !x1;
  }
  EXPECT_EQ(on_wall_edge, 4 * 9);
}

// Named faces in STEP (names of the faces' representation items) and in IGES (the faces' labels, with
// the faces written either way IGES has).
TEST(Cad, NamedFacesAreThePartsOfTheirNames) {
  const test::TempDir dir("cad");
  // A box's faces in explorer order: x = 0, x = 1, y = 0, y = 1, z = 0, z = 1.
  const TopoDS_Shape box = BRepPrimAPI_MakeBox(1.0, 1.0, 1.0).Shape();
  const std::vector<std::string> names{"inlet", "outlet", "wall", "wall"};
  write_named_step(box, names, dir / "duct.step");
  expect_named_duct(dir.path(), "duct.step");
  write_named_iges(box, names, dir / "duct.igs", 1);
  expect_named_duct(dir.path(), "duct.igs");
  write_named_iges(box, names, dir / "surfaces.iges", 0);  // six loose trimmed surfaces, sewn
  expect_named_duct(dir.path(), "surfaces.iges", false);
}

// A unit square plate with a hole of radius 0.25 at its middle, as one planar face; tilted: the same
// turned 30 degrees about the x axis.
TopoDS_Shape plate(bool tilted) {
  BRepBuilderAPI_MakePolygon square(gp_Pnt(0, 0, 0), gp_Pnt(1, 0, 0), gp_Pnt(1, 1, 0), gp_Pnt(0, 1, 0), true);
  const TopoDS_Wire hole = BRepBuilderAPI_MakeWire(BRepBuilderAPI_MakeEdge(gp_Circ(gp_Ax2(gp_Pnt(0.5, 0.5, 0), gp_Dir(0, 0, 1)), 0.25)));
  BRepBuilderAPI_MakeFace face(square.Wire(), true);
  face.Add(TopoDS::Wire(hole.Reversed()));
  if (!tilted) return face.Shape();
  gp_Trsf turn;
  turn.SetRotation(gp_Ax1(gp_Pnt(0, 0, 0), gp_Dir(1, 0, 0)), 3.14159265358979 / 6);
  return BRepBuilderAPI_Transform(face.Shape(), turn).Shape();
}

// In a 2D domain file a CAD part is its one planar face: a polygon within the tolerance of the exact
// edges, one part per edge, the same nodes at 1, 2 and 7 threads; tilted, the same in the plane's own
// coordinates. Several faces, or a face that is not flat, are refused.
TEST(Cad, APlanarFaceIsA2DDomainWithAPartPerEdge) {
  const test::TempDir dir("cad");
  write_step(plate(false), dir / "plate.step");
  write_step(plate(true), dir / "tilted.step");
  auto load_2d = [&](const std::string& file) {
    std::ofstream(dir / "plate.json") << R"({"dim":2,"spacing":0.02,"shape":{"type":"cad","name":"plate","file":")" << file << R"("}})";
    return load_domain_file(dir / "plate.json");
  };
  const DomainFile f = load_2d("plate.step");
  const auto& d = *domain_of<2>(f);
  auto names = d.boundary_names();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"plate:edge1", "plate:edge2", "plate:edge3", "plate:edge4", "plate:edge5"}));
  const double tolerance = 1e-4 * std::sqrt(2.0);  // the default: 1e-4 of the face's diagonal
  std::size_t on_hole = 0;
  for (const auto& n : d.boundary_nodes(f.spacing, 2)) {
    const Vec<2> c = n.pos - Vec<2>(0.5, 0.5);
    const double side = std::min({n.pos[0], 1 - n.pos[0], n.pos[1], 1 - n.pos[1]});
    if (std::abs(c.norm() - 0.25) <= tolerance) {
      ++on_hole;
      ASSERT_GT(n.normal.dot(-c.normalized()), std::cos(0.05)) << "a hole's normal points into it";
    } else {
      ASSERT_LT(std::abs(side), 1e-12) << n.pos.transpose();
    }
  }
  EXPECT_NEAR(static_cast<double>(on_hole), 2 * 3.14159265358979 * 0.25 / 0.02, 2.0);
  FillOptions options;
  auto fill = [&](const DomainFile& file, int threads) {
    options.threads = threads;
    return std::get<Discretization<2>>(fill_domain(file, options));
  };
  const Discretization<2> one = fill(f, 1);
  for (int threads : {2, 7}) EXPECT_EQ(fill(f, threads).positions, one.positions) << threads << " threads";
  const DomainFile turned = load_2d("tilted.step");
  EXPECT_NE(turned.repairs.back().find("a 2D CAD face in the plane through"), std::string::npos) << turned.repairs.back();
  const Discretization<2> other = fill(turned, 2);
  EXPECT_NEAR(static_cast<double>(other.positions.size()), static_cast<double>(one.positions.size()), 0.02 * one.positions.size());
  write_step(tube(), dir / "tube.step");
  write_step(BRepPrimAPI_MakeSphere(0.5).Shape(), dir / "ball.step");  // one face, not flat
  for (const auto& [bad, why] : {std::pair{"tube.step", "holds 4 faces: a 2D domain is one planar face"},
                                 std::pair{"ball.step", "has a face that is not planar"}}) {
    try {
      load_2d(bad);
      ADD_FAILURE() << bad << " was taken as a 2D face";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("shape.file"), std::string::npos) << e.what();
    }
  }
}

TEST(Cad, LengthsComeInTheFilesUnitOrTheOneAskedFor) {
  const test::TempDir dir("cad");
  write_step(BRepPrimAPI_MakeBox(10, 20, 30).Shape(), dir / "box.step", "CM");  // 1 x 2 x 3 cm
  auto extent = [&](const std::string& unit) {
    const DomainFile f = load(dir.path(), R"({"type":"cad","name":"box","file":"box.step")" + unit + "}", "0.5");
    const auto b = domain_of<3>(f)->bounding_box();
    return std::pair{Vec<3>(b.hi - b.lo), f.repairs};
  };
  const auto [own, own_notes] = extent("");
  EXPECT_LT((own - Vec<3>(1, 2, 3)).norm(), 1e-9) << own.transpose();
  EXPECT_EQ(own_notes, std::vector<std::string>{"box: lengths in cm, the file's own unit"});
  const auto [mm, mm_notes] = extent(R"(,"unit":"mm")");
  EXPECT_LT((mm - Vec<3>(10, 20, 30)).norm(), 1e-9) << mm.transpose();
  EXPECT_EQ(mm_notes, std::vector<std::string>{"box: lengths in mm, converted from the file's cm"});
  const auto [m, m_notes] = extent(R"(,"unit":"m")");
  EXPECT_LT((m - Vec<3>(0.01, 0.02, 0.03)).norm(), 1e-12) << m.transpose();
}

TEST(Cad, SeveralSolidsAreTheirUnionAndIgesAndBrepReadToo) {
  const test::TempDir dir("cad");
  TopoDS_Compound two;
  BRep_Builder builder;
  builder.MakeCompound(two);
  builder.Add(two, BRepPrimAPI_MakeBox(gp_Pnt(0, 0, 0), 1, 1, 1).Shape());
  builder.Add(two, BRepPrimAPI_MakeBox(gp_Pnt(0.5, 0.5, 0.5), 1, 1, 1).Shape());
  write_step(two, dir / "two.step");
  const DomainFile f = load(dir.path(), R"({"type":"cad","name":"u","file":"two.step"})", "0.1");
  EXPECT_EQ(f.repairs.back(), "u: 2 solids fused into their union");
  for (const auto& n : domain_of<3>(f)->boundary_nodes(f.spacing, 2)) {
    const bool in_first = (n.pos.array() > 1e-9).all() && (n.pos.array() < 1 - 1e-9).all();
    const bool in_second = (n.pos.array() > 0.5 + 1e-9).all() && (n.pos.array() < 1.5 - 1e-9).all();
    ASSERT_FALSE(in_first || in_second) << "a node inside the union: " << n.pos.transpose();
  }
  write_named_iges(tube(), {}, dir / "tube.igs", 1);  // faces as B-rep solids
  const DomainFile g = load(dir.path(), R"({"type":"cad","name":"t","file":"tube.igs"})");
  EXPECT_EQ(domain_of<3>(g)->boundary_names().size(), 4u);
  ASSERT_TRUE(BRepTools::Write(tube(), (dir / "tube.brep").c_str()));
  const DomainFile h = load(dir.path(), R"({"type":"cad","name":"t","file":"tube.brep"})");
  EXPECT_EQ(domain_of<3>(h)->boundary_names().size(), 4u);
}

void expect_refused(const std::filesystem::path& dir, const std::string& shape, const std::string& piece) {
  try {
    load(dir, shape);
    ADD_FAILURE() << "accepted " << shape;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(piece), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
  }
}

// A unit cube each side of which is k x k loose square faces: 6 k^2 faces and twice as many edges to
// sew and to look names up for.
TopoDS_Compound tiled_cube(int k) {
  TopoDS_Compound all;
  BRep_Builder builder;
  builder.MakeCompound(all);
  const double s = 1.0 / k;
  for (int i = 0; i < k; ++i)
    for (int j = 0; j < k; ++j)
      for (int axis = 0; axis < 3; ++axis)
        for (const double c : {0.0, 1.0}) {
          auto at = [&](double u, double v) {
            double p[3];
            p[axis] = c, p[(axis + 1) % 3] = u, p[(axis + 2) % 3] = v;
            return gp_Pnt(p[0], p[1], p[2]);
          };
          BRepBuilderAPI_MakePolygon square(at(i * s, j * s), at((i + 1) * s, j * s), at((i + 1) * s, (j + 1) * s),
                                            at(i * s, (j + 1) * s), true);
          builder.Add(all, BRepBuilderAPI_MakeFace(square.Wire(), true).Face());
        }
  return all;
}

// Reading names per face by OCCT's EntityFromShapeResult scans every result for each face and edge:
// 5400 faces took minutes. One pass over the results keeps the load linear in the faces.
TEST(Cad, ThousandsOfLooseFacesLoadInLinearTime) {
  const test::TempDir dir("cad");
  write_named_iges(tiled_cube(30), {}, dir / "tiles.igs", 0);  // as trimmed surfaces
  const auto start = std::chrono::steady_clock::now();
  const DomainFile f = load(dir.path(), R"({"type":"cad","name":"tiles","file":"tiles.igs"})", "0.1");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 40.0);
  EXPECT_EQ(domain_of<3>(f)->boundary_names().size(), 5400u);
  const auto box = domain_of<3>(f)->bounding_box();
  EXPECT_LT((box.hi - box.lo - Vec<3>(1, 1, 1)).norm(), 1e-6);
}

TEST(Cad, BadFilesAreRefusedNamingTheFileAndTheReason) {
  const test::TempDir dir("cad");
  std::ofstream(dir / "junk.step") << "ISO-10303-21;\nHEADER;\nthis is not a step file\n";
  expect_refused(dir.path(), R"({"type":"cad","file":"junk.step"})", "junk.step");
  std::ofstream(dir / "empty.stp");
  expect_refused(dir.path(), R"({"type":"cad","file":"empty.stp"})", "empty.stp");
  expect_refused(dir.path(), R"({"type":"cad","file":"missing.step"})", "missing.step");
  write_step(BRepBuilderAPI_MakeFace(gp_Pln(gp_Pnt(0, 0, 0), gp_Dir(0, 0, 1)), 0, 1, 0, 1).Shape(), dir / "sheet.step");
  expect_refused(dir.path(), R"({"type":"cad","file":"sheet.step"})", "holds no solid (nor faces that close a volume)");
  write_step(tube(), dir / "tube.step");
  expect_refused(dir.path(), R"({"type":"cad","file":"tube.step","unit":"furlong"})", "shape.unit: expected one of m, cm, mm, in");
  expect_refused(dir.path(), R"({"type":"cad","file":"tube.step","tolerance":-1})", "shape.tolerance");
  expect_refused(dir.path(), R"({"type":"cad","file":"tube.step","tolerance":1e-12})", "is given a \"tolerance\" of 1e-12, outside 1e-7 to 0.01");
  expect_refused(dir.path(), R"({"type":"cad","file":"tube.stl"})", "is not a CAD file");
  ASSERT_TRUE(BRepTools::Write(tube(), (dir / "tube.brep").c_str()));
  expect_refused(dir.path(), R"({"type":"cad","file":"tube.brep","unit":"mm"})", "has no length unit");
  std::ofstream(dir / "flat.json") << R"({"dim":2,"spacing":0.1,"shape":{"type":"cad","file":"tube.step"}})";
  EXPECT_THROW(load_domain_file(dir / "flat.json"), InputError);
}

// A part below Open CASCADE's least length, one whose default tessellation tolerance would be, and a
// solid whose faces cross (a prism over a bow tie): each says why in nodegen's words, not OCCT's or the
// mesh formats'.
TEST(Cad, PartsTooSmallOrWithCrossingFacesSayWhy) {
  const test::TempDir dir("cad");
  write_step(BRepPrimAPI_MakeBox(3e-7, 3e-7, 3e-7).Shape(), dir / "speck.step");
  expect_refused(dir.path(), R"({"type":"cad","file":"speck.step"})", "Open CASCADE takes no length below 1e-07 as one");
  write_step(BRepPrimAPI_MakeBox(1e-4, 1e-4, 1e-4).Shape(), dir / "grain.step");
  expect_refused(dir.path(), R"({"type":"cad","file":"grain.step"})",
                 "gets by default a tessellation \"tolerance\" of 1.7");
  expect_refused(dir.path(), R"({"type":"cad","file":"grain.step"})", "below Open CASCADE's least length 1e-07");
  const DomainFile grain = load(dir.path(), R"({"type":"cad","name":"g","file":"grain.step","tolerance":2e-7})", "2e-5");
  EXPECT_LT(domain_of<3>(grain)->bounding_box().size().maxCoeff(), 2e-4);
  BRepBuilderAPI_MakePolygon bow(gp_Pnt(0, 0, 0), gp_Pnt(1, 1, 0), gp_Pnt(1, 0, 0), gp_Pnt(0, 1, 0), true);
  write_step(BRepPrimAPI_MakePrism(BRepBuilderAPI_MakeFace(bow.Wire(), true).Face(), gp_Vec(0, 0, 1)).Shape(),
             dir / "bowtie.step");
  expect_refused(dir.path(), R"({"type":"cad","file":"bowtie.step"})",
                 "bowtie.step is not a manifold, consistently oriented surface");
}

// A STEP file whose references dangle makes Open CASCADE dereference a null handle, and one with a NaN
// coordinate makes its transfer loop without end: one error line each, read in a child process first.
TEST(Cad, FilesOpenCascadeCrashesOrLoopsOnAreOneErrorLine) {
  const test::TempDir dir("cad");
  write_step(tube(), dir / "tube.step");
  std::ifstream in(dir / "tube.step");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto corrupt = [&](const std::string& file, const std::regex& what, const std::string& with) {
    std::ofstream(dir / file) << std::regex_replace(text, what, with, std::regex_constants::format_first_only);
  };
  corrupt("dangling.step", std::regex(R"(FACE_BOUND\('',#\d+,)"), "FACE_BOUND('',$,");
  expect_refused(dir.path(), R"({"type":"cad","file":"dangling.step"})", "Open CASCADE crashed reading it");
  corrupt("nan.step", std::regex(R"(CARTESIAN_POINT\('',\([^,]+,)"), "CARTESIAN_POINT('',(NAN,");
  expect_refused(dir.path(), R"({"type":"cad","file":"nan.step"})", "has a coordinate that is not a finite number");
}

}  // namespace
}  // namespace nodegen
