#pragma once
// The nearest samples of a point, for a sampled spacing outside its samples' hull: a k-d tree over the
// sample positions (nanoflann; const queries from any number of threads), and the inverse-distance
// weighting of their values, summed in the order of (distance, index) so that equal distances found in
// another order give the same value.
#include <memory>
#include <vector>

#include <Eigen/Core>

namespace nodegen::spacing_detail {

class SampleNeighbours {
 public:
  // Keeps a reference to `points`, which must outlive it (z = 0 for 2D samples).
  SampleNeighbours(const std::vector<Eigen::Vector3d>& points, int dim);
  ~SampleNeighbours();
  SampleNeighbours(SampleNeighbours&&) noexcept;

  // sum(v_i / d_i^2) / sum(1 / d_i^2) over the k nearest samples; a sample at p gives its own value.
  double inverse_distance(const Eigen::Vector3d& p, const std::vector<double>& values, int k) const;

 private:
  struct Tree;
  std::unique_ptr<Tree> tree_;
};

}  // namespace nodegen::spacing_detail
