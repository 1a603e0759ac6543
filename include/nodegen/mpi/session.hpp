#pragma once
// The MPI runtime of one process: MPI_Init_thread on construction (MPI_THREAD_SERIALIZED: the fill
// calls MPI between phases from whichever of its threads ends the phase, one at a time), MPI_Finalize on
// destruction. Construct it only when launched_by_mpi().
#include <mpi.h>

#include <vector>

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
  // Collective: every rank's `mine` (of one length on every rank), one after the other in rank order,
  // on rank 0; empty on the others.
  std::vector<double> gather(const std::vector<double>& mine) const;
  // Collective: the element-wise maximum over the ranks, in place, on every rank.
  void max(std::vector<double>& values) const;
  // Ends every rank of the job now (MPI_Abort with `status`): for a failure the other ranks do not
  // know of, which would leave them waiting in a collective and this rank in MPI_Finalize.
  [[noreturn]] void abort(int status) const;

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace nodegen::mpi
