#pragma once
// Reading the fields of a domain file's JSON objects, each problem one InputError "FILE: FIELD: REASON"
// whose FIELD is the JSON path of the offending value ("shape.children[1].radius"). The shape reader,
// the spacing reader and the domain file loader share it, so every field is checked and named alike.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nodegen/geometry/input_error.hpp"
#include "nodegen/spatial/point.hpp"

namespace nodegen {

// "a string", "an array", ... for "expected X, got Y" messages.
std::string json_type_name(const nlohmann::json& j);

// A number as a message shows it: six significant digits, "nan" for any NaN.
std::string number_text(double v);

class JsonFields {
 public:
  // `file`: the domain file (named in every error; relative paths inside it resolve against its folder).
  // `dim`: the file's dimension (0 until it is known). `isolate_reads`: the files a library may crash
  // or loop on (HDF5 samples, CAD parts) are read in a child process first (child_read.hpp); off
  // where forking is unwelcome (under MPI).
  JsonFields(std::filesystem::path file, int dim, bool isolate_reads = true)
      : file_(std::move(file)), dim_(dim), isolate_reads_(isolate_reads) {}

  const std::filesystem::path& file() const { return file_; }
  int dim() const { return dim_; }
  bool isolate_reads() const { return isolate_reads_; }

  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw InputError(file_.string(), field, reason);
  }
  // "at.key", or "key" at the top level.
  static std::string join(const std::string& at, const std::string& key) { return at.empty() ? key : at + "." + key; }

  // obj[key], or fails with "missing".
  const nlohmann::json& require(const nlohmann::json& obj, const std::string& at, const char* key) const;
  // Field names an object may have besides "comment" and "name"; anything else is probably a typo.
  void only(const nlohmann::json& obj, const std::string& at, std::set<std::string> allowed) const;

  double number(const nlohmann::json& j, const std::string& at) const;    // finite
  double positive(const nlohmann::json& j, const std::string& at) const;  // finite and > 0
  std::string string(const nlohmann::json& j, const std::string& at) const;
  template <int D>
  Vec<D> vec(const nlohmann::json& j, const std::string& at) const {
    if (!j.is_array() || j.size() != static_cast<std::size_t>(D))
      fail(at, "expected an array of " + std::to_string(D) + " numbers, got " + json_type_name(j) +
                   (j.is_array() ? " of " + std::to_string(j.size()) : ""));
    Vec<D> v;
    for (int i = 0; i < D; ++i) v[i] = number(j[i], at + "[" + std::to_string(i) + "]");
    return v;
  }

  // The file named by the string `j` at `at`, resolved against the domain file's folder and remembered
  // (inputs()), so that a run can refuse to write its output over a file its domain reads. A name
  // holding a NUL byte is refused: the system reads a name only up to one ("p.txt\u0000x" read p.txt);
  // and so is one longer than a path may be (PATH_MAX).
  std::string resolve(const nlohmann::json& j, const std::string& at) const;
  const std::vector<std::filesystem::path>& inputs() const { return inputs_; }

 private:
  std::filesystem::path file_;
  int dim_;
  bool isolate_reads_;
  mutable std::vector<std::filesystem::path> inputs_;
};

}  // namespace nodegen
