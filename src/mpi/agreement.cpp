#include "nodegen/mpi/agreement.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "nodegen/geometry/input_error.hpp"

namespace nodegen::mpi {

namespace {

struct Failure {
  std::int32_t is_input_error = 0;
  std::string file, field, reason;  // reason alone for another exception
};

Failure describe(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return {1, x.file(), x.field(), x.reason()};
  } catch (const std::exception& x) {
    return {0, {}, {}, x.what()};
  } catch (...) {
    return {0, {}, {}, "unknown exception"};
  }
}

void broadcast(MPI_Comm comm, int root, std::string& s) {
  std::uint64_t size = s.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, root, comm);
  s.resize(size);
  if (size) MPI_Bcast(s.data(), static_cast<int>(size), MPI_CHAR, root, comm);
}

}  // namespace

void agree(MPI_Comm comm, std::exception_ptr failure) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = failure ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  Failure f;
  if (rank == first) f = describe(failure);
  MPI_Bcast(&f.is_input_error, 1, MPI_INT32_T, first, comm);
  broadcast(comm, first, f.file);
  broadcast(comm, first, f.field);
  broadcast(comm, first, f.reason);
  if (f.is_input_error) throw InputError(f.file, f.field, f.reason);
  throw std::runtime_error(f.reason);
}

}  // namespace nodegen::mpi
