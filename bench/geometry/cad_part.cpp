// Writes the CAD benchmark's part twice, as STEP and as a fine STL of the same solid, for
// bench/geometry/cad_cost.py: a bracket (a 4 x 2 x 1 block with two holes through it, every edge of
// the block rounded), modelled and tessellated by Open CASCADE.
//
//     build/release/bench/cad_part DIR [--stl-deflection D]   # -> DIR/bracket.step, DIR/bracket.stl
#include <BRepAlgoAPI_Cut.hxx>
#include <BRepFilletAPI_MakeFillet.hxx>
#include <BRepMesh_IncrementalMesh.hxx>
#include <BRepPrimAPI_MakeBox.hxx>
#include <BRepPrimAPI_MakeCylinder.hxx>
#include <Message.hxx>
#include <Message_Messenger.hxx>
#include <Message_PrinterOStream.hxx>
#include <STEPControl_Controller.hxx>
#include <STEPControl_Writer.hxx>
#include <StlAPI_Writer.hxx>
#include <TopExp_Explorer.hxx>
#include <TopoDS.hxx>
#include <gp_Ax2.hxx>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cad_part DIR [--stl-deflection D]\n");
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  const double deflection = argc >= 4 && std::string(argv[2]) == "--stl-deflection" ? std::atof(argv[3]) : 4.6e-4;
  Message::DefaultMessenger()->RemovePrinters(STANDARD_TYPE(Message_PrinterOStream));
  const TopoDS_Shape block = BRepPrimAPI_MakeBox(4.0, 2.0, 1.0).Shape();
  BRepFilletAPI_MakeFillet rounded(block);
  for (TopExp_Explorer e(block, TopAbs_EDGE); e.More(); e.Next()) rounded.Add(0.2, TopoDS::Edge(e.Current()));
  TopoDS_Shape part = rounded.Shape();
  for (const double x : {1.0, 3.0})
    part = BRepAlgoAPI_Cut(part, BRepPrimAPI_MakeCylinder(gp_Ax2(gp_Pnt(x, 1.0, -1.0), gp_Dir(0, 0, 1)), 0.5, 3.0).Shape()).Shape();
  STEPControl_Controller::Init();
  STEPControl_Writer step;
  step.Transfer(part, STEPControl_AsIs);
  if (step.Write((dir / "bracket.step").c_str()) != IFSelect_RetDone) return 1;
  // The same deflection nodegen's CAD reader takes by default (1e-4 of the box diagonal, 4.58).
  BRepMesh_IncrementalMesh mesh(part, deflection, false, 0.2, false);
  StlAPI_Writer stl;
  stl.ASCIIMode() = false;
  return stl.Write(part, (dir / "bracket.stl").c_str()) ? 0 : 1;
}
