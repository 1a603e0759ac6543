#include "nodegen/mpi/fill_exchange.hpp"

#include <algorithm>
#include <climits>
#include <cstddef>

#include "nodegen/mpi/agreement.hpp"

namespace nodegen::mpi {

FillExchange::FillExchange(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

void FillExchange::agree(std::exception_ptr failure) { mpi::agree(comm_, failure); }

void FillExchange::min(std::span<std::int64_t> values) {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T, MPI_MIN, comm_);
}

void FillExchange::sum(std::span<double> values) {
  // MPI counts are int: long arrays go in pieces.
  constexpr std::size_t kPiece = std::size_t{1} << 28;
  for (std::size_t first = 0; first < values.size(); first += kPiece) {
    const std::size_t n = std::min(kPiece, values.size() - first);
    MPI_Allreduce(MPI_IN_PLACE, values.data() + first, static_cast<int>(n), MPI_DOUBLE, MPI_SUM, comm_);
  }
}

std::pair<std::uint64_t, std::uint64_t> FillExchange::scan(std::uint64_t count) {
  std::uint64_t before = 0, total = 0;
  MPI_Exscan(&count, &before, 1, MPI_UINT64_T, MPI_SUM, comm_);
  if (rank_ == 0) before = 0;  // MPI leaves rank 0's result undefined
  MPI_Allreduce(&count, &total, 1, MPI_UINT64_T, MPI_SUM, comm_);
  return {before, total};
}

void FillExchange::exchange(const std::vector<std::vector<double>>& out, std::vector<std::vector<double>>& in) {
  const std::size_t ranks = static_cast<std::size_t>(size_);
  std::vector<std::uint64_t> send_counts(ranks, 0), recv_counts(ranks, 0);
  for (std::size_t r = 0; r < ranks && r < out.size(); ++r)
    if (static_cast<int>(r) != rank_) send_counts[r] = out[r].size();
  MPI_Alltoall(send_counts.data(), 1, MPI_UINT64_T, recv_counts.data(), 1, MPI_UINT64_T, comm_);
  in.assign(ranks, {});
  // Buffers longer than an int count go in pieces, each its own message (same tag, so in order).
  constexpr std::size_t kPiece = std::size_t{1} << 28;
  std::vector<MPI_Request> requests;
  for (std::size_t r = 0; r < ranks; ++r) {
    in[r].resize(static_cast<std::size_t>(recv_counts[r]));
    for (std::size_t first = 0; first < in[r].size(); first += kPiece) {
      requests.emplace_back();
      MPI_Irecv(in[r].data() + first, static_cast<int>(std::min(kPiece, in[r].size() - first)), MPI_DOUBLE,
                static_cast<int>(r), 0, comm_, &requests.back());
    }
  }
  for (std::size_t r = 0; r < ranks; ++r)
    for (std::size_t first = 0; first < send_counts[r]; first += kPiece) {
      requests.emplace_back();
      MPI_Isend(out[r].data() + first, static_cast<int>(std::min<std::size_t>(kPiece, send_counts[r] - first)),
                MPI_DOUBLE, static_cast<int>(r), 0, comm_, &requests.back());
    }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
}

}  // namespace nodegen::mpi
