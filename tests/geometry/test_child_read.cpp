// read_in_child (geometry/child_read.hpp): what a child process returns, and the one error line for a
// child that throws, crashes or outlasts its time limit.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <string>
#include <thread>

#include "nodegen/geometry/child_read.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen {
namespace {

using namespace std::chrono_literals;

std::string error_of(const std::function<std::string()>& read, std::chrono::seconds limit = 0s) {
  try {
    read_in_child(read, "part.step", "the library", 1 << 20, limit);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ChildRead, ReturnsTheChildsBytesAndItsErrors) {
  EXPECT_EQ(read_in_child([] { return std::string("payload\0with a NUL", 18); }, "part.step", "the library", 64),
            std::string("payload\0with a NUL", 18));
  EXPECT_EQ(error_of([]() -> std::string { throw InputError("part.step", "shape.file", "is not a part"); }),
            "part.step: shape.file: is not a part");
}

// (Under AddressSanitizer the child reports the fault and exits 1 instead of dying by the signal.)
TEST(ChildRead, ACrashIsTheFilesError) {
  const std::string error = error_of([]() -> std::string {
    std::raise(SIGSEGV);
    return {};
  });
  EXPECT_EQ(error.rfind("part.step: (file): the library crashed reading it", 0), 0u) << error;
}

// A library that never returns (Open CASCADE on a NaN coordinate) is stopped at the limit.
TEST(ChildRead, AReadPastItsTimeLimitIsStopped) {
  const auto start = std::chrono::steady_clock::now();
  const std::string error = error_of(
      []() -> std::string {
        for (;;) std::this_thread::sleep_for(1s);
      },
      1s);
  EXPECT_EQ(error.rfind("part.step: (file): the library did not finish reading it in 1 s", 0), 0u) << error;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
}

}  // namespace
}  // namespace nodegen
