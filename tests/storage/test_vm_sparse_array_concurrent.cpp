// VmSparseArray under concurrent random reads and writes from more threads than cores (8), the memo
// pattern of bench/storage/collatz: every slot is written only with its one correct value, by any thread, any
// number of times; a read returns either 0 (not yet visible) or that value, never anything else; after
// the team joins, every written slot reads back its value. Built by the tsan preset.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/storage/vm_sparse_array.hpp"

namespace {

std::uint32_t value_of(std::size_t i) { return std::uint32_t(i * 2654435761u) | 1u; }  // never 0

TEST(VmSparseArrayConcurrent, RacingReadsSeeZeroOrTheValueAndAllWritesLand) {
  constexpr int kThreads = 8;
  constexpr std::size_t kSize = std::size_t{1} << 24;  // 64 MiB of address space, 16384 pages
  nodegen::VmSparseArray<std::uint32_t> a(kSize);
  std::vector<std::vector<std::size_t>> written(kThreads);
  nodegen::run_team(kThreads, [&](int tid, int) {
    std::mt19937_64 rng(std::uint64_t(tid) + 11);
    auto& mine = written[std::size_t(tid)];
    for (int k = 0; k < 20000; ++k) {
      // Skewed to few pages so threads meet on the same pages and the same slots.
      const std::size_t i = (rng() % 2 == 0) ? rng() % 4096 : rng() % kSize;
      const std::uint32_t seen = a.get(i);
      ASSERT_TRUE(seen == 0 || seen == value_of(i)) << "slot " << i << " read " << seen;
      if (seen == 0) {
        a.set(i, value_of(i));
        mine.push_back(i);
      }
      if (!mine.empty()) {  // this thread's own earlier write is always visible to it
        const std::size_t j = mine[rng() % mine.size()];
        ASSERT_EQ(a.get(j), value_of(j));
      }
    }
  });
  std::size_t count = 0;
  for (const auto& mine : written)
    for (std::size_t i : mine) {
      ASSERT_EQ(a.get(i), value_of(i));
      ++count;
    }
  EXPECT_GT(count, 0u);
  EXPECT_LE(a.bytes_written(), a.bytes_resident_measured());
}

}  // namespace
