// The domain file's shape tree, read field by field into the internal shape tree (shape.hpp).
#include "nodegen/geometry/shape_reader.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <type_traits>

#include "geometry/files/cad_face.hpp"
#include "geometry/files/cad_file.hpp"
#include "geometry/files/mesh_file_check.hpp"
#include "geometry/mesh/planar_mesh.hpp"
#include "geometry/shapes/box_hierarchy.hpp"
#include "geometry/shapes/edge_names_reader.hpp"
#include "geometry/shapes/polygon_ring_reader.hpp"
#include "geometry/shapes/ring_crossings.hpp"
#include "geometry/shapes/shape.hpp"
#include "nodegen/geometry/input_file.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen {
namespace {

using nlohmann::json;
using namespace geometry_detail;

// The range of coordinates the fill's arithmetic holds: squared distances (up to (2e100)^2 summed
// over 3 axes) stay finite. The spacing's range (kMinSpacing, kMaxCoordinateOverSpacing) is in
// spacing.hpp: the fill checks it too.
constexpr double kMaxCoordinate = 1e100;
// A part's name is repeated in the name of every part it makes (a polygon's holes: "NAME:hole7"), in
// the output and in the report: bounded, so a long name cannot multiply into gigabytes.
constexpr std::size_t kMaxNameLength = 256;

// One shape object at a time; `at` is its JSON path, `depth` its level in the tree.
class ShapeTreeReader {
 public:
  explicit ShapeTreeReader(const JsonFields& fields) : f_(fields) {}

  template <int D>
  ShapePtr<D> shape(const json& j, const std::string& at, int depth = 1) {
    if (depth > kMaxShapeDepth)
      f_.fail(at, "the shape tree is nested deeper than " + std::to_string(kMaxShapeDepth) + " levels");
    if (!j.is_object()) f_.fail(at, "expected a shape object, got " + json_type_name(j));
    const std::string type = f_.string(f_.require(j, at, "type"), at + ".type");
    const std::string label = j.contains("name") ? f_.string(j["name"], at + ".name") : at;
    if (j.contains("name") && label.size() > kMaxNameLength)
      f_.fail(at + ".name", "is " + std::to_string(label.size()) + " characters long, above the limit of " +
                                std::to_string(kMaxNameLength));
    if (type == "box") return box<D>(j, at, label);
    if (type == "ball" || type == "disk" || type == "sphere") {
      if (type == "disk" && D != 2) wrong_dim(at, type, 2);
      if (type == "sphere" && D != 3) wrong_dim(at, type, 3);
      f_.only(j, at, {"type", "center", "radius"});
      const Vec<D> c = f_.vec<D>(f_.require(j, at, "center"), at + ".center");
      return make_ball<D>(c, f_.positive(f_.require(j, at, "radius"), at + ".radius"), label);
    }
    if (type == "polygon") {
      if constexpr (D != 2) wrong_dim(at, type, 2);
      else return polygon(j, at, label);
    }
    if (type == "mesh") {
      if constexpr (D == 2) return planar_mesh(j, at, label);
      else return mesh(j, at, label);
    }
    if (type == "cad") {
      if constexpr (D == 2) return planar_cad(j, at, label);
      else return cad(j, at, label);
    }
    if (type == "union" || type == "intersection" || type == "difference") return csg<D>(j, at, type, depth);
    if (type == "translate" || type == "scale" || type == "rotate") return transform<D>(j, at, type, depth);
    f_.fail(at + ".type", "unknown shape \"" + shown(type) +
                              "\" (known: box, ball, disk, sphere, polygon, mesh, cad, union, intersection, difference, "
                              "translate, scale, rotate)");
  }

  std::vector<std::string> take_repairs() { return std::move(repairs_); }

 private:
  [[noreturn]] void wrong_dim(const std::string& at, const std::string& type, int shape_dim) const {
    f_.fail(at + ".type", type + " is a " + std::to_string(shape_dim) + "D shape but the file has dim " +
                              std::to_string(f_.dim()));
  }

  template <int D>
  ShapePtr<D> box(const json& j, const std::string& at, const std::string& label) const {
    f_.only(j, at, {"type", "min", "max"});
    const Vec<D> lo = f_.vec<D>(f_.require(j, at, "min"), at + ".min");
    const Vec<D> hi = f_.vec<D>(f_.require(j, at, "max"), at + ".max");
    if (!(hi.array() > lo.array()).all()) f_.fail(at + ".max", "must exceed min in every coordinate");
    return make_box<D>(lo, hi, label);
  }

  ShapePtr<2> polygon(const json& j, const std::string& at, const std::string& label) const {
    f_.only(j, at, {"type", "points", "holes", "edge_names"});
    std::vector<std::vector<Vec<2>>> rings;
    std::vector<RingEdgeNames> edge_names;
    std::size_t vertices = 0;  // so far, in all rings
    ring(j, at, rings, edge_names, vertices);
    if (j.contains("holes")) {
      const json& holes = j["holes"];
      if (!holes.is_array()) f_.fail(at + ".holes", "expected an array of rings, got " + json_type_name(holes));
      for (std::size_t i = 0; i < holes.size(); ++i) {
        const std::string hole = at + ".holes[" + std::to_string(i) + "]";
        if (!holes[i].is_object()) {
          rings.push_back(read_polygon_ring(f_, holes[i], hole, vertices));
          edge_names.emplace_back();
          continue;
        }
        f_.only(holes[i], hole, {"points", "edge_names"});
        if (holes[i].contains("name"))
          f_.fail(hole + ".name", "a hole has no name of its own (its part is the polygon's \"holeK\"): name its edges "
                                  "with edge_names");
        ring(holes[i], hole, rings, edge_names, vertices);
      }
    }
    if (const auto x = find_ring_crossing(rings))
      f_.fail(at, "the polygon's rings cross or touch at (" + number_text(x->x()) + ", " + number_text(x->y()) +
                      "): the outline must not cross itself, nor a hole cross the outline or another hole");
    return make_polygon(std::move(rings), label, std::move(edge_names));
  }

  // The ring of object j (the polygon's "points", or a hole given as an object), with its edge names.
  void ring(const json& j, const std::string& at, std::vector<std::vector<Vec<2>>>& rings,
            std::vector<RingEdgeNames>& edge_names, std::size_t& vertices) const {
    std::vector<std::size_t> vertex_of_point;
    rings.push_back(read_polygon_ring(f_, f_.require(j, at, "points"), at + ".points", vertices, &vertex_of_point));
    edge_names.push_back(j.contains("edge_names") ? read_edge_names(f_, j["edge_names"], at + ".edge_names",
                                                                    vertex_of_point, rings.back().size())
                                                  : RingEdgeNames{});
  }

  MeshOptions mesh_options(const json& j, const std::string& at) const {
    MeshOptions options;
    if (j.contains("accelerate")) {
      if (!j["accelerate"].is_boolean())
        f_.fail(at + ".accelerate", "expected true or false, got " + json_type_name(j["accelerate"]));
      options.accelerate = j["accelerate"].get<bool>();
    }
    if (j.contains("repair")) {
      const std::string repair = f_.string(j["repair"], at + ".repair");
      if (repair != "auto" && repair != "none")
        f_.fail(at + ".repair", "expected \"auto\" or \"none\", got \"" + shown(repair) + "\"");
      options.repair = repair == "auto";
    }
    if (j.contains("max_hole")) {
      options.max_hole = f_.number(j["max_hole"], at + ".max_hole");
      if (!(options.max_hole >= 0)) f_.fail(at + ".max_hole", "must be 0 or more (a border length in the mesh's units)");
      if (!options.repair) f_.fail(at + ".max_hole", "applies to \"repair\": \"auto\" only");
    }
    if (j.contains("feature_angle")) {
      options.feature_angle = f_.number(j["feature_angle"], at + ".feature_angle");
      if (!(options.feature_angle >= 0 && options.feature_angle <= 180))
        f_.fail(at + ".feature_angle", "must be from 0 to 180 degrees (180: no edge is sharp)");
    }
    return options;
  }

  ShapePtr<3> mesh(const json& j, const std::string& at, const std::string& label) {
    f_.only(j, at, {"type", "file", "accelerate", "repair", "max_hole", "feature_angle"});
    const std::string file = mesh_file(j, at);
    const MeshOptions options = mesh_options(j, at);
    return loaded(at, label, file, "mesh", [&](std::vector<std::string>& notes) { return make_mesh(file, label, options, notes, meshes_); });
  }

  // The mesh file `j` names, resolved and checked before a reader parses it (mesh_file_check.hpp).
  std::string mesh_file(const json& j, const std::string& at) const {
    const std::string file = f_.resolve(f_.require(j, at, "file"), at + ".file");
    try {
      check_mesh_file(file);
    } catch (const InputFileError& e) {
      f_.fail(at + ".file", describe_input_file_error("mesh", file, e));
    }
    return file;
  }

  // What `make(notes)` loads from `file` ("mesh" or "CAD" says what it is), its notes kept under its
  // label; whatever it throws is the error at `at`.file.
  template <class Make>
  std::invoke_result_t<Make&, std::vector<std::string>&> loaded(const std::string& at, const std::string& label,
                                                                 const std::string& file, const std::string& what, Make make) {
    try {
      std::vector<std::string> notes;
      auto leaf = make(notes);
      for (const std::string& note : notes) repairs_.push_back(label + ": " + note);
      return leaf;
    } catch (const std::bad_alloc&) {
      f_.fail(at + ".file", "out of memory loading " + what + " file " + file);
    } catch (const InputFileError& e) {
      f_.fail(at + ".file", describe_input_file_error(what, file, e));
    } catch (const std::exception& e) {
      f_.fail(at + ".file", e.what());
    }
  }

  // A mesh in a 2D domain file: the region its faces cover in their plane (planar_mesh.hpp), a polygon
  // whose rings are its border loops.
  ShapePtr<2> planar_mesh(const json& j, const std::string& at, const std::string& label) {
    f_.only(j, at, {"type", "file"});
    const std::string file = mesh_file(j, at);
    PlanarMesh flat = loaded(at, label, file, "mesh", [&](std::vector<std::string>& notes) {
      PlanarMesh read = read_planar_mesh(file);
      notes.push_back("a 2D mesh in " + read.plane);
      return read;
    });
    if (const auto x = find_ring_crossing(flat.rings))
      f_.fail(at + ".file", "mesh " + file + " has border loops that cross or touch at (" + number_text(x->x()) + ", " +
                                number_text(x->y()) + ")");
    return make_polygon(std::move(flat.rings), label);
  }

  // A "cad" shape's file (checked to be of a CAD format) and options.
  std::pair<std::string, CadOptions> cad_file(const json& j, const std::string& at) const {
    f_.only(j, at, {"type", "file", "unit", "tolerance"});
    const std::string file = f_.resolve(f_.require(j, at, "file"), at + ".file");
    CadOptions options;
    options.isolated = f_.isolate_reads();
    if (j.contains("unit")) {
      options.unit = f_.string(j["unit"], at + ".unit");
      if (!is_cad_unit(options.unit)) f_.fail(at + ".unit", "expected one of m, cm, mm, in");
    }
    if (j.contains("tolerance")) options.tolerance = f_.positive(j["tolerance"], at + ".tolerance");
    if (!is_cad_file(file)) f_.fail(at + ".file", "is not a CAD file nodegen reads (.step, .stp, .iges, .igs, .brep)");
    return {file, options};
  }

  ShapePtr<3> cad(const json& j, const std::string& at, const std::string& label) {
    const auto read = cad_file(j, at);  // not a structured binding: the lambda below captures it
    const std::string& file = read.first;
    const CadOptions& options = read.second;
    return loaded(at, label, file, "CAD", [&](std::vector<std::string>& notes) { return make_cad(file, label, options, notes, meshes_); });
  }

  // A CAD file in a 2D domain file: its one planar face (cad_face.hpp), a polygon whose edges are parts.
  ShapePtr<2> planar_cad(const json& j, const std::string& at, const std::string& label) {
    const auto given = cad_file(j, at);  // not a structured binding: the lambda below captures it
    const std::string& file = given.first;
    const CadOptions& options = given.second;
    CadFace face = loaded(at, label, file, "CAD", [&](std::vector<std::string>& notes) {
      CadFace read = read_cad_face(file, options, notes);
      notes.push_back("a 2D CAD face in " + read.plane);
      return read;
    });
    if (const auto x = find_ring_crossing(face.rings))
      f_.fail(at + ".file", "CAD file " + file + " has wires that cross or touch at (" + number_text(x->x()) + ", " +
                                number_text(x->y()) + ")");
    return make_polygon(std::move(face.rings), label, std::move(face.edge_names));
  }

  template <int D>
  ShapePtr<D> csg(const json& j, const std::string& at, const std::string& type, int depth) {
    f_.only(j, at, {"type", "children"});
    const json& kids = f_.require(j, at, "children");
    if (!kids.is_array()) f_.fail(at + ".children", "expected an array of shapes, got " + json_type_name(kids));
    const std::size_t need = type == "difference" ? 2 : 1;
    if (kids.size() < need) f_.fail(at + ".children", type + " needs at least " + std::to_string(need) + " children");
    std::vector<ShapePtr<D>> children;
    for (std::size_t i = 0; i < kids.size(); ++i)
      children.push_back(shape<D>(kids[i], at + ".children[" + std::to_string(i) + "]", depth + 1));
    const CsgOp op = type == "union" ? CsgOp::union_ : type == "intersection" ? CsgOp::intersection : CsgOp::difference;
    check_overlap_cost<D>(op, children, at);
    return make_csg<D>(op, std::move(children));
  }

  // A boundary node of one child of a CSG node is kept or dropped by asking the children whose boxes
  // hold it (an intersection: all of them), so placing the boundary costs about (nodes) x (children
  // overlapping each child): linear in the nodes while children overlap a few others each, quadratic in
  // the children where they all overlap. Pairs of children whose boxes overlap are held to
  // kMaxOverlapPairs, or 32 per child for nodes of very many children.
  template <int D>
  void check_overlap_cost(CsgOp op, const std::vector<ShapePtr<D>>& children, const std::string& at) const {
    constexpr std::size_t kMaxOverlapPairs = std::size_t{1} << 20;
    const std::size_t k = children.size();
    const std::size_t limit = std::max(kMaxOverlapPairs, 32 * k);
    std::size_t pairs = 0;
    if (op == CsgOp::intersection) {
      pairs = k * (k - 1) / 2;
    } else {
      std::vector<Box<D>> boxes;
      boxes.reserve(k);
      for (const auto& c : children) boxes.push_back(c->bounds());
      pairs = BoxHierarchy<D>(std::move(boxes)).overlapping_pairs(limit);
    }
    if (pairs <= limit) return;
    if (op == CsgOp::intersection)
      f_.fail(at + ".children", "an intersection of " + std::to_string(k) + " children asks each of them at every boundary node: " +
                                    std::to_string(pairs) + " pairs, above " + std::to_string(limit) +
                                    " (the boundary's cost grows with the pairs)");
    f_.fail(at + ".children", std::to_string(k) + " children whose boxes overlap in more than " + std::to_string(limit) +
                                  " pairs (a boundary node of one child is tested against every child overlapping it, so "
                                  "the boundary's cost grows with the pairs)");
  }

  template <int D>
  ShapePtr<D> transform(const json& j, const std::string& at, const std::string& type, int depth) {
    Affine<D> t;
    if (type == "translate") {
      f_.only(j, at, {"type", "offset", "child"});
      t.b = f_.vec<D>(f_.require(j, at, "offset"), at + ".offset");
    } else if (type == "scale") {
      f_.only(j, at, {"type", "factor", "child"});
      const json& f = f_.require(j, at, "factor");
      const Vec<D> s = f.is_array() ? f_.vec<D>(f, at + ".factor") : Vec<D>::Constant(f_.number(f, at + ".factor"));
      if (!(s.array() != 0.0).all()) f_.fail(at + ".factor", "must be non-zero");
      t.A = s.asDiagonal();
    } else {
      f_.only(j, at, {"type", "angle", "axis", "child"});
      t.A = rotation<D>(j, at);
    }
    return make_transform<D>(t, shape<D>(f_.require(j, at, "child"), at + ".child", depth + 1));
  }

  template <int D>
  Eigen::Matrix<double, D, D> rotation(const json& j, const std::string& at) const {
    const double a = f_.number(f_.require(j, at, "angle"), at + ".angle") * std::numbers::pi / 180.0;
    if constexpr (D == 2) {
      if (j.contains("axis")) f_.fail(at + ".axis", "a 2D rotation has no axis (it turns about the origin)");
      Eigen::Matrix2d r;
      r << std::cos(a), -std::sin(a), std::sin(a), std::cos(a);
      return r;
    } else {
      // Scaled by its largest component first: the norm of [1e-300, 0, 0] underflows to 0.
      Vec<3> axis = f_.vec<3>(f_.require(j, at, "axis"), at + ".axis");
      const double largest = axis.cwiseAbs().maxCoeff();
      if (!(largest > 0)) f_.fail(at + ".axis", "must be non-zero");
      axis /= largest;
      return Eigen::AngleAxisd(a, axis.normalized()).toRotationMatrix();
    }
  }

  const JsonFields& f_;
  std::vector<std::string> repairs_;
  MeshCache meshes_;  // meshes loaded so far, shared by the leaves that name them again
};

}  // namespace

template <int D>
ReadShape<D> read_shape(const JsonFields& fields, const json& shape_json) {
  ShapeTreeReader reader(fields);
  ShapePtr<D> shape = reader.shape<D>(shape_json, "shape");
  std::vector<std::string> names;
  shape->register_parts(names);
  const Box<D> box = shape->bounds();
  // Squared distances must stay finite: at 1e160 they overflowed to inf, no candidate was ever too
  // close, and the fill piled nodes onto the same points until it seemed to hang.
  if (box.reach() > kMaxCoordinate)
    fields.fail("shape", "its bounding box reaches " + number_text(box.reach()) + ", beyond the " +
                             number_text(kMaxCoordinate) + " that squared distances allow; rescale the domain");
  if (box.empty() || !(box.volume() > 0)) fields.fail("shape", "the shape is empty (its bounding box has no volume)");
  auto domain = std::make_shared<const Domain<D>>(std::move(shape), std::move(names));
  if (!(domain->measure() > 0))
    fields.fail("shape", "the shape is empty (no inside point found on grids over its box and its parts' boxes)");
  return {std::move(domain), reader.take_repairs()};
}

template ReadShape<2> read_shape<2>(const JsonFields&, const json&);
template ReadShape<3> read_shape<3>(const JsonFields&, const json&);

}  // namespace nodegen
