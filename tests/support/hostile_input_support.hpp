#pragma once
// The fixture of the hostile input suites (tests/hostile/), end to end: every kind of malformed,
// oversized, deeply nested, lying or non-regular input ends in exit status 2 with one line
// "nodegen: error: FILE: FIELD: REASON" and no output file (or, for wide trees, in a normal run). Each
// case is built so that the failure it guards against (a crash, a read without end, a hang, gigabytes
// allocated, minutes of work) cannot pass: a FIFO without a writer blocks an open() forever, /dev/zero
// never ends, the lying headers claim 1e9-1e12 elements.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_test_support.hpp"

namespace nodegen::test {

const std::string kBox2 = R"({"type": "box", "min": [0, 0], "max": [1, 1]})";

// A domain whose shape is `depth` levels of `wrap` around a unit box: wrap is the text before the
// child and close the text after it.
inline std::string nested_domain(int depth, const std::string& wrap, const std::string& close) {
  std::string text = R"({"dim": 2, "spacing": 0.25, "shape": )";
  text.reserve(text.size() + static_cast<std::size_t>(depth) * (wrap.size() + close.size()) + 64);
  for (int i = 0; i < depth; ++i) text += wrap;
  text += kBox2;
  for (int i = 0; i < depth; ++i) text += close;
  return text + "}";
}
const std::string kTranslate = R"({"type": "translate", "offset": [0, 0], "child": )";
const std::string kUnion = R"({"type": "union", "children": [)";

// Every run is bounded: a regression to a hang (a FIFO's open, /dev/zero's read) or to the quadratic
// wide union (many minutes for the children of WideUnionsRunInLinearTime) fails instead of waiting
// for the suite's timeout. The bound leaves room for the asan build on a loaded machine.
const std::string kBounded = "timeout 150 ";

class HostileInput : public CliTest {
 protected:
  void expect_error(const std::vector<std::string>& args, const std::vector<std::string>& expected,
                    const std::vector<std::string>& except = {}) {
    expect_input_error(args, expected, kBounded, except);
  }
  fs::path fifo(const std::string& name) {
    const fs::path p = dir_ / name;
    EXPECT_EQ(::mkfifo(p.c_str(), 0600), 0);
    return p;
  }
  std::string mesh_domain(const std::string& file) {
    return R"({"dim": 3, "spacing": 0.1, "shape": {"type": "mesh", "file": ")" + file + R"("}})";
  }
  void write_binary(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
};

}  // namespace nodegen::test
