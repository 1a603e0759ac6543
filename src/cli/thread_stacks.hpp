#pragma once
// Stacks nodegen can count on whatever `ulimit -s` says. The loader, the inside test and the boundary
// placement recurse once per level of a shape tree (at most 256 levels, domain_file.cpp), CGAL's mesh
// code recurses too, and a tree at the limit needs more than 256 KiB. The main thread's stack is bounded
// by RLIMIT_STACK, which `ulimit -s N` sets hard as well as soft, and glibc sizes every other thread's
// default stack by the same limit: under `ulimit -s 32` the fill's threads had 32 KiB stacks and the
// torus mesh ended in SIGSEGV; under `ulimit -s 256` a 250-deep union did on the main thread.
// OpenMP's OMP_STACKSIZE sizes the team's stacks instead: too large a value made libgomp exit with
// status 1 when it could not start the team, too small a one would overflow them.
#include <cstddef>
#include <optional>

namespace nodegen::cli {

// The main thread's stack limit the command runs under; below it (and the hard limit not allowing
// it) the command runs on a thread of its own, with a kCommandStack stack (mapped, so not bounded by
// RLIMIT_STACK).
inline constexpr std::size_t kLeastMainStack = std::size_t{8} << 20;
inline constexpr std::size_t kCommandStack = std::size_t{64} << 20;
// The least default stack of threads started later (OpenMP's team, std::thread).
inline constexpr std::size_t kLeastThreadStack = std::size_t{2} << 20;
// The least OMP_STACKSIZE accepted (the fill's threads measured fine at 64 KiB, failed at 32 KiB).
inline constexpr std::size_t kLeastOpenMPStack = std::size_t{256} << 10;

// Raises the default stack of threads started from now on to kLeastThreadStack if it is below, then
// runs body(argc, argv) on the calling (main) thread, under a stack limit raised to kLeastMainStack
// where it was below, and returns its result; where the hard limit does not allow that, on a thread
// with a kCommandStack stack, which exits the process with body's result (or, where no such thread
// can start, on the calling thread after all).
int run_with_stacks(int (*body)(int, char**), int argc, char** argv);

// The stack OpenMP's team threads get, in bytes, as libgomp reads it from OMP_STACKSIZE (else
// GOMP_STACKSIZE): a whole number with an optional unit B, K, M or G (K when none); nullopt when
// neither is set or the value is one libgomp ignores (it then uses the default).
std::optional<std::size_t> openmp_stack_size();

}  // namespace nodegen::cli
