// The fills of a loaded domain on the VmStore backend, compiled once for every caller (fill.hpp).
#include "nodegen/fill/fill.hpp"

namespace nodegen {
NODEGEN_DOMAIN_FILLS_ON(, VmStore)
}  // namespace nodegen
