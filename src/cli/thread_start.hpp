#pragma once
// Checks that the threads a command asks for can exist at once before it starts them. libgomp cannot
// report a thread it failed to create: it prints a line of its own and exits with status 1 from the
// middle of the run (a virtual-memory limit, ulimit -v, that 600 threads' stacks exceed; a process limit
// on threads). Asked first, the answer is the one-line input error naming --threads.
namespace nodegen::cli {

// Starts threads - 1 threads beside this one (with the stack OpenMP's team gets: OMP_STACKSIZE's, else the default), holds them
// until all exist, joins them. Throws InputError("--threads", "value", ...) with how many could start
// when one could not.
void require_threads_start(int threads);

// Starts OpenMP's team of `threads` now, right after the check, while the address space the check held
// is free. Every region of a run is launched at full size (parallel/thread_team.hpp), so libgomp keeps
// these threads for the whole run and creates none later, when loading and the fill's reservations have
// taken that space (under a 4 GB ulimit -v, 470 threads passed the check and libgomp then exited with
// status 1 in the fill). Memory that runs out later is a bad_alloc: the run's out-of-memory error.
// Not before a fork: the child would wait at its first region for team threads fork does not copy.
void start_openmp_team(int threads);

}  // namespace nodegen::cli
