#pragma once
// Runs part of a command in a child process, so that a crash inside a library reading a hostile file
// ends in the one-line input error instead of killing nodegen. `nodegen stats` needs it: libhdf5 1.10
// writes through a null pointer on some corrupt files (a local heap whose data block is at the
// undefined address), before any check nodegen can make through its API.
#include <functional>
#include <string>

namespace nodegen::cli {

// In the child (fork), runs body() and returns its status: the caller goes on as the child would
// (main returns it, or prints the error of what body() threw and exits 2). In the parent, waits for
// the child, passes its standard error through, and returns its exit status; a child killed by a
// signal throws InputError(file, "(file)", "... crashed reading it ...") and its standard error
// (a sanitizer's report) is dropped. Without fork, body() runs here.
int run_isolated(const std::function<int()>& body, const std::string& file, const std::string& what);

}  // namespace nodegen::cli
