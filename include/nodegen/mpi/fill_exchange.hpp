#pragma once
// The fill's exchange between phases (fill/phase_exchange.hpp) over the ranks of an MPI communicator:
// allreduces for the agreements, a prefix sum for the rows, and point-to-point messages for the nodes
// (each pair of ranks swaps one count per phase; only non-empty buffers travel). The fill calls it from
// whichever of its threads runs the completion step, one at a time: mpi::Session initialises MPI with
// MPI_THREAD_SERIALIZED.
#include <mpi.h>

#include "nodegen/fill/phase_exchange.hpp"

namespace nodegen::mpi {

class FillExchange final : public PhaseExchange {
 public:
  explicit FillExchange(MPI_Comm comm);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void agree(std::exception_ptr failure) override;
  void min(std::span<std::int64_t> values) override;
  void sum(std::span<double> values) override;
  std::pair<std::uint64_t, std::uint64_t> scan(std::uint64_t count) override;
  void exchange(const std::vector<std::vector<double>>& out, std::vector<std::vector<double>>& in) override;

 private:
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
};

}  // namespace nodegen::mpi
