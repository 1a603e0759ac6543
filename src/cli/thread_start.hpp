#pragma once
// Checks that the threads a command asks for can exist at once before it starts them. libgomp cannot
// report a thread it failed to create: it prints a line of its own and exits with status 1 from the
// middle of the run (a virtual-memory limit, ulimit -v, that 600 threads' stacks exceed; a process limit
// on threads). Asked first, the answer is the one-line input error naming --threads.
namespace nodegen::cli {

// Starts threads - 1 threads beside this one (with the default stack, as OpenMP's team would), holds them
// until all exist, joins them. Throws InputError("--threads", "value", ...) with how many could start
// when one could not.
void require_threads_start(int threads);

}  // namespace nodegen::cli
