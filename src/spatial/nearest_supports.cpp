// nearest_supports (spatial/nearest_supports.hpp): a static k-d tree of the nodes (support_tree.hpp),
// built and asked in parallel.
#include "nodegen/spatial/nearest_supports.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/spatial/leaf_distances.hpp"
#include "spatial/rank_by_distance.hpp"
#include "spatial/support_tree.hpp"

namespace nodegen {

namespace {

// One thread's k-nearest queries, a leaf of the tree at a time and the leaves in the tree's order
// (neighbouring leaves hold nodes of nearly the same spacing). One walk gathers the points within r of
// the leaf's box, whose radius is the last leaf's largest k-th distance grown by a tenth; each of the
// leaf's points keeps, of those within r of itself, the k nearest by (squared distance, id). The radius
// is doubled until every k-th nearest lies clearly inside it: every point outside is then farther than
// all k, so the answer is the exact k nearest whatever radius found it, the same on any thread. The
// first leaf of a run starts from its own diagonal.
template <int D>
class LeafQueries {
 public:
  LeafQueries(const spatial_detail::SupportTree<D>& tree, int k) : tree_(tree), k_(static_cast<std::size_t>(k)) {}

  void answer(std::size_t leaf, std::int64_t* out) {
    const std::size_t begin = tree_.leaf_begin(leaf), end = tree_.leaf_end(leaf);
    if (!(radius2_ > 0)) radius2_ = std::max(tree_.leaf_diagonal2(leaf), std::numeric_limits<double>::min());
    for (double r2 = radius2_ * 1.21;; r2 *= 4) {
      gather(leaf, r2);
      if (gathered_ < k_) continue;
      rows_.clear();
      double largest = 0.0;
      bool inside = true;
      for (std::size_t j = begin; j < end && inside; ++j) {
        const double kth2 = select(tree_.point_at(j), r2);
        inside = kth2 < r2 * (1.0 - 1e-9);  // a point the pruning's rounding left out lies beyond
        largest = std::max(largest, kth2);
      }
      if (!inside) continue;
      for (std::size_t j = begin; j < end; ++j)
        std::copy_n(rows_.begin() + static_cast<std::ptrdiff_t>((j - begin) * k_), k_, out + tree_.id_at(j) * k_);
      radius2_ = largest;
      return;
    }
  }

 private:
  // The points near the leaf (SupportTree::near_leaf), copied a leaf's range at a time.
  void gather(std::size_t leaf, double r2) {
    gathered_ = 0;
    tree_.near_leaf(leaf, std::sqrt(r2), [&](std::size_t begin, std::size_t end) {
      const std::size_t m = gathered_, n = end - begin;
      gathered_ += n;
      if (near_id_.size() < gathered_) {
        near_id_.resize(2 * gathered_);
        for (auto& axis : coords_) axis.resize(2 * gathered_);
      }
      for (std::size_t j = 0; j < n; ++j) near_id_[m + j] = tree_.id_at(begin + j);
      for (int a = 0; a < D; ++a)
        std::copy_n(tree_.axis(a) + begin, n, coords_[static_cast<std::size_t>(a)].data() + m);
    });
  }

  // Appends a row to rows_: q's k nearest of the gathered points; returns the k-th's squared distance,
  // or infinity (the row unfinished) when fewer than k are within r. The previous query's k-th
  // distance, grown by a margin, is tried as a tighter cut first, then by a wider one (each only when
  // below r and above the cut before): when k points lie within a cut, they hold the k nearest, and
  // ranking a few more than k (rank_by_distance) is far cheaper than selecting from all that were
  // gathered.
  double select(const Vec<D>& q, double r2) {
    const double tight = std::min(r2, last_kth2_ * kCutGrowth), wide = std::min(r2, last_kth2_ * kSecondCutGrowth);
    std::size_t kept = tight > 0 ? keep_within(q, tight) : 0;
    if (kept < k_ && wide > tight) kept = keep_within(q, wide);
    if (kept < k_ && r2 > wide) kept = keep_within(q, r2);
    const std::size_t first = rows_.size();
    rows_.resize(first + k_);
    if (kept < k_) return std::numeric_limits<double>::infinity();
    std::int64_t* row = rows_.data() + first;
    last_kth2_ = kept <= kRankedAtMost ? rank_nearest(kept, row) : sort_nearest(kept, row);
    return last_kth2_;
  }

  // The gathered points closer than `limit` (squared) to q: their squared distances and ids to kept_d2_
  // and kept_id_; their count. The distances and the comparisons come 64 points at a time as bit masks
  // (leaf_within, at the CPU's vector width), and only the few kept have their distance summed again,
  // in the same order, so it is the one compared.
  std::size_t keep_within(const Vec<D>& q, double limit) {
    const std::size_t m = gathered_;
    grow(kept_d2_, spatial_detail::rank_padded(m));
    grow(kept_id_, spatial_detail::rank_padded(m));
    std::size_t kept = 0;
    const double* axes[D];
    for (std::size_t c = 0; c < m; c += 64) {
      const auto n = static_cast<std::uint32_t>(std::min<std::size_t>(64, m - c));
      for (int a = 0; a < D; ++a) axes[a] = coords_[static_cast<std::size_t>(a)].data() + c;
      for (std::uint64_t mask = spatial_detail::leaf_within(axes, D, n, q.data(), limit); mask; mask &= mask - 1) {
        const auto i = static_cast<std::size_t>(std::countr_zero(mask));
        double d2 = 0.0;
        for (int a = 0; a < D; ++a) {
          const double t = axes[a][i] - q[a];
          d2 += t * t;
        }
        kept_d2_[kept] = d2;
        kept_id_[kept] = near_id_[c + i];
        ++kept;
      }
    }
    return kept;
  }
  // At least n entries (a vector only grows: a resize down and up would fill the entries again).
  template <class T>
  static void grow(std::vector<T>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
  }

  // The k nearest of the `kept` points by (squared distance, id) into out; the k-th's squared distance.
  double rank_nearest(std::size_t kept, std::int64_t* out) {
    const std::size_t padded = spatial_detail::rank_padded(kept);
    grow(places_, padded);  // kept_d2_ and kept_id_ hold as many (keep_within): past `kept`, any values
    spatial_detail::rank_by_distance(kept_d2_.data(), kept_id_.data(), kept, places_.data());
    // Every kept point to its place (the places are 0 .. kept - 1, each once): no branch on whether a
    // place is among the first k, which the CPU would mispredict about a quarter of the time.
    grow(ranked_id_, kept);
    grow(ranked_d2_, kept);
    for (std::size_t a = 0; a < kept; ++a) {
      ranked_id_[places_[a]] = static_cast<std::int64_t>(kept_id_[a]);
      ranked_d2_[places_[a]] = kept_d2_[a];
    }
    std::copy_n(ranked_id_.begin(), k_, out);
    return ranked_d2_[k_ - 1];
  }
  // The same by selecting, for many points.
  double sort_nearest(std::size_t kept, std::int64_t* out) {
    found_.resize(kept);
    for (std::size_t a = 0; a < kept; ++a) found_[a] = {kept_d2_[a], kept_id_[a]};
    const auto kth = found_.begin() + static_cast<std::ptrdiff_t>(k_ - 1);
    std::nth_element(found_.begin(), kth, found_.end());
    std::sort(found_.begin(), kth);
    for (std::size_t i = 0; i < k_; ++i) out[i] = static_cast<std::int64_t>(found_[i].second);
    return found_[k_ - 1].first;
  }

  // The tighter cuts: the previous query's k-th squared distance times these (a k-th distance 5 %,
  // then 15 % farther: a seventh of the 2D queries miss the first); up to kRankedAtMost points are
  // ranked, more are selected.
  static constexpr double kCutGrowth = 1.1025;
  static constexpr double kSecondCutGrowth = 1.3225;
  static constexpr std::size_t kRankedAtMost = 64;

  const spatial_detail::SupportTree<D>& tree_;
  std::size_t k_;
  double radius2_ = 0.0;
  std::size_t gathered_ = 0;                         // points gathered (gather): the arrays' first ones
  std::vector<double> near_id_;                      // their ids, as doubles (exact)
  std::array<std::vector<double>, D> coords_;        // their coordinates, an array per axis
  std::vector<double> kept_d2_, kept_id_;            // those within the cut (keep_within)
  std::vector<std::uint32_t> places_;                // their places by (squared distance, id)
  std::vector<std::int64_t> ranked_id_;              // their ids and squared distances by place
  std::vector<double> ranked_d2_;
  std::vector<std::pair<double, double>> found_;     // (squared distance, id) when sorting
  double last_kth2_ = 0.0;                           // the previous query's k-th squared distance
  std::vector<std::int64_t> rows_;                   // the leaf's rows, in tree order
};

}  // namespace

template <int D>
std::vector<std::int64_t> nearest_supports(std::span<const Vec<D>> positions, int k, int threads) {
  const std::size_t n = positions.size();
  if (n > 0x7FFF'FFFFu)
    throw std::invalid_argument("supports: " + std::to_string(n) + " nodes, beyond the 2^31 - 1 rows they index");
  if (k < 1 || static_cast<std::size_t>(k) > n)
    throw std::invalid_argument("supports: k = " + std::to_string(k) + " must be from 1 to the node count, " +
                                std::to_string(n));
  Vec<D> lo = Vec<D>::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (std::size_t i = 0; i < n; ++i) {
    if (!positions[i].allFinite())
      throw std::invalid_argument("supports: node " + std::to_string(i) + " has a coordinate that is not finite");
    lo = lo.cwiseMin(positions[i]), hi = hi.cwiseMax(positions[i]);
  }
  // Squared distances across the nodes must be finite, or no radius would ever hold k of them.
  if (!std::isfinite((hi - lo).squaredNorm()))
    throw std::invalid_argument("supports: the nodes span more than squared distances in double precision hold");
  const spatial_detail::SupportTree<D> tree(positions, lo, hi, threads);
  const auto width = static_cast<std::size_t>(k);
  std::vector<std::int64_t> out(n * width);
  parallel_ranges(tree.leaves(), threads, [&](int, std::size_t begin, std::size_t end) {
    LeafQueries<D> queries(tree, k);
    for (std::size_t leaf = begin; leaf < end; ++leaf) queries.answer(leaf, out.data());
  });
  return out;
}

template std::vector<std::int64_t> nearest_supports<2>(std::span<const Vec<2>>, int, int);
template std::vector<std::int64_t> nearest_supports<3>(std::span<const Vec<3>>, int, int);

}  // namespace nodegen
