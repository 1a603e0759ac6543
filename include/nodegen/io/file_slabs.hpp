#pragma once
// Where one writer's nodes go in the output file. A single process writes every row (whole()); when
// several processes write one file together (src/mpi), each holds some of the nodes and some of the
// boundary normals, as runs of consecutive rows of the file's arrays, and its local arrays hold those
// runs one after the other.
#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

namespace nodegen::io {

struct RowRun {
  std::size_t first = 0;  // the file row of the run's first element
  std::size_t count = 0;
};

// Rows of one array (the nodes, or the normals) held by this writer: runs in local order.
class RowRuns {
 public:
  RowRuns() = default;
  explicit RowRuns(std::vector<RowRun> runs) : runs_(std::move(runs)) {
    for (const RowRun& r : runs_) {
      starts_.push_back(local_count_);
      local_count_ += r.count;
    }
  }
  static RowRuns whole(std::size_t n) { return RowRuns(std::vector<RowRun>{{0, n}}); }

  const std::vector<RowRun>& runs() const { return runs_; }
  std::size_t local_count() const { return local_count_; }

  // The file row of local element i (i < local_count()).
  std::size_t file_row(std::size_t i) const {
    const std::size_t k = run_of(i);
    return runs_[k].first + (i - starts_[k]);
  }
  // The local element holding file row `row`, if this writer holds it.
  std::optional<std::size_t> local_of(std::size_t row) const {
    for (std::size_t k = 0; k < runs_.size(); ++k)
      if (row >= runs_[k].first && row - runs_[k].first < runs_[k].count) return starts_[k] + (row - runs_[k].first);
    return std::nullopt;
  }
  // Calls f(file_row, local_index, count) for each piece of the local range [first, first + count) that
  // is consecutive in the file.
  template <class F>
  void for_each_piece(std::size_t first, std::size_t count, F&& f) const {
    while (count > 0) {
      const std::size_t k = run_of(first);
      const std::size_t offset = first - starts_[k];
      const std::size_t len = std::min(count, runs_[k].count - offset);
      f(runs_[k].first + offset, first, len);
      first += len;
      count -= len;
    }
  }

 private:
  std::size_t run_of(std::size_t i) const {
    // The last run starting at or before i, skipping empty runs.
    auto it = std::upper_bound(starts_.begin(), starts_.end(), i);
    std::size_t k = static_cast<std::size_t>(it - starts_.begin()) - 1;
    while (runs_[k].count == 0) ++k;
    return k;
  }
  std::vector<RowRun> runs_;
  std::vector<std::size_t> starts_;  // local index of each run's first element
  std::size_t local_count_ = 0;
};

struct FileSlabs {
  RowRuns nodes;                 // rows of pos, types, bmap, h (and the display arrays)
  RowRuns normals;               // rows of normals (bmap holds file rows of normals)
  std::size_t node_total = 0;    // rows of the whole file
  std::size_t normal_total = 0;

  static FileSlabs whole(std::size_t n, std::size_t nb) { return {RowRuns::whole(n), RowRuns::whole(nb), n, nb}; }
};

}  // namespace nodegen::io
