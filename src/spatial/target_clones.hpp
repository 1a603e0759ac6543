#pragma once
// NODEGEN_CLONES: compile a kernel once per instruction set and pick one at run time (GCC's
// `target_clones`: an ifunc resolved when the program loads), so the portable build runs AVX2 loops
// where the CPU has them and SSE2 ones elsewhere. A clone must round as the default one does: the
// kernels it marks use no horizontal reductions, the avx2 clone does not enable FMA and
// -ffp-contract=off forbids contraction, so results do not depend on the CPU.
//
// GCC only: clang 14 ignores the attribute where the header's declaration lacks it, and with it there
// too, a test program's call through it left the array unchanged. Not under a sanitizer either: the
// resolver runs while the program is relocated, before ThreadSanitizer's runtime is up, and the test
// programs crashed there. Those builds (the asan and tsan presets) run the one loop.
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define NODEGEN_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define NODEGEN_CLONES
#endif
