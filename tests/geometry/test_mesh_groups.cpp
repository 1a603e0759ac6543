// Mesh face groups as boundary parts: OBJ groups and objects, PLY face labels (ASCII and binary), their
// order in boundary_names, every node on a face of its group (polygons cut into triangles, shells that
// overlap, holes closed by the repair), the same nodes as the mesh without groups, leaves sharing one
// loaded mesh, the distance to a group, and group names or counts beyond the limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Geometry>

#include "support/geometry_test_support.hpp"
#include "support/mesh_test_shapes.hpp"
#include "support/temp_dir.hpp"

namespace nodegen {
namespace {

using test::domain_of;

// A face of a mesh the tests write: its corners (counter-clockwise seen from outside) and group.
struct Face {
  std::vector<Vec<3>> corners;
  std::string group;  // "" for none
};

// The six faces of the box [lo, hi] as quads, outward, named by `group(axis, side)`.
template <class Group>
std::vector<Face> box_faces(const Vec<3>& lo, const Vec<3>& hi, Group group) {
  std::vector<Face> out;
  for (int axis = 0; axis < 3; ++axis)
    for (int side = 0; side < 2; ++side) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      Face f{{}, group(axis, side)};
      for (const auto& [du, dv] : {std::pair{0, 0}, {1, 0}, {1, 1}, {0, 1}}) {
        Vec<3> p = lo;
        p[axis] = side ? hi[axis] : lo[axis];
        p[u] = du ? hi[u] : lo[u];
        p[v] = dv ? hi[v] : lo[v];
        f.corners.push_back(p);
      }
      if (!side) std::reverse(f.corners.begin(), f.corners.end());
      out.push_back(f);
    }
  return out;
}

// Each quad as two triangles, in the same group.
std::vector<Face> as_triangles(const std::vector<Face>& faces) {
  std::vector<Face> out;
  for (const Face& f : faces)
    for (std::size_t k = 1; k + 1 < f.corners.size(); ++k) out.push_back({{f.corners[0], f.corners[k], f.corners[k + 1]}, f.group});
  return out;
}

// An OBJ with one `g` line wherever the group changes (`o` lines instead when `objects`); faces of no
// group come before any line. Corners at one position are one vertex.
void write_obj(const std::filesystem::path& path, const std::vector<Face>& faces, bool objects = false) {
  std::map<std::array<double, 3>, std::size_t> index;
  std::ostringstream vertices, lines;
  vertices.precision(17);
  std::string current;
  for (const Face& f : faces) {
    if (f.group != current) lines << (objects ? "o " : "g ") << f.group << "\n";
    current = f.group;
    lines << "f";
    for (const Vec<3>& p : f.corners) {
      const auto [it, fresh] = index.emplace(std::array<double, 3>{p[0], p[1], p[2]}, index.size() + 1);
      if (fresh) vertices << "v " << p.transpose() << "\n";
      lines << " " << it->second;
    }
    lines << "\n";
  }
  std::ofstream(path) << vertices.str() << lines.str();
}

// A PLY of triangles with an integer face property `label` of type `type` (the groups are numbers).
void write_ply(const std::filesystem::path& path, const std::vector<Face>& faces, bool binary, const std::string& type) {
  std::ofstream out(path, std::ios::binary);
  const std::size_t n = faces.size();
  out << "ply\nformat " << (binary ? "binary_little_endian" : "ascii") << " 1.0\nelement vertex " << 3 * n
      << "\nproperty double x\nproperty double y\nproperty double z\nelement face " << n
      << "\nproperty list uchar int vertex_indices\nproperty " << type << " label\nend_header\n";
  out.precision(17);
  for (const Face& f : faces)
    for (const Vec<3>& p : f.corners) {
      if (binary) out.write(reinterpret_cast<const char*>(p.data()), 24);
      else out << p.transpose() << "\n";
    }
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t label = std::stoi(faces[i].group);
    if (!binary) {
      out << "3 " << 3 * i << " " << 3 * i + 1 << " " << 3 * i + 2 << " " << label << "\n";
      continue;
    }
    const std::uint8_t three = 3;
    out.write(reinterpret_cast<const char*>(&three), 1);
    for (std::int32_t k = 0; k < 3; ++k) {
      const std::int32_t index = static_cast<std::int32_t>(3 * i) + k;
      out.write(reinterpret_cast<const char*>(&index), 4);
    }
    const std::uint16_t short_label = static_cast<std::uint16_t>(label);
    if (type == "ushort") out.write(reinterpret_cast<const char*>(&short_label), 2);
    else out.write(reinterpret_cast<const char*>(&label), 4);
  }
}

DomainFile load(const std::filesystem::path& dir, const std::string& shape, const std::string& spacing = "0.1") {
  std::ofstream(dir / "groups.json") << R"({"dim":3,"spacing":)" << spacing << R"(,"shape":)" << shape << "}";
  return load_domain_file(dir / "groups.json");
}

// Whether p lies on the (planar, convex) face: within tol of its plane and inside its edges.
bool on_face(const Vec<3>& p, const Face& f, double tol = 1e-9) {
  const auto& c = f.corners;
  const Vec<3> n = (c[1] - c[0]).cross(c[2] - c[0]).normalized();
  if (std::abs(n.dot(p - c[0])) > tol) return false;
  for (std::size_t k = 0; k < c.size(); ++k)
    if ((c[(k + 1) % c.size()] - c[k]).cross(p - c[k]).dot(n) < -tol) return false;
  return true;
}

// Every node lies on a face of its part's group (the part named LABEL:GROUP, or LABEL:surface for
// faces of no group); each part has nodes.
void expect_nodes_on_their_groups(const Domain<3>& d, const std::vector<BoundaryNode<3>>& nodes,
                                  const std::vector<Face>& faces, const std::string& label) {
  std::vector<int> count(d.boundary_names().size() + 1, 0);
  for (const auto& n : nodes) {
    const std::string part = d.boundary_names()[static_cast<std::size_t>(n.boundary_id) - 1];
    if (part.rfind(label + ":", 0) != 0) continue;
    const std::string group = part.substr(label.size() + 1);
    ++count[static_cast<std::size_t>(n.boundary_id)];
    const bool on = std::any_of(faces.begin(), faces.end(), [&](const Face& f) {
      return (f.group.empty() ? "surface" : f.group) == group && on_face(n.pos, f);
    });
    ASSERT_TRUE(on) << n.pos.transpose() << " of part " << part;
  }
  for (std::size_t id = 1; id < count.size(); ++id)
    if (d.boundary_names()[id - 1].rfind(label + ":", 0) == 0) {
      EXPECT_GT(count[id], 10) << d.boundary_names()[id - 1];
    }
}

// Positions sorted, to compare node sets whose order follows their parts.
std::vector<std::array<double, 3>> sorted_positions(const std::vector<BoundaryNode<3>>& nodes) {
  std::vector<std::array<double, 3>> out;
  for (const auto& n : nodes) out.push_back({n.pos[0], n.pos[1], n.pos[2]});
  std::sort(out.begin(), out.end());
  return out;
}

// A duct [0, 3] x [0, 1] x [0, 1] grouped by side: its y = 0 side before any group line ("surface"),
// then inlet (x = 0), wall (the other sides), outlet (x = 3).
std::vector<Face> duct_faces() {
  auto faces = as_triangles(box_faces(Vec<3>(0, 0, 0), Vec<3>(3, 1, 1), [](int axis, int side) -> std::string {
    if (axis == 0) return side ? "outlet" : "inlet";
    return axis == 1 && side == 0 ? "" : "wall";
  }));
  auto rank = [](const Face& f) { return f.group.empty() ? 0 : f.group == "inlet" ? 1 : f.group == "wall" ? 2 : 3; };
  std::stable_sort(faces.begin(), faces.end(), [&](const Face& a, const Face& b) { return rank(a) < rank(b); });
  return faces;
}

TEST(MeshGroups, ObjGroupsArePartsWithTheSameNodesAsWithout) {
  const test::TempDir dir("groups");
  const auto faces = duct_faces();
  write_obj(dir / "duct.obj", faces);
  std::vector<Face> plain = faces;
  for (Face& f : plain) f.group.clear();
  write_obj(dir / "plain.obj", plain);
  const DomainFile f = load(dir.path(), R"({"type":"mesh","name":"duct","file":"duct.obj"})");
  const auto& d = *domain_of<3>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"duct:surface", "duct:inlet", "duct:wall", "duct:outlet"}));
  const auto nodes = d.boundary_nodes(f.spacing, 4);
  expect_nodes_on_their_groups(d, nodes, faces, "duct");
  // Only the ids differ from the mesh without groups, which is one part as before.
  const DomainFile g = load(dir.path(), R"({"type":"mesh","name":"duct","file":"plain.obj"})");
  ASSERT_EQ(domain_of<3>(g)->boundary_names(), (std::vector<std::string>{"duct:surface"}));
  EXPECT_EQ(sorted_positions(domain_of<3>(g)->boundary_nodes(g.spacing, 4)), sorted_positions(nodes));
  // The distance to a group measures to its faces alone.
  DistanceField::Hint hint;
  EXPECT_NEAR(d.distance_field("duct:inlet")->distance(1.5, 0.5, 0.5, hint), 1.5, 1e-12);
  EXPECT_NEAR(d.distance_field("duct:wall")->distance(1.5, 0.5, 0.3, hint), 0.3, 1e-12);
  EXPECT_NEAR(d.distance_field("duct:surface")->distance(1.5, 0.2, 0.5, hint), 0.2, 1e-12);
}

// A face is in the group of the latest `g` since the latest `o`, else in that `o`'s object: an `o` line
// ends the group before it, and a `g` without a name too.
TEST(MeshGroups, ObjGroupsBelongToTheirObject) {
  const test::TempDir dir("groups");
  const auto faces = box_faces(Vec<3>(0, 0, 0), Vec<3>(1, 1, 1), [](int, int) { return ""; });  // x-, x+, y-, y+, z-, z+
  std::ostringstream obj;
  for (int bits = 0; bits < 8; ++bits) obj << "v " << (bits & 1) << " " << (bits >> 1 & 1) << " " << (bits >> 2) << "\n";
  auto face = [&](int k) {
    obj << "f";
    for (const Vec<3>& p : faces[static_cast<std::size_t>(k)].corners)
      obj << " " << 1 + static_cast<int>(p[0]) + 2 * static_cast<int>(p[1]) + 4 * static_cast<int>(p[2]);
    obj << "\n";
  };
  obj << "o body\n";
  face(0);
  obj << "g top\n";
  face(5);
  obj << "o lid\n";
  face(1);
  obj << "g \r\n";
  face(2);
  obj << "g side\n";
  face(3);
  face(4);
  std::ofstream(dir / "cube.obj") << obj.str();
  const DomainFile f = load(dir.path(), R"({"type":"mesh","name":"c","file":"cube.obj"})");
  const auto& d = *domain_of<3>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"c:body", "c:top", "c:lid", "c:side"}));
  std::vector<Face> named = faces;
  const char* groups[6] = {"body", "lid", "lid", "side", "side", "top"};
  for (std::size_t k = 0; k < 6; ++k) named[k].group = groups[k];
  expect_nodes_on_their_groups(d, d.boundary_nodes(f.spacing, 8), named, "c");
}

// Polygons are cut into triangles by CGAL: a prism of 24 sides whose caps are single polygons. Each
// triangle of a cap lies on its cap (the cap's centre is farther from a triangle at its rim than the
// side's quads are), and each node keeps its group.
TEST(MeshGroups, PolygonFacesKeepTheirGroups) {
  const test::TempDir dir("groups");
  constexpr int n = 24;
  auto rim = [](int k, double z) {
    const double a = 2 * std::numbers::pi * (k % n) / n;
    return Vec<3>(std::cos(a), std::sin(a), z);
  };
  std::vector<Face> faces(2);
  faces[0].group = "top";
  faces[1].group = "bottom";
  for (int k = 0; k < n; ++k) {
    faces[0].corners.push_back(rim(k, 0.4));
    faces[1].corners.push_back(rim(n - k, 0));
    faces.push_back({{rim(k, 0), rim(k + 1, 0), rim(k + 1, 0.4), rim(k, 0.4)}, "side"});
  }
  write_obj(dir / "prism.obj", faces);
  const DomainFile f = load(dir.path(), R"({"type":"mesh","name":"prism","file":"prism.obj"})", "0.05");
  const auto& d = *domain_of<3>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"prism:top", "prism:bottom", "prism:side"}));
  expect_nodes_on_their_groups(d, d.boundary_nodes(f.spacing, 2), faces, "prism");
}

// Two boxes that overlap, as two objects of one soup: decided by the winding number, each box's nodes
// outside the other carry its part.
TEST(MeshGroups, ObjObjectsThatOverlap) {
  const test::TempDir dir("groups");
  auto faces = as_triangles(box_faces(Vec<3>(0, 0, 0), Vec<3>(1, 1, 1), [](int, int) { return "A"; }));
  for (const Face& f : as_triangles(box_faces(Vec<3>(0.5, 0.25, 0.25), Vec<3>(1.5, 0.75, 0.75), [](int, int) { return "B"; })))
    faces.push_back(f);
  write_obj(dir / "two.obj", faces, true);
  const DomainFile f = load(dir.path(), R"({"type":"mesh","name":"two","file":"two.obj"})");
  const auto& d = *domain_of<3>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"two:A", "two:B"}));
  ASSERT_EQ(f.repairs.back(), "two: inside test: generalized winding number (the surface intersects or touches itself)");
  expect_nodes_on_their_groups(d, d.boundary_nodes(f.spacing, 3), faces, "two");
}

TEST(MeshGroups, PlyFaceLabelsAsciiAndBinary) {
  const test::TempDir dir("groups");
  const auto faces = as_triangles(box_faces(Vec<3>(0, 0, 0), Vec<3>(1, 2, 1), [](int axis, int) {
    return axis == 0 ? "7" : "-2";
  }));
  for (const auto& [binary, type] : {std::pair{false, "int"}, {true, "int"}, {true, "ushort"}}) {
    SCOPED_TRACE(std::string(binary ? "binary " : "ascii ") + type);
    write_ply(dir / "box.ply", faces, binary, type);
    const DomainFile f = load(dir.path(), R"({"type":"mesh","name":"box","file":"box.ply"})");
    const auto& d = *domain_of<3>(f);
    std::vector<Face> named = faces;
    if (std::string(type) == "ushort")
      for (Face& face : named) face.group = face.group == "-2" ? "65534" : face.group;
    ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"box:" + named[0].group, "box:" + named.back().group}));
    expect_nodes_on_their_groups(d, d.boundary_nodes(f.spacing, 5), named, "box");
  }
}

// Leaves that name one file share its loaded surface, each with its own parts.
TEST(MeshGroups, LeavesSharingAMeshHaveTheirOwnParts) {
  const test::TempDir dir("groups");
  const auto faces = duct_faces();
  write_obj(dir / "duct.obj", faces);
  const DomainFile f = load(dir.path(), R"({"type":"union","children":[
      {"type":"mesh","name":"a","file":"duct.obj"},
      {"type":"translate","offset":[0,0,2],"child":{"type":"mesh","name":"b","file":"duct.obj"}}]})");
  const auto& d = *domain_of<3>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"a:surface", "a:inlet", "a:wall", "a:outlet", "b:surface",
                                                          "b:inlet", "b:wall", "b:outlet"}));
  std::vector<Face> moved = faces;
  for (Face& face : moved)
    for (Vec<3>& p : face.corners) p[2] += 2;
  const auto nodes = d.boundary_nodes(f.spacing, 6);
  expect_nodes_on_their_groups(d, nodes, faces, "a");
  expect_nodes_on_their_groups(d, nodes, moved, "b");
}

// A duct whose outlet is missing: the repair closes the hole, and its triangles take the group of the
// faces around it (all "wall").
TEST(MeshGroups, TrianglesClosingAHoleTakeTheNearestGroup) {
  const test::TempDir dir("groups");
  auto faces = duct_faces();
  std::erase_if(faces, [](const Face& f) { return f.group == "outlet"; });
  for (Face& face : faces)
    if (face.group.empty()) face.group = "wall";
  write_obj(dir / "open.obj", faces);
  const DomainFile f = load(dir.path(), R"({"type":"mesh","name":"duct","file":"open.obj"})");
  const auto& d = *domain_of<3>(f);
  ASSERT_EQ(d.boundary_names(), (std::vector<std::string>{"duct:wall", "duct:inlet"}));
  ASSERT_FALSE(f.repairs.empty());
  int closing = 0;
  for (const auto& n : d.boundary_nodes(f.spacing, 7))
    if (std::abs(n.pos[0] - 3) < 1e-9) {
      ++closing;
      EXPECT_EQ(n.boundary_id, 1) << n.pos.transpose();
    }
  EXPECT_GT(closing, 30);
}

// A group name or a count of groups beyond the limits is the mesh file's error.
TEST(MeshGroups, GroupsBeyondTheLimitsAreInputErrors) {
  const test::TempDir dir("groups");
  auto error_of = [&](const std::string& file) {
    try {
      load(dir.path(), R"({"type":"mesh","file":")" + file + R"("})");
    } catch (const InputError& e) {
      EXPECT_EQ(e.field(), "shape.file");
      return std::string(e.reason());
    }
    return std::string("no error");
  };
  auto faces = duct_faces();
  faces[3].group = std::string(257, 'n');
  write_obj(dir / "long.obj", faces);
  EXPECT_NE(error_of("long.obj").find("the group name is 257 characters long, above the limit of 256"), std::string::npos)
      << error_of("long.obj");
  faces[3].group = "in\rlet";  // a carriage return inside a name reached the output and a terminal
  write_obj(dir / "cr.obj", faces);
  EXPECT_NE(error_of("cr.obj").find("the group name holds the control character 0x0d"), std::string::npos) << error_of("cr.obj");
  const test::TriMesh sphere = test::icosphere(4);  // 5120 faces, each a group of its own
  std::ofstream obj(dir / "many.obj");
  for (const Vec<3>& p : sphere.v) obj << "v " << p.transpose() << "\n";
  for (std::size_t i = 0; i < sphere.f.size(); ++i)
    obj << "g face" << i << "\nf " << sphere.f[i][0] + 1 << " " << sphere.f[i][1] + 1 << " " << sphere.f[i][2] + 1 << "\n";
  obj.close();
  EXPECT_NE(error_of("many.obj").find("has more than 4096 face groups, the limit"), std::string::npos) << error_of("many.obj");
}

}  // namespace
}  // namespace nodegen
