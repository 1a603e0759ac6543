#include "nodegen/mpi/agreement.hpp"

#include <atomic>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "nodegen/geometry/spacing_fault.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "nodegen/storage/store_concept.hpp"

namespace nodegen::mpi {

namespace {

// The kinds of error the CLI reports differently, kept across the ranks.
enum Kind : std::int32_t { kOther = 0, kInput = 1, kSpacing = 2, kStoreFull = 3, kNoMemory = 4 };

struct Failure {
  std::int32_t kind = kOther;
  std::string file, field, reason;  // reason alone for another exception
};

Failure describe(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const InputError& x) {
    return {kInput, x.file(), x.field(), x.reason()};
  } catch (const SpacingFault& x) {
    return {kSpacing, {}, {}, x.what()};
  } catch (const StoreFull& x) {
    return {kStoreFull, {}, {}, x.what()};
  } catch (const std::bad_alloc&) {
    return {kNoMemory, {}, {}, {}};
  } catch (const std::exception& x) {
    return {kOther, {}, {}, x.what()};
  } catch (...) {
    return {kOther, {}, {}, "unknown exception"};
  }
}

// Set before agree() throws; read once the error reaches the CLI, perhaps on another thread.
std::atomic<bool> g_failure_agreed{false};

}  // namespace

bool failure_agreed() { return g_failure_agreed.load(std::memory_order_acquire); }

void broadcast(MPI_Comm comm, int root, std::string& s) {
  std::uint64_t size = s.size();
  MPI_Bcast(&size, 1, MPI_UINT64_T, root, comm);
  s.resize(size);
  if (size) MPI_Bcast(s.data(), static_cast<int>(size), MPI_CHAR, root, comm);
}

void agree(MPI_Comm comm, std::exception_ptr failure) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int first = failure ? rank : size;
  MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  Failure f;
  if (rank == first) f = describe(failure);
  MPI_Bcast(&f.kind, 1, MPI_INT32_T, first, comm);
  broadcast(comm, first, f.file);
  broadcast(comm, first, f.field);
  broadcast(comm, first, f.reason);
  g_failure_agreed.store(true, std::memory_order_release);
  switch (f.kind) {
    case kInput: throw InputError(f.file, f.field, f.reason);
    case kSpacing: throw SpacingFault(f.reason);
    case kStoreFull: throw StoreFull(f.reason);
    case kNoMemory: throw std::bad_alloc();
    default: throw std::runtime_error(f.reason);
  }
}

bool same_on_every_rank(MPI_Comm comm, const std::string& mine) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  std::string first = rank == 0 ? mine : std::string();
  broadcast(comm, 0, first);
  int same = first == mine ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, comm);
  return same != 0;
}

}  // namespace nodegen::mpi
