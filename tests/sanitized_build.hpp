#pragma once
// Whether this test binary is built with AddressSanitizer (the asan preset, with libFuzzer's coverage):
// there the geometry runs 10-50 times slower than in release, so cases whose point is their size run
// smaller, which checks the same code for memory errors; the release run checks the size.
namespace nodegen::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
inline constexpr bool kSanitized = __has_feature(address_sanitizer);
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace nodegen::test
