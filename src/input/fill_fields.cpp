#include "input/fill_fields.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace nodegen::input_detail {

FillFields read_fill_fields(const JsonFields& fields, const nlohmann::json& f) {
  FillFields out;
  FillParams& params = out.params;
  params = FillParams::defaults_for(fields.dim());
  if (!f.is_object()) fields.fail("fill", "expected an object, got " + json_type_name(f));
  fields.only(f, "fill", {"candidates", "seed", "max_nodes", "nodes"});
  auto integer = [&](const char* key, long long lo) -> long long {
    const nlohmann::json& v = f[key];
    if (!v.is_number_integer()) fields.fail(std::string("fill.") + key, "expected an integer, got " + v.dump());
    const long long x = v.is_number_unsigned()
                            ? static_cast<long long>(std::min<std::uint64_t>(v.get<std::uint64_t>(), INT64_MAX))
                            : v.get<long long>();
    if (x < lo) fields.fail(std::string("fill.") + key, "must be at least " + std::to_string(lo) + ", got " + v.dump());
    return x;
  };
  if (f.contains("candidates")) {
    const long long c = integer("candidates", 1);
    if (c > 10000) fields.fail("fill.candidates", "must be at most 10000, got " + std::to_string(c));
    params.candidates = static_cast<int>(c);
  }
  if (f.contains("seed")) {
    if (!f["seed"].is_number_unsigned() && !(f["seed"].is_number_integer() && f["seed"].get<long long>() >= 0))
      fields.fail("fill.seed", "expected a non-negative integer, got " + f["seed"].dump());
    if (f["seed"].get<std::uint64_t>() > FillParams::kMaxSeed)
      fields.fail("fill.seed", "must be at most " + std::to_string(FillParams::kMaxSeed) + ", got " + f["seed"].dump());
    params.seed = f["seed"].get<std::uint64_t>();
  }
  if (f.contains("max_nodes")) {
    const long long cap = integer("max_nodes", 1);
    if (static_cast<std::uint64_t>(cap) > FillParams::kMaxNodeCap)
      fields.fail("fill.max_nodes", "must be at most " + std::to_string(FillParams::kMaxNodeCap) +
                                        " (the output indexes nodes with int32), got " + f["max_nodes"].dump());
    params.max_nodes = static_cast<std::size_t>(cap);
  }
  if (f.contains("nodes")) {
    const long long n = integer("nodes", 1);
    if (static_cast<std::uint64_t>(n) > FillParams::kMaxNodeCap)
      fields.fail("fill.nodes", "must be at most " + std::to_string(FillParams::kMaxNodeCap) + ", got " + f["nodes"].dump());
    out.nodes = static_cast<std::size_t>(n);
  }
  return out;
}

}  // namespace nodegen::input_detail
