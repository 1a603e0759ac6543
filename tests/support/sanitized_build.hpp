#pragma once
// Whether this test binary is built with AddressSanitizer (the asan preset, with libFuzzer's coverage):
// there the geometry runs many times slower than in release, so cases whose point is their size run
// smaller, which checks the same code for memory errors; the release run checks the size.
// NODEGEN_TEST_SANITIZED is the same answer for the preprocessor (a typed suite's list of types).
#if defined(__SANITIZE_ADDRESS__)
#define NODEGEN_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NODEGEN_TEST_SANITIZED 1
#endif
#endif
#ifndef NODEGEN_TEST_SANITIZED
#define NODEGEN_TEST_SANITIZED 0
#endif

// The same for ThreadSanitizer (the tsan preset), which runs the concurrency suites many times slower
// than release: cases whose point is their size, not their threads, run smaller there too.
#if defined(__SANITIZE_THREAD__)
#define NODEGEN_TEST_THREAD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define NODEGEN_TEST_THREAD_SANITIZED 1
#endif
#endif
#ifndef NODEGEN_TEST_THREAD_SANITIZED
#define NODEGEN_TEST_THREAD_SANITIZED 0
#endif

namespace nodegen::test {

inline constexpr bool kSanitized = NODEGEN_TEST_SANITIZED == 1;
inline constexpr bool kThreadSanitized = NODEGEN_TEST_THREAD_SANITIZED == 1;

}  // namespace nodegen::test
