// release_free_heap(): freed heap memory that glibc keeps resident goes back to the kernel.
//
// The situation it exists for (fill.hpp: after the boundary placement): many small blocks freed,
// with a live block above them, so glibc's own trimming of the heap top cannot reach them.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <unistd.h>
#include <vector>

#include "nodegen/storage/release_free_heap.hpp"

namespace {

using nodegen::release_free_heap;

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

TEST(ReleaseFreeHeap, ReturnsFreedSmallBlocksBelowALiveBlock) {
  if (nodegen::kSanitizerMalloc) GTEST_SKIP() << "sanitizer allocator: glibc's heap is not in use";
#if !defined(__GLIBC__)
  GTEST_SKIP() << "malloc_trim is glibc's";
#endif
  constexpr std::size_t kBlock = 1000;  // far below the mmap threshold: these live in the heap
  constexpr std::size_t kBlocks = 48'000;  // ~48 MB
  release_free_heap();
  const std::size_t before = resident_bytes();

  std::vector<char*> blocks(kBlocks);
  std::uint64_t written = 0;
  for (std::size_t i = 0; i < kBlocks; ++i) {
    blocks[i] = static_cast<char*>(std::malloc(kBlock));
    ASSERT_NE(blocks[i], nullptr);
    std::memset(blocks[i], static_cast<int>(i & 0x7F) | 1, kBlock);  // touch every page
    written += static_cast<std::uint64_t>(static_cast<unsigned char>(blocks[i][i % kBlock]));
  }
  char* pin = static_cast<char*>(std::malloc(kBlock));  // above the others: blocks automatic top trimming
  ASSERT_NE(pin, nullptr);
  pin[0] = 1;
  std::uint64_t read_back = 0;
  for (std::size_t i = 0; i < kBlocks; ++i) {
    read_back += static_cast<std::uint64_t>(static_cast<unsigned char>(blocks[i][i % kBlock]));
    std::free(blocks[i]);
  }
  EXPECT_EQ(read_back, written);  // the memory was really used (and the allocations are not elided)
  const std::size_t after_free = resident_bytes();
  ASSERT_GT(after_free, before + 30'000'000) << "glibc returned the freed blocks by itself; the test has no case";

  EXPECT_TRUE(release_free_heap());
  const std::size_t after_release = resident_bytes();
  EXPECT_LT(after_release, after_free - 30'000'000) << "before " << before << " after free " << after_free;
  EXPECT_EQ(pin[0], 1);
  std::free(pin);
}

TEST(ReleaseFreeHeap, LeavesLiveBlocksIntact) {
  std::vector<std::vector<std::uint32_t>> live(64);
  for (std::size_t i = 0; i < live.size(); ++i) live[i].assign(1000 + i, static_cast<std::uint32_t>(i * 7919));
  {
    std::vector<std::vector<std::uint32_t>> garbage(2000, std::vector<std::uint32_t>(300, 5));
  }
  release_free_heap();
  for (std::size_t i = 0; i < live.size(); ++i) {
    ASSERT_EQ(live[i].size(), 1000 + i);
    for (std::uint32_t v : live[i]) ASSERT_EQ(v, static_cast<std::uint32_t>(i * 7919));
  }
}

}  // namespace
