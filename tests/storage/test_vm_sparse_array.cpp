// Single-thread semantics of VmSparseArray: zero reads, values kept, and the property it exists for:
// reading never-written pages maps nothing (no zero-page mappings that a later write would have to
// copy with a TLB flush), while written pages are committed and counted.
#include "nodegen/storage/vm_sparse_array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <stdexcept>

namespace {

using nodegen::kHugePageBytes;
using nodegen::kSmallPageBytes;
using nodegen::VmSparseArray;

TEST(VmSparseArray, ReadsZeroUntilWrittenAndKeepsValues) {
  VmSparseArray<std::uint32_t> a(std::size_t{1} << 24);
  EXPECT_EQ(a.size(), std::size_t{1} << 24);
  EXPECT_EQ(a.get(0), 0u);
  EXPECT_EQ(a.get(a.size() - 1), 0u);
  a.set(5, 42);
  a.set(a.size() - 1, 7);
  EXPECT_EQ(a.get(5), 42u);
  EXPECT_EQ(a.get(6), 0u);  // same page, not written: zero from the page itself
  EXPECT_EQ(a.get(a.size() - 1), 7u);
  a.set(5, 43);
  EXPECT_EQ(a.get(5), 43u);
}

TEST(VmSparseArray, ReadingUnwrittenPagesMapsNothing) {
  VmSparseArray<std::uint64_t> a(std::size_t{1} << 25);  // 256 MiB of address space
  std::mt19937_64 rng(3);
  for (int k = 0; k < 100000; ++k) ASSERT_EQ(a.get(rng() % a.size()), 0u);
  EXPECT_EQ(a.bytes_resident_measured(), 0u);
  EXPECT_EQ(a.bytes_written(), 0u);
}

TEST(VmSparseArray, WritesCommitOnlyTheirPages) {
  VmSparseArray<std::uint64_t> a(std::size_t{1} << 25);
  const std::size_t per_page = kSmallPageBytes / sizeof(std::uint64_t);
  for (std::size_t page = 0; page < 100; ++page) a.set(page * 97 * per_page + 3, page + 1);
  EXPECT_EQ(a.bytes_written(), 100 * kSmallPageBytes);
  EXPECT_EQ(a.bytes_resident_measured(), 100 * kSmallPageBytes);
  for (std::size_t page = 0; page < 100; ++page) {
    ASSERT_EQ(a.get(page * 97 * per_page + 3), page + 1);
    ASSERT_EQ(a.get(page * 97 * per_page + 4), 0u);
  }
  // Reads of other, unwritten pages still map nothing.
  for (std::size_t page = 0; page < 100; ++page) ASSERT_EQ(a.get((page * 97 + 1) * per_page), 0u);
  EXPECT_EQ(a.bytes_resident_measured(), 100 * kSmallPageBytes);
}

TEST(VmSparseArray, HugePagesTrackTwoMegabyteUnits) {
  VmSparseArray<std::uint32_t> a(std::size_t{1} << 26, {.huge_pages = true});
  a.set(1, 1);
  a.set(kHugePageBytes / sizeof(std::uint32_t) + 1, 2);
  EXPECT_EQ(a.bytes_written(), 2 * kHugePageBytes);
  EXPECT_EQ(a.get(1), 1u);
  EXPECT_EQ(a.get(kHugePageBytes / sizeof(std::uint32_t) + 1), 2u);
  EXPECT_EQ(a.get(3 * kHugePageBytes / sizeof(std::uint32_t)), 0u);
}

TEST(VmSparseArray, RefusesMoreThanTheAddressSpace) {
  EXPECT_THROW(VmSparseArray<std::uint64_t>(std::size_t{1} << 60), std::length_error);
}

}  // namespace
