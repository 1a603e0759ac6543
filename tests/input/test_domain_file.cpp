// Domain files: every shipped file in domains/ loads and discretizes its boundary; every kind of bad
// input is refused with exactly one line "FILE: FIELD: REASON".
#include <gtest/gtest.h>

#include <fstream>
#include <set>


#include "support/geometry_test_support.hpp"
#include "support/sanitized_build.hpp"
#include "support/temp_dir.hpp"

namespace nodegen {
namespace {

// The example domains, less those whose public test model is not in domains/meshes (they are not part
// of the repository; domains/meshes/get_models.sh fetches them).
std::vector<std::filesystem::path> shipped_domains() {
  std::vector<std::filesystem::path> files;
  const auto models = test::source_dir() / "domains" / "meshes";
  for (const auto& e : std::filesystem::directory_iterator(test::source_dir() / "domains")) {
    if (e.path().extension() != ".json") continue;
    if (e.path().filename() == "bunny_mesh.json" && !std::filesystem::exists(models / "stanford-bunny.obj")) continue;
    if (e.path().filename() == "cow_mesh.json" && !std::filesystem::exists(models / "cow.obj")) continue;
    files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(DomainFile, EveryShippedDomainLoadsAndHasBoundaryNodes) {
  // Slow under the sanitizers, most of it loading the meshes, which DomainDeterminism (test_cli) does
  // there too, running every example end to end.
  if (test::kSanitized) GTEST_SKIP() << "every example runs end to end under the sanitizers in test_cli";
  const auto files = shipped_domains();
  ASSERT_GE(files.size(), 10u);
  std::set<std::string> names;
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    names.insert(path.filename().string());
    const DomainFile f = load_domain_file(path);
    EXPECT_FALSE(f.comment.empty()) << "each example says what it shows";
    EXPECT_EQ(f.fill.candidates > 0, true);
    auto check = [&](const auto& domain) {
      const auto nodes = domain->boundary_nodes(f.spacing, f.fill.seed);
      EXPECT_GT(nodes.size(), 100u);
      EXPECT_GT(domain->measure(), 0.0);
      for (const auto& n : nodes) ASSERT_NEAR(n.normal.norm(), 1.0, 1e-9);
    };
    if (f.dim == 2) check(std::get<0>(f.domain));
    else check(std::get<1>(f.domain));
  }
  // Other tools and scripts refer to these by name.
  for (const char* required : {"square.json", "disk.json", "l_shape.json", "plate_with_holes.json", "cube.json",
                               "sphere.json", "box_minus_ball.json", "torus_mesh.json", "gear_mesh.json",
                               "square_variable.json", "cube_variable.json"})
    EXPECT_TRUE(names.count(required)) << required;
}

TEST(DomainFile, DefaultsAndExplicitFillParameters) {
  auto f2 = test::parse(R"({"dim":2,"spacing":0.1,"shape":{"type":"box","min":[0,0],"max":[1,1]}})");
  EXPECT_EQ(f2.fill.candidates, 15);
  EXPECT_EQ(f2.fill.seed, 1u);
  EXPECT_EQ(f2.fill.max_nodes, 100'000'000u);
  auto f3 = test::parse(R"({"dim":3,"spacing":"0.1+0*z","comment":"c","fill":{"candidates":30,"seed":99,"max_nodes":5000},
      "shape":{"type":"box","min":[0,0,0],"max":[1,1,1]}})");
  EXPECT_EQ(f3.dim, 3);
  EXPECT_EQ(f3.comment, "c");
  EXPECT_EQ(f3.fill.candidates, 30);
  EXPECT_EQ(f3.fill.seed, 99u);
  EXPECT_EQ(f3.fill.max_nodes, 5000u);
  EXPECT_EQ(f3.spacing.describe(), "0.1+0*z");
}

class BadInput : public ::testing::Test {
 protected:
  const test::TempDir tmp{"bad"};
  const std::filesystem::path dir = tmp.path();

  // Writes `text` as bad.json and returns the error line (or "no error").
  std::string error_of(const std::string& text) {
    std::ofstream(dir / "bad.json") << text;
    try {
      load_domain_file(dir / "bad.json");
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
      EXPECT_EQ(what, e.file() + ": " + e.field() + ": " + e.reason());
      return what;
    }
    return "no error";
  }
  std::string file() const { return (dir / "bad.json").string(); }
};

TEST_F(BadInput, MalformedJsonNamesTheLineAndColumn) {
  // A missing comma after line 3: the parser stops at the end of the unexpected "shape" token.
  EXPECT_EQ(error_of("{\n  \"dim\": 2,\n  \"spacing\": 0.1\n  \"shape\": {}\n}\n"),
            file() + ": line 4, column 9: invalid JSON: syntax error while parsing object - unexpected string literal; "
                     "expected '}'");
}

TEST_F(BadInput, UnknownShape) {
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"union","children":[
      {"type":"box","min":[0,0,0],"max":[1,1,1]},{"type":"cylinder","radius":1}]}})"),
            file() + ": shape.children[1].type: unknown shape \"cylinder\" (known: box, ball, disk, sphere, polygon, "
                     "mesh, cad, union, intersection, difference, translate, scale, rotate)");
}

TEST_F(BadInput, MissingAndOpenMeshes) {
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"mesh","file":"missing.stl"}})"),
            file() + ": shape.file: file not found: " + (dir / "missing.stl").string());
  // A tetrahedron with one face missing.
  std::ofstream(dir / "open.off") << "OFF\n4 3 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n";
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"mesh","file":"open.off","repair":"none"}})"),
            file() + ": shape.file: mesh " + (dir / "open.off").string() +
                " is not closed (3 border edges): the inside test needs a watertight surface");
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"mesh","file":"open.off"}})"), "no error");
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"mesh","file":"open.off","repair":"yes"}})"),
            file() + ": shape.repair: expected \"auto\" or \"none\", got \"yes\"");
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"mesh","file":"open.off","max_hole":-1}})"),
            file() + ": shape.max_hole: must be 0 or more (a border length in the mesh's units)");
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"mesh","file":"open.off","repair":"none","max_hole":1}})"),
            file() + ": shape.max_hole: applies to \"repair\": \"auto\" only");
  std::ofstream(dir / "junk.ply") << "ply\nthis is not a ply file\n";
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"mesh","file":"junk.ply"}})"),
            file() + ": shape.file: mesh " + (dir / "junk.ply").string() + " has a PLY header with no end_header line");
}

TEST_F(BadInput, NonPositiveOrNonFiniteSpacing) {
  const std::string box = R"("shape":{"type":"box","min":[0,0],"max":[1,1]})";
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0,)" + box + "}"), file() + ": spacing: must be positive and finite, got 0");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":-0.5,)" + box + "}"),
            file() + ": spacing: must be positive and finite, got -0.5");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":"x - 0.5",)" + box + "}"),
            file() + ": spacing: h = -0.492188 at (0.0078125, 0.0078125) is not positive and finite (\"x - 0.5\", "
                     "sampled over the bounding box)");
  EXPECT_EQ(error_of(R"J({"dim":2,"spacing":"sqrt(x - 2)",)J" + box + "}"),
            file() + ": spacing: h = nan at (0.0078125, 0.0078125) is not positive and finite (\"sqrt(x - 2)\", "
                     "sampled over the bounding box)");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":"0.1 +",)" + box + "}").rfind(
                file() + ": spacing: cannot parse expression \"0.1 +\": ", 0),
            0u);
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":[0.1],)" + box + "}"),
            file() + ": spacing: expected a number or an expression string in x, y, z, got an array");
}

TEST_F(BadInput, SpacingThatWouldExceedTheNodeCap) {
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.001,"fill":{"max_nodes":1000000},
      "shape":{"type":"box","min":[0,0,0],"max":[1,1,1]}})"),
            file() + ": spacing: would need about 1.006e+09 nodes (1e+09 inside: domain measure / h^3; 6e+06 on the "
                     "boundary: its area / h^2), far above fill.max_nodes = 1000000; use a larger spacing or raise "
                     "fill.max_nodes");
}

// A thin domain has little measure but a long boundary: a 1e9 x 1e-9 box at h = 1e-3 holds 1e6 nodes'
// worth of area and needs 2e12 boundary nodes, which the boundary placement allocated until memory ran out.
TEST_F(BadInput, ThinDomainWhoseBoundaryWouldExceedTheNodeCap) {
  const std::string error = error_of(R"({"dim":2,"spacing":0.001,
      "shape":{"type":"box","min":[0,0],"max":[1e9,1e-9]}})");
  EXPECT_NE(error.find(": spacing: would need about 2e+12 nodes (1e+06 inside: domain measure / h^2; 2e+12 on the "
                       "boundary: its length / h), far above fill.max_nodes = 100000000"),
            std::string::npos)
      << error;
  const std::string error3 = error_of(R"({"dim":3,"spacing":0.01,
      "shape":{"type":"box","min":[0,0,0],"max":[1e4,1e4,1e-9]}})");
  EXPECT_NE(error3.find("on the boundary: its area / h^2), far above fill.max_nodes"), std::string::npos) << error3;
}

TEST_F(BadInput, ShapeOfTheWrongDimension) {
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"difference","children":[
      {"type":"box","min":[0,0,0],"max":[1,1,1]},{"type":"polygon","points":[[0,0],[1,0],[0,1]]}]}})"),
            file() + ": shape.children[1].type: polygon is a 2D shape but the file has dim 3");
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"disk","center":[0,0],"radius":1}})"),
            file() + ": shape.type: disk is a 2D shape but the file has dim 3");
  EXPECT_EQ(error_of(R"({"dim":3,"spacing":0.1,"shape":{"type":"box","min":[0,0],"max":[1,1]}})"),
            file() + ": shape.min: expected an array of 3 numbers, got an array of 2");
}

TEST_F(BadInput, BadFieldTypesAndValues) {
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"union","children":[
      {"type":"box","min":[0,0],"max":[1,1]},{"type":"disk","center":[0,0],"radius":"big"}]}})"),
            file() + ": shape.children[1].radius: expected a number, got a string");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"disk","center":[0,0],"radius":-1}})"),
            file() + ": shape.radius: must be positive, got -1");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"box","min":[0,0],"max":[1,"a"]}})"),
            file() + ": shape.max[1]: expected a number, got a string");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"union","children":{"type":"box"}}})"),
            file() + ": shape.children: expected an array of shapes, got an object");
  EXPECT_EQ(error_of(R"({"dim":4,"spacing":0.1,"shape":{"type":"box","min":[0,0],"max":[1,1]}})"),
            file() + ": dim: must be 2 or 3, got 4");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1})"), file() + ": shape: missing");
  EXPECT_EQ(error_of(R"({"dim":2,"spacng":0.1,"shape":{"type":"box","min":[0,0],"max":[1,1]}})"),
            file() + ": spacng: unknown field (expected one of: comment, dim, fill, name, parts, shape, spacing)");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"fill":{"seed":-3},"shape":{"type":"box","min":[0,0],"max":[1,1]}})"),
            file() + ": fill.seed: expected a non-negative integer, got -3");
  // A seed above 2^63 - 1 was stored as a negative attribute; a cap above int32 failed only when
  // writing (or, for the VM store's reservation, as an internal error).
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"fill":{"seed":18446744073709551615},"shape":{"type":"box","min":[0,0],"max":[1,1]}})"),
            file() + ": fill.seed: must be at most 9223372036854775807, got 18446744073709551615");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"fill":{"max_nodes":100000000000000},"shape":{"type":"box","min":[0,0],"max":[1,1]}})"),
            file() + ": fill.max_nodes: must be at most 2147483647 (the output indexes nodes with int32), got 100000000000000");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0]]}})"),
            file() + ": shape.points: a polygon ring needs at least 3 distinct points, got 2");
  // A point file's line holds two numbers and nothing else ("1 1abc" and "0 0 0" were taken as points).
  for (const char* typo : {"1 1abc", "0 0 0"}) {
    std::ofstream(dir / "ring.txt") << "0 0\n1 0\n" << typo << "\n0 1\n";
    EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":"ring.txt"}})"),
              file() + ": shape.points: " + (dir / "ring.txt").string() + " line 3: expected two numbers \"x y\"")
        << typo;
  }
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"box","min":[1,0],"max":[0,1]}})"),
            file() + ": shape.max: must exceed min in every coordinate");
  EXPECT_EQ(error_of(R"([1, 2])"), file() + ": (top level): expected a JSON object, got an array");
  // Beyond what squared distances hold: at 1e160 the fill never saw a candidate as too close and
  // seemed to hang; at h = 1e-120, h^2 underflows.
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":1e158,"shape":{"type":"box","min":[0,0],"max":[1e160,1e160]}})"),
            file() + ": shape: its bounding box reaches 1e+160, beyond the 1e+100 that squared distances allow; "
                     "rescale the domain");
  EXPECT_NE(error_of(R"({"dim":2,"spacing":1e-120,"shape":{"type":"box","min":[0,0],"max":[1e-118,1e-118]}})")
                .find(": spacing: h = 1e-120 at "),
            std::string::npos);
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"box","min":[0,0],"max":[1,1],"max":[2,2]}})"),
            file() + ": max: given twice in one object (JSON would keep only the last); remove one");
}

// Rings that cross have no inside on either side of the crossing, so they are refused, with the point.
TEST_F(BadInput, CrossingPolygonRings) {
  const std::string why = "): the outline must not cross itself, nor a hole cross the outline or another hole";
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,1],[1,0],[0,1]]}})"),
            file() + ": shape: the polygon's rings cross or touch at (0.5, 0.5" + why);  // a figure eight
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0],[1,1],[0,1]],
                        "holes":[[[0.5,0.5],[1.5,0.5],[1.5,0.6]]]}})"),
            file() + ": shape: the polygon's rings cross or touch at (1, 0.5" + why);  // a hole through the outline
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0],[1,1],[0.5,0],[0,1]]}})"),
            file() + ": shape: the polygon's rings cross or touch at (0.5, 0" + why);  // a vertex on an edge
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0],[1,1],[0,1]],
                        "holes":[[[0.2,0.2],[0.6,0.2],[0.6,0.6]],[[0.4,0.1],[0.5,0.1],[0.5,0.5]]]}})"),
            file() + ": shape: the polygon's rings cross or touch at (0.425, 0.2" + why);  // two holes (the crossing of least x)
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[2,0],[1,0],[1,1]]}})"),
            file() + ": shape: the polygon's rings cross or touch at (1, 0" + why);  // an edge doubling back
  // Where only vertices meet (CGAL's sweep reports none of these):
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,1],[2,2],[2,0],[1,1],[0,2]]}})"),
            file() + ": shape: the polygon's rings cross or touch at (1, 1" + why);  // a figure eight through a vertex
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0],[1,1],[0,1]],
                        "holes":[[[0,0],[0.5,0.2],[0.2,0.5]]]}})"),
            file() + ": shape: the polygon's rings cross or touch at (0, 0" + why);  // a hole touching a corner
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0],[1,1],[0,1]],
                        "holes":[[[0,0],[1,0],[0.5,0.5]]]}})"),
            file() + ": shape: the polygon's rings cross or touch at (0, 0" + why);  // a hole sharing an edge
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0],[0,0],[1,0]]}})"),
            file() + ": shape: the polygon's rings cross or touch at (0, 0" + why);  // one edge walked back and forth
}

// A ring closed by repeating its first point, or with a doubled vertex, is the same polygon.
TEST_F(BadInput, RepeatedPointsAreOneVertex) {
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0],[1,0],[1,1],[0,1],[0,0]],
                        "holes":[[[0.2,0.2],[0.4,0.2],[0.4,0.4],[0.2,0.2]]]}})"),
            "no error");
  EXPECT_EQ(error_of(R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0],[1,0],[0,0]]}})"),
            file() + ": shape.points: a polygon ring needs at least 3 distinct points, got 2");
}

// A polygon's edge names: one per edge of the ring as written, or a map from edge index; each a string
// of at most 256 characters; a name that the merging of repeated points would lose is refused.
TEST_F(BadInput, PolygonEdgeNames) {
  auto polygon = [](const std::string& fields) {
    return R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon","points":[[0,0],[1,0],[1,0],[0,1]],)" + fields + "}}";
  };
  const std::string edges = " (edge i runs from point i to point i + 1, the last back to point 0)";
  EXPECT_EQ(error_of(polygon(R"("edge_names":["a","a","b"])")),
            file() + ": shape.edge_names: has 3 names, but the ring has 4 points as written: one name per edge" + edges);
  for (const char* key : {"4", "x", "01", "-1", ""})
    EXPECT_EQ(error_of(polygon(R"("edge_names":{")" + std::string(key) + R"(":"a"})")),
              file() + ": shape.edge_names." + key + ": is not an edge index: the ring has 4 edges as written, 0 to 3" + edges);
  EXPECT_EQ(error_of(polygon(R"("edge_names":["a",5,"a","b"])")),
            file() + ": shape.edge_names[1]: expected a name (a string, or \"\" or null to keep the ring's own part), got a number");
  EXPECT_EQ(error_of(polygon(R"("edge_names":{"2":["b"]})")),
            file() + ": shape.edge_names.2: expected a name (a string, or \"\" or null to keep the ring's own part), got an array");
  EXPECT_EQ(error_of(polygon(R"("edge_names":["a","a","a",")" + std::string(257, 'n') + R"("])")),
            file() + ": shape.edge_names[3]: is 257 characters long, above the limit of 256");
  EXPECT_EQ(error_of(polygon(R"("edge_names":"inlet")")),
            file() + ": shape.edge_names: expected an array with one name per edge, or an object from edge index to name, got a string");
  // Edge 1 joins (1, 0) to its repeat: its name must be that of edge 0 or edge 2 beside it.
  EXPECT_EQ(error_of(polygon(R"("edge_names":["a","x","b","c"])")),
            file() + ": shape.edge_names: edge 1 (\"x\") has no length: point 2 repeats point 1, so the two are one vertex "
                     "and edge 1 merges with edges 0 (\"a\") and 2 (\"b\"); give it the name of one of them, or \"\"");
  EXPECT_EQ(error_of(polygon(R"("edge_names":["a","b","b","c"])")), "no error");
  EXPECT_NE(error_of(polygon(R"("edge_names":{"1":"x"})")).find(": shape.edge_names: edge 1 (\"x\") has no length"),
            std::string::npos);
  // Holes as objects: their own fields only, no name of their own.
  const std::string outline = R"("points":[[0,0],[1,0],[1,1],[0,1]],"holes":[)";
  auto with_hole = [&](const std::string& hole) {
    return R"({"dim":2,"spacing":0.1,"shape":{"type":"polygon",)" + outline + hole + "]}}";
  };
  EXPECT_EQ(error_of(with_hole(R"({"points":[[0.2,0.2],[0.4,0.2],[0.3,0.4]],"edge_names":["a"]})")),
            file() + ": shape.holes[0].edge_names: has 1 names, but the ring has 3 points as written: one name per edge" + edges);
  EXPECT_EQ(error_of(with_hole(R"({"points":[[0.2,0.2],[0.4,0.2],[0.3,0.4]],"name":"h"})")),
            file() + ": shape.holes[0].name: a hole has no name of its own (its part is the polygon's \"holeK\"): name "
                     "its edges with edge_names");
  EXPECT_EQ(error_of(with_hole(R"({"points":[[0.2,0.2],[0.4,0.2],[0.3,0.4]],"edges":["a","b","c"]})")),
            file() + ": shape.holes[0].edges: unknown field (expected one of: comment, edge_names, name, points)");
  EXPECT_EQ(error_of(with_hole(R"({"edge_names":["a","b","c"]})")), file() + ": shape.holes[0].points: missing");
}

TEST(DomainFileErrors, MissingFile) {
  try {
    load_domain_file("/nonexistent/nowhere.json");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/nowhere.json: (file): file not found");
  }
}

}  // namespace
}  // namespace nodegen
