#pragma once
// NODEGEN_CLONES: compile a kernel once per instruction set and pick one at run time (GCC's
// `target_clones`: an ifunc resolved when the program loads), so the portable build runs AVX-512 loops
// (x86-64-v4) or AVX2 ones where the CPU has them and SSE2 ones elsewhere. A clone must round as the
// default one does: the kernels it marks use no horizontal reductions, and -ffp-contract=off forbids
// contraction, so the x86-64-v4 clone, whose instruction set has FMA, never fuses a multiply and an
// add, and results do not depend on the CPU. The AVX-512 clone of the 3D candidate test (16 floats a
// step) ran the 3D fill a little faster than the AVX2 one on an AVX-512 CPU (measured:
// bench/results/fill.md).
//
// GCC only: clang 14 ignores the attribute where the header's declaration lacks it, and with it there
// too, a test program's call through it left the array unchanged. Not under a sanitizer either: the
// resolver runs while the program is relocated, before ThreadSanitizer's runtime is up, and the test
// programs crashed there. Those builds (the asan and tsan presets) run the one loop.
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define NODEGEN_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define NODEGEN_CLONES
#endif
