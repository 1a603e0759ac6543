// Planar meshes in 2D domain files (geometry/mesh/planar_mesh.hpp): the region a mesh's faces cover
// with its border loops as rings (outline and hole as parts), from an OBJ at z = 0, an STL soup of the
// same faces, and a copy turned into another plane (the note says which); the same nodes at 1, 2 and
// 7 threads; meshes that are not planar, touch themselves or have no border refused naming the file.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/input/fill_domain.hpp"
#include "support/geometry_test_support.hpp"
#include "support/temp_dir.hpp"

namespace nodegen {
namespace {

using test::domain_of;
using Triangle = std::array<std::array<double, 3>, 3>;

// The unit square as a 10 x 10 grid of cells, two triangles each, without the cells of [0.4, 0.6]^2.
std::vector<Triangle> holed_plate() {
  std::vector<Triangle> out;
  for (int j = 0; j < 10; ++j)
    for (int i = 0; i < 10; ++i) {
      if (i >= 4 && i < 6 && j >= 4 && j < 6) continue;
      const double x0 = i / 10.0, x1 = (i + 1) / 10.0, y0 = j / 10.0, y1 = (j + 1) / 10.0;
      out.push_back({{{x0, y0, 0}, {x1, y0, 0}, {x1, y1, 0}}});
      out.push_back({{{x0, y0, 0}, {x1, y1, 0}, {x0, y1, 0}}});
    }
  return out;
}

void write_obj(const std::filesystem::path& file, const std::vector<Triangle>& triangles) {
  std::ofstream out(file);
  out.precision(17);
  for (const auto& t : triangles)
    for (const auto& p : t) out << "v " << p[0] << " " << p[1] << " " << p[2] << "\n";
  for (std::size_t k = 0; k < triangles.size(); ++k) out << "f " << 3 * k + 1 << " " << 3 * k + 2 << " " << 3 * k + 3 << "\n";
}

void write_stl(const std::filesystem::path& file, const std::vector<Triangle>& triangles) {
  std::ofstream out(file);
  out.precision(17);
  out << "solid plate\n";
  for (const auto& t : triangles) {
    out << "facet normal 0 0 1\nouter loop\n";
    for (const auto& p : t) out << "vertex " << p[0] << " " << p[1] << " " << p[2] << "\n";
    out << "endloop\nendfacet\n";
  }
  out << "endsolid plate\n";
}

DomainFile load(const std::filesystem::path& dir, const std::string& mesh) {
  std::ofstream(dir / "plate.json") << R"({"dim":2,"spacing":0.025,"shape":{"type":"mesh","name":"plate","file":")" << mesh
                                    << "\"}}";
  return load_domain_file(dir / "plate.json");
}

TEST(PlanarMesh, AHoledPlateIsItsRegionWithTheOutlineAndTheHoleAsParts) {
  const test::TempDir dir("planar");
  write_obj(dir / "plate.obj", holed_plate());
  const DomainFile f = load(dir.path(), "plate.obj");
  const auto& d = *domain_of<2>(f);
  EXPECT_EQ(d.boundary_names(), (std::vector<std::string>{"plate:outer", "plate:hole1"}));
  EXPECT_EQ(f.repairs, std::vector<std::string>{"plate: a 2D mesh in the plane z = 0, coordinates x and y"});
  EXPECT_TRUE(d.contains(Vec<2>(0.2, 0.3)));
  EXPECT_FALSE(d.contains(Vec<2>(0.5, 0.5)));
  EXPECT_FALSE(d.contains(Vec<2>(1.2, 0.5)));
  for (const auto& n : d.boundary_nodes(f.spacing, 2)) {
    const Vec<2> p = n.pos;
    const bool outer = std::min({p[0], p[1], 1 - p[0], 1 - p[1]}) < 1e-12;
    const bool hole = std::max(std::abs(p[0] - 0.5), std::abs(p[1] - 0.5)) - 0.1 < 1e-12 &&
                      std::max(std::abs(p[0] - 0.5), std::abs(p[1] - 0.5)) - 0.1 > -1e-12;
    ASSERT_TRUE(n.boundary_id == 1 ? outer : hole) << p.transpose() << " of part " << n.boundary_id;
  }
  FillOptions options;
  options.threads = 1;
  const auto one = std::get<Discretization<2>>(fill_domain(f, options));
  for (int threads : {2, 7}) {
    options.threads = threads;
    EXPECT_EQ(std::get<Discretization<2>>(fill_domain(f, options)).positions, one.positions) << threads << " threads";
  }
}

TEST(PlanarMesh, AnStlSoupAndATurnedCopyGiveTheSameRegion) {
  const test::TempDir dir("planar");
  write_obj(dir / "plate.obj", holed_plate());
  write_stl(dir / "plate.stl", holed_plate());
  std::vector<Triangle> turned = holed_plate();
  const double c = std::cos(0.3), s = std::sin(0.3);
  for (auto& t : turned)
    for (auto& p : t) p = {p[0], c * p[1], s * p[1]};
  write_obj(dir / "turned.obj", turned);
  std::vector<Triangle> far = turned;  // far from the origin, in float precision (an STL's)
  for (auto& t : far)
    for (auto& p : t)
      for (double& x : p) x = static_cast<float>(x + 1000.0);
  write_stl(dir / "far.stl", far);
  EXPECT_EQ(domain_of<2>(load(dir.path(), "far.stl"))->boundary_names().size(), 2u);
  const DomainFile obj = load(dir.path(), "plate.obj"), stl = load(dir.path(), "plate.stl"), tilt = load(dir.path(), "turned.obj");
  EXPECT_EQ(domain_of<2>(stl)->boundary_nodes(stl.spacing, 2).size(), domain_of<2>(obj)->boundary_nodes(obj.spacing, 2).size());
  EXPECT_NE(tilt.repairs.front().find("a 2D mesh in the plane through (0, 0, 0) with normal"), std::string::npos)
      << tilt.repairs.front();
  EXPECT_EQ(domain_of<2>(tilt)->boundary_names().size(), 2u);
  const Box<2> box = domain_of<2>(tilt)->bounding_box();
  EXPECT_NEAR((box.hi - box.lo).prod(), 1.0, 1e-9);  // the unit square turned into its plane
}

void expect_refused(const std::filesystem::path& dir, const std::vector<Triangle>& triangles, const std::string& piece) {
  write_obj(dir / "bad.obj", triangles);
  try {
    load(dir, "bad.obj");
    ADD_FAILURE() << "accepted; expected: " << piece;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(piece), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bad.obj"), std::string::npos) << e.what();
  }
}

TEST(PlanarMesh, MeshesThatAreNotOneFlatRegionAreRefused) {
  const test::TempDir dir("planar");
  std::vector<Triangle> bent = holed_plate();
  bent.push_back({{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}});
  expect_refused(dir.path(), bent, "is not planar");
  // Two squares that share one corner.
  expect_refused(dir.path(), {{{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}}, {{{0, 0, 0}, {1, 1, 0}, {0, 1, 0}}},
                              {{{1, 1, 0}, {2, 1, 0}, {2, 2, 0}}}, {{{1, 1, 0}, {2, 2, 0}, {1, 2, 0}}}},
                 "border loops that touch at (1, 1, 0)");
  // Three triangles on one edge.
  expect_refused(dir.path(), {{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}}, {{{0, 0, 0}, {1, 0, 0}, {0, -1, 0}}},
                              {{{0, 0, 0}, {1, 0, 0}, {0.5, 0.5, 0}}}},
                 "an edge of 3 faces");
  expect_refused(dir.path(), {{{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}}}, "has no area");
}

}  // namespace
}  // namespace nodegen
