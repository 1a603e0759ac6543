// The test domains' fills on the SuballocStore backend, compiled once for every suite (fill_test_instances.hpp).
#include "fill_test_instances.hpp"

namespace nodegen {
NODEGEN_TEST_FILLS_ON(, SuballocStore)
}  // namespace nodegen
