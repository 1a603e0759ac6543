// Triangle-mesh domains: a tessellated sphere (a convex polyhedron, so the exact inside test is "behind
// every face plane") written in each supported format, read back through a domain file and compared
// point by point; errors for missing, unreadable and open meshes; surface nodes of the mesh, its sharp
// edges and smooth normals.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Geometry>

#include "support/geometry_test_support.hpp"
#include "support/mesh_test_shapes.hpp"
#include "support/sanitized_build.hpp"
#include "support/temp_dir.hpp"

namespace nodegen {
namespace {

using test::domain_of;

using test::icosphere;
using test::TriMesh;

// Exact truth for a convex polyhedron: the largest signed distance to a face plane. The planes are
// computed once: recomputing every face's normal for every sample took most of the inside tests' time
// (the tests' own truth, not nodegen), and far more in an unoptimised sanitizer build.
class ConvexPolyhedron {
 public:
  explicit ConvexPolyhedron(const TriMesh& m) {
    for (auto [a, b, c] : m.f) {
      const Vec<3> n = (m.v[b] - m.v[a]).cross(m.v[c] - m.v[a]).normalized();
      planes_.emplace_back(n, n.dot(m.v[a]));
    }
  }
  double sd(const Vec<3>& p) const {
    double worst = -1e300;
    for (const auto& [n, offset] : planes_) worst = std::max(worst, n.dot(p) - offset);
    return worst;
  }

 private:
  std::vector<std::pair<Vec<3>, double>> planes_;
};

void write_mesh(const TriMesh& m, const std::filesystem::path& path, const std::string& format) {
  if (format == "stl-binary") {
    std::ofstream out(path, std::ios::binary);
    char header[80] = {};
    std::strncpy(header, "nodegen test icosphere", sizeof header - 1);
    out.write(header, 80);
    const std::uint32_t n = static_cast<std::uint32_t>(m.f.size());
    out.write(reinterpret_cast<const char*>(&n), 4);
    for (auto [a, b, c] : m.f) {
      const Vec<3> nrm = (m.v[b] - m.v[a]).cross(m.v[c] - m.v[a]).normalized();
      float rec[12];
      for (int i = 0; i < 3; ++i) {
        rec[i] = static_cast<float>(nrm[i]);
        rec[3 + i] = static_cast<float>(m.v[a][i]);
        rec[6 + i] = static_cast<float>(m.v[b][i]);
        rec[9 + i] = static_cast<float>(m.v[c][i]);
      }
      out.write(reinterpret_cast<const char*>(rec), sizeof rec);
      const std::uint16_t attr = 0;
      out.write(reinterpret_cast<const char*>(&attr), 2);
    }
    return;
  }
  std::ofstream out(path);
  out.precision(17);
  if (format == "stl-ascii" || format == "stl-ascii-tab") {
    // After a blank line, "solid" and a tab: CGAL took that for binary (it wants a space or a line break).
    out << (format == "stl-ascii" ? "solid icosphere\n" : "\n solid\ticosphere\n");
    for (auto [a, b, c] : m.f) {
      const Vec<3> n = (m.v[b] - m.v[a]).cross(m.v[c] - m.v[a]).normalized();
      out << "facet normal " << n.transpose() << "\n outer loop\n";
      for (int i : {a, b, c}) out << "  vertex " << m.v[i].transpose() << "\n";
      out << " endloop\nendfacet\n";
    }
    out << "endsolid icosphere\n";
  } else if (format == "obj") {
    for (const auto& p : m.v) out << "v " << p.transpose() << "\n";
    for (auto [a, b, c] : m.f) out << "f " << a + 1 << " " << b + 1 << " " << c + 1 << "\n";
  } else if (format == "off") {
    out << "OFF\n" << m.v.size() << " " << m.f.size() << " 0\n";
    for (const auto& p : m.v) out << p.transpose() << "\n";
    for (auto [a, b, c] : m.f) out << "3 " << a << " " << b << " " << c << "\n";
  } else if (format == "ply") {
    out << "ply\nformat ascii 1.0\nelement vertex " << m.v.size()
        << "\nproperty double x\nproperty double y\nproperty double z\nelement face " << m.f.size()
        << "\nproperty list uchar int vertex_indices\nend_header\n";
    for (const auto& p : m.v) out << p.transpose() << "\n";
    for (auto [a, b, c] : m.f) out << "3 " << a << " " << b << " " << c << "\n";
  }
}

// `extra`: more fields of the mesh shape, such as R"(,"repair":"none")".
DomainFile load_mesh_domain(const std::filesystem::path& dir, const std::string& file, double h = 0.1,
                            const std::string& extra = "") {
  const auto json = dir / "mesh_domain.json";
  std::ofstream(json) << R"({"dim":3,"spacing":)" << h << R"(,"shape":{"type":"mesh","file":")" << file << R"(")"
                      << extra << "}}";
  return load_domain_file(json);
}

// Random points in the bounding cube plus a shell around the surface, where the voxel cache defers to CGAL.
void expect_inside_matches(const Domain<3>& domain, const TriMesh& m, double tolerance_of_format,
                           int samples = 60000) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.2, 1.2), shell(0.9, 1.05);
  int checked = 0;
  const ConvexPolyhedron truth(m);
  for (int k = 0; k < samples; ++k) {
    Vec<3> p(u(rng), u(rng), u(rng));
    if (k % 2) p = p.normalized() * shell(rng);
    const double sd = truth.sd(p);
    if (std::abs(sd) < tolerance_of_format) continue;
    ++checked;
    ASSERT_EQ(domain.contains(p), sd < 0) << "at " << p.transpose() << " sd " << sd;
  }
  EXPECT_GT(checked, samples * 5 / 6);
}

class MeshFormats : public ::testing::TestWithParam<std::string> {};

TEST_P(MeshFormats, InsideTestMatchesThePolyhedron) {
  const TriMesh m = icosphere(3);
  const test::TempDir tmp("mesh");
  const auto& dir = tmp.path();
  const std::string format = GetParam();
  const std::string file = "sphere_" + format + (format.rfind("stl", 0) == 0 ? ".stl" : "." + format);
  write_mesh(m, dir / file, format);
  const DomainFile f = load_mesh_domain(dir, file);
  // Binary STL stores floats: points within 1e-6 of a face may fall either way.
  expect_inside_matches(*domain_of<3>(f), m, format == "stl-binary" ? 1e-6 : 1e-12);
  EXPECT_NEAR(domain_of<3>(f)->measure(), 4.0 / 3.0 * std::numbers::pi, 0.1);
}

INSTANTIATE_TEST_SUITE_P(EveryFormat, MeshFormats, ::testing::Values("stl-ascii", "stl-ascii-tab", "stl-binary", "obj", "off", "ply"),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (c == '-') c = '_';
                           return s;
                         });

TEST(Mesh, VoxelCacheAnswersLikePlainCgal) {
  const TriMesh m = icosphere(2);
  const test::TempDir tmp("mesh");
  const auto& dir = tmp.path();
  write_mesh(m, dir / "cache.off", "off");
  std::ofstream(dir / "plain.json") << R"({"dim":3,"spacing":0.2,"shape":{"type":"mesh","file":"cache.off","accelerate":false}})";
  std::ofstream(dir / "cached.json") << R"({"dim":3,"spacing":0.2,"shape":{"type":"mesh","file":"cache.off"}})";
  const auto plain = domain_of<3>(load_domain_file(dir / "plain.json"));
  const auto cached = domain_of<3>(load_domain_file(dir / "cached.json"));
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1.1, 1.1);
  for (int k = 0; k < 100000; ++k) {
    const Vec<3> p(u(rng), u(rng), u(rng));
    ASSERT_EQ(plain->contains(p), cached->contains(p)) << p.transpose();
  }
  expect_inside_matches(*plain, m, 1e-12, 20000);
}

TEST(Mesh, InwardOrientedMeshIsReorientedAndFineMeshStaysExact) {
  TriMesh m = icosphere(4);  // 5120 triangles (level 5 takes minutes in the Debug + ASan build)
  for (auto& f : m.f) std::swap(f[1], f[2]);
  const test::TempDir tmp("mesh");
  const auto& dir = tmp.path();
  write_mesh(m, dir / "inward.off", "off");
  const DomainFile f = load_mesh_domain(dir, "inward.off");
  for (auto& t : m.f) std::swap(t[1], t[2]);  // the truth wants outward face normals
  expect_inside_matches(*domain_of<3>(f), m, 1e-12, 4000);  // the brute-force truth is the cost here
}

TEST(Mesh, SurfaceNodesLieOnTheMeshWithOutwardNormalsAtSpacingH) {
  const TriMesh m = icosphere(4);
  const test::TempDir tmp("mesh");
  const auto& dir = tmp.path();
  write_mesh(m, dir / "nodes.off", "off");
  const DomainFile f = load_mesh_domain(dir, "nodes.off", 0.08);
  const auto nodes = domain_of<3>(f)->boundary_nodes(f.spacing, 3);
  // Sphere area 4 pi at h = 0.08: about 4 pi / (0.87 h^2) nodes for a random packing at spacing h.
  EXPECT_GT(nodes.size(), 1200u);
  EXPECT_LT(nodes.size(), 2600u);
  const ConvexPolyhedron truth(m);
  for (const auto& n : nodes) {
    ASSERT_NEAR(truth.sd(n.pos), 0.0, 1e-9);
    ASSERT_NEAR(n.normal.norm(), 1.0, 1e-12);
    ASSERT_GT(n.normal.dot(n.pos.normalized()), 0.95);  // faces are nearly tangent to the sphere
    ASSERT_EQ(n.boundary_id, 1);
  }
  const auto ratio = test::nearest_over_h(nodes, f.spacing);
  EXPECT_GE(*std::min_element(ratio.begin(), ratio.end()), 0.9);
  EXPECT_NEAR(test::mean(ratio), 1.0, 0.1);
  std::vector<Vec<3>> probes;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g;
  for (int k = 0; k < 400; ++k) probes.push_back(Vec<3>(g(rng), g(rng), g(rng)).normalized() * 0.99);
  EXPECT_LT(test::largest_gap_over_h(nodes, probes, f.spacing), 1.6);  // no holes in the cover
}

// The smooth normal (mesh_features.hpp) on a sphere's tessellation against the sphere's own: a facet's
// normal is up to about 2 degrees off it at this level, the blend of the corners' far less.
TEST(Mesh, NodesOnASmoothMeshCarryTheSmoothSurfacesNormal) {
  const TriMesh m = icosphere(3);
  const test::TempDir tmp("mesh");
  write_mesh(m, tmp.path() / "ball.off", "off");
  const DomainFile f = load_mesh_domain(tmp.path(), "ball.off", 0.08);
  double worst = 0.0;
  for (const auto& n : domain_of<3>(f)->boundary_nodes(f.spacing, 2))
    worst = std::max(worst, std::acos(std::min(1.0, n.normal.dot(n.pos.normalized()))) * 180 / std::numbers::pi);
  EXPECT_LT(worst, 0.8);
}

// A cube's mesh (two triangles a face): its 8 corners and 12 edges get nodes first, at the spacing
// along them, the faces' nodes keep 0.9 h away, an edge node carries the bisector of its faces and a
// corner the mean of its three; the same at 1, 2 and 7 threads. At a feature angle of 180 no edge is
// sharp: no node needs to lie on the cube's corners.
TEST(Mesh, SharpEdgesAndCornersOfAMeshKeepTheirNodes) {
  const test::TempDir tmp("mesh");
  write_mesh(test::cube(Vec<3>::Zero(), Vec<3>::Ones()), tmp.path() / "cube.obj", "obj");
  const double h = 0.1;
  const DomainFile f = load_mesh_domain(tmp.path(), "cube.obj", h);
  const auto nodes = domain_of<3>(f)->boundary_nodes(f.spacing, 2, 2);  // seed 2, 2 threads
  int corners = 0, on_edges = 0;
  for (const auto& n : nodes) {
    Vec<3> out = Vec<3>::Zero();  // the sum of the normals of the faces the node lies on
    for (int a = 0; a < 3; ++a) out[a] = n.pos[a] < 1e-12 ? -1 : n.pos[a] > 1 - 1e-12 ? 1 : 0;
    const int faces = static_cast<int>(out.cwiseAbs().sum());
    ASSERT_GE(faces, 1) << n.pos.transpose();
    ASSERT_GT(n.normal.dot(out.normalized()), 1 - 1e-12) << n.pos.transpose();
    corners += faces == 3;
    on_edges += faces == 2;
  }
  EXPECT_EQ(corners, 8);
  EXPECT_EQ(on_edges, 12 * 9);  // 1 / h - 1 between the corners of each edge
  const auto ratio = test::nearest_over_h(nodes, f.spacing);
  EXPECT_GE(*std::min_element(ratio.begin(), ratio.end()), 0.9);
  test::expect_same_boundary_nodes(*domain_of<3>(f), f.spacing, 2, nodes, {1, 7});
  const DomainFile smooth = load_mesh_domain(tmp.path(), "cube.obj", h, R"(,"feature_angle":180)");
  int at_corners = 0;
  for (const auto& n : domain_of<3>(smooth)->boundary_nodes(smooth.spacing, 2))
    at_corners += (n.pos.array() < 1e-12 || n.pos.array() > 1 - 1e-12).count() == 3;
  EXPECT_EQ(at_corners, 0);
  try {
    load_mesh_domain(tmp.path(), "cube.obj", h, R"(,"feature_angle":-5)");
    ADD_FAILURE() << "a negative feature angle was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("shape.feature_angle: must be from 0 to 180 degrees"), std::string::npos) << e.what();
  }
}

// A fandisk-like part: a convex profile in the xz-plane extruded along y from 0 to 1. The profile runs
// (0,0), (2,0), (2,1), then a quarter circle about (1,1) of 18 segments up to (1,2), a chamfer to
// (0,1.2) and back down: creases of 90 degrees at the bottom, 38.7 at the chamfer's top and 51.3 at its
// foot, the caps' outlines at 90, and a smooth join where the side meets the arc (5-degree steps along
// the arc, none sharp).
TriMesh fandisk_like() {
  std::vector<Eigen::Vector2d> profile{{0, 0}, {2, 0}};
  for (int k = 0; k <= 18; ++k) {
    const double a = std::numbers::pi / 2 * k / 18;
    profile.emplace_back(1 + std::cos(a), 1 + std::sin(a));
  }
  profile.emplace_back(0, 1.2);
  TriMesh m;
  const int n = static_cast<int>(profile.size());
  for (const double y : {0.0, 1.0})
    for (const auto& q : profile) m.v.emplace_back(q.x(), y, q.y());
  Eigen::Vector2d centre = Eigen::Vector2d::Zero();
  for (const auto& q : profile) centre += q / n;
  m.v.emplace_back(centre.x(), 0.0, centre.y());
  m.v.emplace_back(centre.x(), 1.0, centre.y());
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    // The profile runs counter-clockwise seen from -y: the cap at y = 0 faces -y, the one at y = 1 +y.
    m.f.push_back({2 * n, j, i});
    m.f.push_back({2 * n + 1, n + i, n + j});
    m.f.push_back({i, j, n + j});
    m.f.push_back({i, n + j, n + i});
  }
  return m;
}

// Its sharp edges keep their nodes: points every 0.05 h along every crease and along both caps'
// outlines lie within 0.5 h of a boundary node, no two nodes are closer than 0.9 h, and nodes on the arc
// carry the cylinder's own normal (a facet's is up to 2.5 degrees off it); the same at 1, 2 and 7 threads.
TEST(Mesh, AFandiskLikePartKeepsItsCreasesAndItsSmoothArc) {
  const test::TempDir tmp("mesh");
  const TriMesh m = fandisk_like();
  write_mesh(m, tmp.path() / "fandisk_like.obj", "obj");
  const double h = 0.05;
  const DomainFile f = load_mesh_domain(tmp.path(), "fandisk_like.obj", h);
  const auto nodes = domain_of<3>(f)->boundary_nodes(f.spacing, 3, 2);
  std::vector<Vec<3>> along;  // points along the sharp edges
  auto sample = [&](const Vec<3>& a, const Vec<3>& b) {
    const int steps = static_cast<int>(std::ceil((b - a).norm() / (0.05 * h)));
    for (int k = 0; k <= steps; ++k) along.push_back(a + (b - a) * k / steps);
  };
  const int n = static_cast<int>(m.v.size() - 2) / 2;
  for (const int i : {0, 1, 20, 21}) sample(m.v[i], m.v[n + i]);  // the creases
  for (int i = 0; i < n; ++i) {
    sample(m.v[i], m.v[(i + 1) % n]);
    sample(m.v[n + i], m.v[n + (i + 1) % n]);
  }
  std::size_t covered = 0;
  for (const Vec<3>& p : along) {
    double nearest = 1e300;
    for (const auto& node : nodes) nearest = std::min(nearest, (node.pos - p).norm());
    covered += nearest <= 0.5 * h;
  }
  EXPECT_GE(static_cast<double>(covered), 0.99 * static_cast<double>(along.size()));
  const auto ratio = test::nearest_over_h(nodes, f.spacing);
  EXPECT_GE(*std::min_element(ratio.begin(), ratio.end()), 0.9);
  int on_arc = 0;
  for (const auto& node : nodes) {
    const Vec<3> radial(node.pos.x() - 1, 0, node.pos.z() - 1);
    // On the arc's faces, off the caps and off its end segments: the corner at the smooth join blends
    // the flat side's normal in, the one at the crease has only its own side's, the last facet's.
    if (node.pos.x() <= 1.1 || node.pos.z() <= 1.1 || node.pos.y() < h || node.pos.y() > 1 - h || radial.norm() < 0.99) continue;
    ++on_arc;
    EXPECT_GT(node.normal.dot(radial.normalized()), std::cos(0.5 * std::numbers::pi / 180)) << node.pos.transpose();
  }
  EXPECT_GT(on_arc, 100);
  test::expect_same_boundary_nodes(*domain_of<3>(f), f.spacing, 3, nodes, {1, 7});
}

// h 1e10 times larger on part of the surface: x > 1.2 on the torus (|x| <= 1.35), which the bounding-box
// grid choosing the boundary's cell sees (cell 2e4), and x > 1.3, which it misses (cell 0.04). The
// thinning sized its blocks by the largest radius and asked for 1e17 and 1e32 cells per block
// (std::length_error; "out of memory" through the CLI). Now the small-h part gets about the nodes the
// plain spacing gives it, the huge-h part none (a node there would need no other within 9e9), and the
// nodes are the same on 1 and 2 threads.
TEST(Mesh, AbsurdSpacingRatioOnTheSurfaceStillPlacesNodes) {
  const DomainFile f = load_domain_file(test::source_dir() / "domains" / "torus_mesh.json");
  const auto& d = *domain_of<3>(f);
  const auto plain = d.boundary_nodes(f.spacing, 3, 2);
  // One cut under a sanitizer, where each placement is slow; the second adds no other code.
  for (const double cut : test::kSanitized ? std::vector<double>{1.2} : std::vector<double>{1.2, 1.3}) {
    const Spacing spacing = Spacing::expression("0.04 + 1e10 * (x > " + std::to_string(cut) + ")");
    const auto nodes = d.boundary_nodes(spacing, 3, 2);
    const auto below = [&](const auto& set) {
      return std::count_if(set.begin(), set.end(), [&](const auto& n) { return n.pos[0] <= cut; });
    };
    EXPECT_EQ(below(nodes), static_cast<long>(nodes.size())) << cut;
    EXPECT_NEAR(static_cast<double>(nodes.size()) / static_cast<double>(below(plain)), 1.0, 0.03) << cut;
    const auto one = d.boundary_nodes(spacing, 3, 1);
    ASSERT_EQ(one.size(), nodes.size()) << cut;
    for (std::size_t i = 0; i < one.size(); ++i) ASSERT_EQ(one[i].pos, nodes[i].pos) << cut << " " << i;
  }
}

TEST(Mesh, MeshInCsgWithAnalyticShapes) {
  const TriMesh m = icosphere(3);
  const test::TempDir tmp("mesh");
  const auto& dir = tmp.path();
  write_mesh(m, dir / "csg.obj", "obj");
  std::ofstream(dir / "csg.json") << R"({"dim":3,"spacing":0.1,"shape":{"type":"difference","children":[
      {"type":"box","min":[-0.5,-0.5,-0.5],"max":[1.5,1.5,1.5]},
      {"type":"translate","offset":[1,1,1],"child":{"type":"mesh","file":"csg.obj"}}]}})";
  const DomainFile f = load_domain_file(dir / "csg.json");
  const auto& d = *domain_of<3>(f);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-0.6, 1.6);
  const ConvexPolyhedron ball(m);
  for (int k = 0; k < 20000; ++k) {
    const Vec<3> p(u(rng), u(rng), u(rng));
    const double in_box = std::max({-0.5 - p.minCoeff(), p.maxCoeff() - 1.5});
    const double in_ball = ball.sd(p - Vec<3>(1, 1, 1));
    if (std::abs(in_box) < 1e-9 || std::abs(in_ball) < 1e-9) continue;
    ASSERT_EQ(d.contains(p), in_box < 0 && in_ball > 0) << p.transpose();
  }
}

// The one-line InputError loading the mesh domain of `file` in `dir` raises, or "no error".
std::string load_error(const std::filesystem::path& dir, const std::string& file, const std::string& extra = "") {
  try {
    load_mesh_domain(dir, file, 0.1, extra);
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    return std::string(e.what());
  }
  return std::string("no error");
}

TEST(Mesh, MissingUnreadableAndOpenMeshesAreInputErrors) {
  const test::TempDir tmp("mesh");
  const auto& dir = tmp.path();
  auto message = [&](const std::string& file) { return load_error(dir, file, R"(,"repair":"none")"); };
  const std::string prefix = (dir / "mesh_domain.json").string() + ": shape.file: ";
  EXPECT_EQ(message("nope.stl"), prefix + "file not found: " + (dir / "nope.stl").string());

  std::ofstream(dir / "garbage.stl") << "this is not a mesh\n";
  EXPECT_EQ(message("garbage.stl").rfind(prefix + "cannot read mesh " + (dir / "garbage.stl").string(), 0), 0u)
      << message("garbage.stl");

  // Three faces on one edge: read, but no manifold surface (said so, not as an unreadable file).
  std::ofstream(dir / "fin.off") << "OFF\n5 3 0\n0 0 0\n1 0 0\n0 1 0\n0 -1 0\n0 0 1\n3 0 1 2\n3 1 0 3\n3 0 1 4\n";
  EXPECT_EQ(message("fin.off"), prefix + "mesh " + (dir / "fin.off").string() +
                                    " is not a manifold, consistently oriented surface (an edge of more than two faces, "
                                    "faces that meet at a corner only, or neighbours facing opposite ways)");

  TriMesh open = icosphere(1);
  open.f.pop_back();
  write_mesh(open, dir / "open.off", "off");
  EXPECT_EQ(message("open.off"), prefix + "mesh " + (dir / "open.off").string() +
                                     " is not closed (3 border edges): the inside test needs a watertight surface");
  // Repaired by default: the hole is closed and the sphere is solid again.
  EXPECT_EQ(load_error(dir, "open.off"), "no error");
  EXPECT_EQ(load_mesh_domain(dir, "open.off").repairs,
            std::vector<std::string>{"shape: holes closed: 1 (3 border edges, 1 faces added)"});
}

// `m` scaled by `scale` about the origin, moved by `offset`, its faces turned inside out when `flip`,
// appended to `into` as another shell.
void add_shell(TriMesh& into, const TriMesh& m, double scale, const Vec<3>& offset, bool flip) {
  const int base = static_cast<int>(into.v.size());
  for (const auto& p : m.v) into.v.push_back(scale * p + offset);
  for (auto [a, b, c] : m.f)
    into.f.push_back(flip ? std::array{base + a, base + c, base + b} : std::array{base + a, base + b, base + c});
}

TEST(Mesh, MeshesThatDoNotBoundOneVolumeAreInputErrorsWithoutRepair) {
  // A unit sphere plus a second shell: the sphere scaled, moved and maybe turned inside out. Loaded as they
  // are, the first two give inverted normals where the shells overlap or nest. The repair loads
  // them (tests/geometry/test_mesh_repair.cpp); "repair": "none" keeps refusing them.
  struct Case {
    std::string file;
    double scale;
    Vec<3> offset;
    bool flip;
    std::string error;  // after "mesh FILE"; empty: loads
  };
  const std::vector<Case> cases = {
      {"overlapping.off", 1.0, Vec<3>(0.5, 0, 0), false,
       " intersects itself (overlapping or crossing shells): the inside test needs a surface that bounds one "
       "volume"},
      {"nested_alike.off", 0.5, Vec<3>::Zero(), false,
       " does not bound a volume: a shell nested in another must be oriented the other way (a cavity faces "
       "inward)"},
      {"hollow.off", 0.5, Vec<3>::Zero(), true, ""},  // a cavity facing inward
      {"apart.off", 1.0, Vec<3>(3, 0, 0), false, ""},  // two separate bodies
  };
  const test::TempDir tmp("mesh");
  const auto& dir = tmp.path();
  const TriMesh ball = icosphere(2);
  for (const Case& c : cases) {
    TriMesh m;
    add_shell(m, ball, 1.0, Vec<3>::Zero(), false);
    add_shell(m, ball, c.scale, c.offset, c.flip);
    write_mesh(m, dir / c.file, "off");
    const std::string expected = c.error.empty() ? "no error"
                                                 : (dir / "mesh_domain.json").string() + ": shape.file: mesh " +
                                                       (dir / c.file).string() + c.error;
    EXPECT_EQ(load_error(dir, c.file, R"(,"repair":"none")"), expected);
  }
}

}  // namespace
}  // namespace nodegen
