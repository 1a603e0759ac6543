#pragma once
// Reading a user's file in a child process, so that a crash inside a library reading a hostile file
// (libhdf5 1.10 writes through a null pointer on some corrupt files, before any check nodegen can make
// through its API; Open CASCADE follows a STEP file's dangling references) ends in the file's one-line
// error instead of killing nodegen, and a library that loops forever on one (Open CASCADE on a NaN
// coordinate) is stopped after a time limit.
#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

namespace nodegen {

// Runs read() in a child process and returns the bytes it returned (at most `most_bytes`). An
// InputError the child throws is thrown here with the same file, field and reason; a child that
// crashes throws InputError(file, "(file)", "<what> crashed reading it ..."); one ended from outside
// (a signal other than a fault) says so; with a `limit`, a child still reading after it is killed and
// InputError(file, "(file)", "<what> did not finish reading it in ...") thrown. Without fork (or a
// pipe), read() runs here.
std::string read_in_child(const std::function<std::string()>& read, const std::string& file, const std::string& what,
                          std::size_t most_bytes, std::chrono::seconds limit = std::chrono::seconds::zero());

}  // namespace nodegen
