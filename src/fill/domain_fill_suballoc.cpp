// The fills of a loaded domain on the SuballocStore backend, compiled once for every caller (fill.hpp).
#include "nodegen/fill/fill.hpp"

namespace nodegen {
NODEGEN_DOMAIN_FILLS_ON(, SuballocStore)
}  // namespace nodegen
