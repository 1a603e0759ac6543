#include "nodegen/mpi/session.hpp"

#include <cstdlib>
#include <stdexcept>

namespace nodegen::mpi {

Session::Session(int& argc, char**& argv) {
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Init_thread failed");
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw std::runtime_error("the MPI library does not let any thread call it (MPI_THREAD_SERIALIZED), which the fill needs");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

Session::~Session() { MPI_Finalize(); }

void Session::abort(int status) const {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);  // MPI_Abort does not return; should a library's do, the job still ends
}

void Session::max(std::vector<double>& values) const {
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

std::vector<double> Session::gather(const std::vector<double>& mine) const {
  std::vector<double> all(rank_ == 0 ? mine.size() * static_cast<std::size_t>(size_) : 0);
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(), static_cast<int>(mine.size()),
             MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return all;
}

}  // namespace nodegen::mpi
