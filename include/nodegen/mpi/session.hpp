#pragma once
// The MPI runtime of one process: MPI_Init_thread on construction (the fill's threads never call MPI:
// MPI_THREAD_FUNNELED), MPI_Finalize on destruction. Construct it only when launched_by_mpi().
#include <mpi.h>

namespace nodegen::mpi {

class Session {
 public:
  Session(int& argc, char**& argv);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session();

  MPI_Comm comm() const { return MPI_COMM_WORLD; }
  int rank() const { return rank_; }
  int size() const { return size_; }

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace nodegen::mpi
