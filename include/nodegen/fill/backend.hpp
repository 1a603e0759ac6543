#pragma once
// The node-store backend the fill runs on, chosen at run time (`nodegen run --backend vm|vector|suballoc`).
// The fill is templated on the store family; fill_domain (fill.hpp) turns this enum into that template
// argument once, so the hot loop never dispatches.
#include <stdexcept>
#include <string>
#include <string_view>

namespace nodegen {

enum class Backend { vm, vector, suballoc };

// Accepts the names the CLI shows: "vm" (virtual-memory store, default), "vector" (std::vector under a
// readers-writer lock), "suballoc" (Tapia bit-heap suballocator). Throws std::invalid_argument otherwise.
inline Backend parse_backend(std::string_view name) {
  if (name == "vm") return Backend::vm;
  if (name == "vector") return Backend::vector;
  if (name == "suballoc") return Backend::suballoc;
  throw std::invalid_argument("unknown backend '" + std::string(name) + "' (expected vm, vector or suballoc)");
}

inline const char* backend_name(Backend backend) {
  switch (backend) {
    case Backend::vm: return "vm";
    case Backend::vector: return "vector";
    case Backend::suballoc: return "suballoc";
  }
  return "?";
}

}  // namespace nodegen
