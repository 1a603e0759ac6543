#pragma once
// The figures of a whole run (every rank's together) that its summary line and its report give.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "rank_parts.hpp"

namespace nodegen::cli {

struct RunTotals {
  std::size_t nodes = 0, boundary = 0;  // of the whole
  double seconds = 0.0;                 // the whole command's wall time up to the report
  double fill_seconds = 0.0, boundary_seconds = 0.0;  // the slowest rank's
  std::size_t peak_rss_bytes = 0;                     // the largest rank's
  std::int64_t minor_faults = 0;                      // this process's
  std::string fingerprint;                            // nodes_sha256
  std::size_t reserved_nodes = 0;                     // the room the last fill reserved
  int fill_runs = 1;                                  // fills run (more when an estimate left too little room)
  double spacing_factor = 1.0;                        // the spacing's factor for a target node count
  int target_fills = 0;                               // fills run to reach the target (0: no target)
  std::vector<RankFigures> ranks;                     // every rank's (one process: its own)

  double nodes_per_second() const { return fill_seconds > 0 ? static_cast<double>(nodes) / fill_seconds : 0.0; }
  double most_rank_nodes() const {
    double most = 0.0;
    for (const RankFigures& r : ranks) most = std::max(most, r.nodes);
    return most;
  }
  double least_rank_nodes() const {
    double least = ranks.empty() ? 0.0 : ranks.front().nodes;
    for (const RankFigures& r : ranks) least = std::min(least, r.nodes);
    return least;
  }
  // The most nodes a rank holds over the mean (1 for one process).
  double load_imbalance() const {
    double sum = 0.0;
    for (const RankFigures& r : ranks) sum += r.nodes;
    return sum > 0 ? most_rank_nodes() / (sum / static_cast<double>(ranks.size())) : 1.0;
  }
};

}  // namespace nodegen::cli
