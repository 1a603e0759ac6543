#pragma once
// The point/vector type every layer passes across its interface (see docs/architecture.md).
#include <Eigen/Core>

namespace nodegen {

template <int D>
using Vec = Eigen::Matrix<double, D, 1>;

}  // namespace nodegen
