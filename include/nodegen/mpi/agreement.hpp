#pragma once
// Errors agreed across the ranks of a communicator: before each collective step every rank says
// whether it failed, and when any did, every rank ends with the error of the lowest failing rank, so
// one rank's failure never leaves the others waiting in a collective call and the error reads the same
// everywhere (the CLI prints it once, on rank 0).
#include <mpi.h>

#include <exception>
#include <string>

namespace nodegen::mpi {

// Collective over `comm`: returns when no rank passed an error; otherwise throws, on every rank, the
// error of the lowest failing rank: an InputError, a SpacingFault, a StoreFull or a bad_alloc as the
// same kind of error, with the same text; any other exception as std::runtime_error with its message.
void agree(MPI_Comm comm, std::exception_ptr failure);

// Whether this process has thrown an error agree() made known to every rank. An error that was not
// (a rank failing on its own between two agreements) leaves the other ranks waiting in their next
// collective: the CLI then ends the job with MPI_Abort instead of finalizing.
bool failure_agreed();

// Collective over `comm`: `s` becomes rank `root`'s on every rank.
void broadcast(MPI_Comm comm, int root, std::string& s);

// Collective over `comm`: whether `mine` is, byte for byte, rank 0's (the same answer on every rank).
bool same_on_every_rank(MPI_Comm comm, const std::string& mine);

// Runs f() and agrees on its outcome (f's exception, if any, is what this rank reports).
template <class F>
void agreed(MPI_Comm comm, F&& f) {
  std::exception_ptr failure;
  try {
    f();
  } catch (...) {
    failure = std::current_exception();
  }
  agree(comm, failure);
}

}  // namespace nodegen::mpi
