// Nearest samples through nanoflann (sample_neighbours.hpp).
#include "geometry/spacing/sample_neighbours.hpp"

#include <algorithm>
#include <cstdint>

#include <nanoflann.hpp>

namespace nodegen::spacing_detail {
namespace {

struct Cloud {
  const std::vector<Eigen::Vector3d>* points;
  std::size_t kdtree_get_point_count() const { return points->size(); }
  double kdtree_get_pt(std::size_t i, std::size_t d) const { return (*points)[i][static_cast<Eigen::Index>(d)]; }
  template <class Box>
  bool kdtree_get_bbox(Box&) const {
    return false;
  }
};

}  // namespace

struct SampleNeighbours::Tree {
  Cloud cloud;
  using Index2 = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, Cloud>, Cloud, 2, std::uint32_t>;
  using Index3 = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, Cloud>, Cloud, 3, std::uint32_t>;
  std::unique_ptr<Index2> index2;
  std::unique_ptr<Index3> index3;
};

SampleNeighbours::SampleNeighbours(const std::vector<Eigen::Vector3d>& points, int dim) : tree_(std::make_unique<Tree>()) {
  tree_->cloud.points = &points;
  const nanoflann::KDTreeSingleIndexAdaptorParams params(16);
  if (dim == 2) {
    tree_->index2 = std::make_unique<Tree::Index2>(2, tree_->cloud, params);
  } else {
    tree_->index3 = std::make_unique<Tree::Index3>(3, tree_->cloud, params);
  }
}

SampleNeighbours::~SampleNeighbours() = default;
SampleNeighbours::SampleNeighbours(SampleNeighbours&&) noexcept = default;

double SampleNeighbours::inverse_distance(const Eigen::Vector3d& p, const std::vector<double>& values, int k) const {
  const auto want = static_cast<std::size_t>(std::min<std::size_t>(static_cast<std::size_t>(k), values.size()));
  std::vector<std::uint32_t> ids(want);
  std::vector<double> d2(want);
  const std::size_t found = tree_->index2 ? tree_->index2->knnSearch(p.data(), want, ids.data(), d2.data())
                                          : tree_->index3->knnSearch(p.data(), want, ids.data(), d2.data());
  std::vector<std::pair<double, std::uint32_t>> near(found);
  for (std::size_t i = 0; i < found; ++i) near[i] = {d2[i], ids[i]};
  std::sort(near.begin(), near.end());
  if (near.empty()) return values.front();
  if (near.front().first == 0.0) return values[near.front().second];
  double weighted = 0.0, weights = 0.0;
  for (const auto& [dist2, id] : near) {
    weighted += values[id] / dist2;
    weights += 1.0 / dist2;
  }
  return weighted / weights;
}

}  // namespace nodegen::spacing_detail
