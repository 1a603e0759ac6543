#pragma once
// What the fill needs from a group of processes that fill one domain together (the MPI ranks of a
// run; src/mpi implements it). The fill calls it between phases, from one thread of each process (the
// barrier's completion step, pnp_fill.hpp), never inside a tile's work: a virtual call per phase costs
// nothing beside the phase. Every call is collective: each process makes the same calls in the same order.
#include <cstdint>
#include <exception>
#include <span>
#include <utility>
#include <vector>

namespace nodegen {

class PhaseExchange {
 public:
  virtual ~PhaseExchange() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Returns when no process passed an error; otherwise throws, on every process, the error of the
  // lowest failing one.
  virtual void agree(std::exception_ptr failure) = 0;
  // Element-wise minimum over the processes, in place.
  virtual void min(std::span<std::int64_t> values) = 0;
  // Element-wise sum over the processes, in place.
  virtual void sum(std::span<double> values) = 0;
  // The sum of `count` over the lower-ranked processes, and over all of them.
  virtual std::pair<std::uint64_t, std::uint64_t> scan(std::uint64_t count) = 0;
  // Sends out[r] to process r (out[rank()] is ignored) and returns in in[r] what process r sent here.
  // Only non-empty buffers travel (point to point); the sizes go first, one count per pair of processes.
  virtual void exchange(const std::vector<std::vector<double>>& out, std::vector<std::vector<double>>& in) = 0;
};

// Runs f() and, when processes share the fill (`exchange` not null), agrees on its outcome: for a step
// before the fill's own agreements that may fail on one process alone (memory for the store, the
// boundary's scratch), so that failure too ends every process with the same error.
template <class F>
void agreed_among(PhaseExchange* exchange, F&& f) {
  if (!exchange) return f();
  std::exception_ptr failure;
  try {
    f();
  } catch (...) {
    failure = std::current_exception();
  }
  exchange->agree(failure);
}

}  // namespace nodegen
