// `nodegen run --set KEY=VALUE`, end to end: a number, a string (an expression), an object, a path
// through an array, an object made where the path needs one, several in order; the output records the
// changed document (and `stats` rebuilds the domain from it); bad keys are one error line naming --set
// and the key.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nodegen/io/hdf5_reader.hpp"
#include "support/cli_test_support.hpp"

namespace {

using namespace nodegen::test;

const std::string kSquare = (kSource / "domains" / "square.json").string();
const std::string kPlate = (kSource / "domains" / "plate_with_holes.json").string();

class SetOption : public CliTest {
 protected:
  // The domain file text stored in an output, parsed.
  nlohmann::json stored_document(const std::string& output) {
    const auto stored = nodegen::io::read_hdf5(dir_ / output);
    const std::string* text = nodegen::io::find_string(stored.metadata, "domain_file_text");
    if (text == nullptr) return nullptr;
    return nlohmann::json::parse(*text);
  }
};

// A number, and fill.seed where square.json has no "fill": the object is made. The output's text is
// the changed document, and `stats` reads the output through it.
TEST_F(SetOption, ANumberAndAFieldOfAMissingObject) {
  const Result r = run({"run", kSquare, "-o", "out.h5", "--set", "spacing=0.02", "--set", "fill.seed=3", "--report", "report.json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json doc = stored_document("out.h5");
  EXPECT_EQ(doc["spacing"], 0.02);
  EXPECT_EQ(doc["fill"], nlohmann::json({{"seed", 3}}));
  EXPECT_EQ(doc["shape"], nlohmann::json::parse(slurp(kSquare))["shape"]);  // the rest as it was
  const nlohmann::json report = nlohmann::json::parse(slurp(dir_ / "report.json"));
  EXPECT_EQ(report["seed"], 3);
  EXPECT_LT(report["nodes"].get<int>(), 3500);  // h = 0.02 on the unit square, not 0.005
  const Result stats = run({"stats", "out.h5", "--json"});
  ASSERT_EQ(stats.status, 0) << stats.err;
  EXPECT_EQ(stats.err, "");  // the domain rebuilt from the stored text: no warning
  const nlohmann::json s = nlohmann::json::parse(stats.out);
  EXPECT_EQ(s["nodes"], report["nodes"]);
  EXPECT_GT(s["packing_density"].get<double>(), 0.5);  // measured with the domain
  // The same seed given in the file: the same nodes.
  write("seeded.json", R"({"dim": 2, "spacing": 0.02, "fill": {"seed": 3}, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})");
  const Result seeded = run({"run", "seeded.json", "-o", "seeded.h5", "--report", "seeded_report.json"});
  ASSERT_EQ(seeded.status, 0) << seeded.err;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "seeded_report.json"))["nodes_sha256"], report["nodes_sha256"]);
}

// Not JSON: a string, here an expression; JSON in quotes: a string too.
TEST_F(SetOption, AStringExpression) {
  for (const char* value : {"spacing=0.01+0.02*x", R"(spacing="0.01+0.02*x")"}) {
    SCOPED_TRACE(value);
    const Result r = run({"run", kSquare, "-o", "out.h5", "--set", value});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(stored_document("out.h5")["spacing"], "0.01+0.02*x");
    const auto nodes = nodegen::io::read_hdf5(dir_ / "out.h5").nodes;
    for (std::size_t i = 0; i < nodes.node_count(); ++i) ASSERT_NEAR(nodes.h[i], 0.01 + 0.02 * nodes.coord(i, 0), 1e-15);
  }
}

// An object replaces the shape; a path through an array changes one child; later --set win.
TEST_F(SetOption, AnObjectAnArrayElementAndSeveralInOrder) {
  Result r = run({"run", kSquare, "-o", "disk.h5", "--set", R"(shape={"type": "disk", "center": [0, 0], "radius": 0.5})"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto disk = nodegen::io::read_hdf5(dir_ / "disk.h5").nodes;
  for (std::size_t i = 0; i < disk.node_count(); ++i)
    ASSERT_LE(std::hypot(disk.coord(i, 0), disk.coord(i, 1)), 0.5 + 1e-12);
  EXPECT_EQ(stored_document("disk.h5")["shape"]["type"], "disk");
  r = run({"run", kPlate, "-o", "plate.h5", "--set", "shape.children[1].radius=0.1", "--set", "spacing=0.05", "--set",
           "spacing=0.04"});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json doc = stored_document("plate.h5");
  EXPECT_EQ(doc["shape"]["children"][1]["radius"], 0.1);
  EXPECT_EQ(doc["shape"]["children"][1]["name"], "hole_left");
  EXPECT_EQ(doc["shape"]["children"][2]["radius"], 0.2);
  EXPECT_EQ(doc["spacing"], 0.04);
  // Nodes inside the shrunk hole's old disk: the hole is now of radius 0.1.
  const auto plate = nodegen::io::read_hdf5(dir_ / "plate.h5").nodes;
  std::size_t inside_old_hole = 0;
  for (std::size_t i = 0; i < plate.node_count(); ++i)
    inside_old_hole += std::hypot(plate.coord(i, 0) - 0.5, plate.coord(i, 1) - 0.5) < 0.19;
  EXPECT_GT(inside_old_hole, 10u);
}

TEST_F(SetOption, BadKeysAreOneErrorLineNamingSetAndTheKey) {
  expect_input_error({"run", kPlate, "--set", "shape.children[9].radius=1"},
                     {"--set: shape.children[9].radius: ", "shape.children has no element [9]"});
  expect_input_error({"run", kPlate, "--set", "spacing.x=1"}, {"--set: spacing.x: ", "spacing is not an object"});
  expect_input_error({"run", kPlate, "--set", "noequals"}, {"--set: noequals: ", "expected KEY=VALUE"});
  expect_input_error({"run", kPlate, "--set", "=3"}, {"--set: =3: ", "expected KEY=VALUE"});
  expect_input_error({"run", kPlate, "--set", "a..b=1"}, {"--set: a..b: ", "a field name is empty"});
  expect_input_error({"run", kPlate, "--set", "fill.=1"}, {"--set: fill.: ", "a field name is empty"});
  expect_input_error({"run", kPlate, "--set", "shape.children[x]=1"}, {"--set: shape.children[x]: ", "expected an index"});
  expect_input_error({"run", kPlate, "--set", "shape.children[1=2"}, {"--set: shape.children[1: ", "expected an index"});
  expect_input_error({"run", kPlate, "--set", "shape[0]=2"}, {"--set: shape[0]: ", "shape has no element [0]"});
  expect_input_error({"run", kPlate, "--set", "[0]=2"}, {"--set: [0]: the document has no element [0]"});
  expect_input_error({"run", kPlate, "--set", "shape.children[0].=2"}, {"--set: shape.children[0].: ", "a field name is empty"});
  // A value the domain file then refuses: the field's own error.
  expect_input_error({"run", kPlate, "--set", "spacing=-1"}, {"plate_with_holes.json: spacing: "});
  expect_input_error({"run", kPlate, "--set", "fill.bogus=1"}, {"plate_with_holes.json: fill.bogus: unknown field"});
}

}  // namespace
