#pragma once
// QuietLibraryOutput: while alive, what library code writes to std::cerr goes nowhere.
//
// Why: CGAL's readers report some malformed files on std::cerr themselves (its PLY header parser
// prints "Error: unknown file format ..." for a bad format line) before returning false, and nodegen
// then prints its own error: two lines where a user is promised one, `nodegen: error: FILE: FIELD:
// REASON`. The reader's failure is what nodegen reports; CGAL's words are dropped.
//
// std::cerr's buffer is process-wide: use it only where no other thread writes to std::cerr (the mesh
// is read while the domain file loads, before any fill thread starts).
#include <iostream>
#include <sstream>

namespace nodegen::geometry_detail {

class QuietLibraryOutput {
 public:
  QuietLibraryOutput() : saved_(std::cerr.rdbuf(sink_.rdbuf())) {}
  ~QuietLibraryOutput() { std::cerr.rdbuf(saved_); }
  QuietLibraryOutput(const QuietLibraryOutput&) = delete;
  QuietLibraryOutput& operator=(const QuietLibraryOutput&) = delete;

 private:
  std::ostringstream sink_;
  std::streambuf* saved_;
};

}  // namespace nodegen::geometry_detail
