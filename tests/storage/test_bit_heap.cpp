// BitHeap: first-free order, level layout, and the structural invariants after random sequences of
// allocations and deallocations (including emptying it completely).
#include "nodegen/storage/bit_heap.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace {

using nodegen::BitHeap;

TEST(BitHeap, LevelCountsFollowTheSeedsTable) {
  EXPECT_EQ(BitHeap(0).levels(), 1u);
  EXPECT_EQ(BitHeap(6).levels(), 1u);
  EXPECT_EQ(BitHeap(7).levels(), 2u);
  EXPECT_EQ(BitHeap(12).levels(), 2u);
  EXPECT_EQ(BitHeap(13).levels(), 3u);
  // 2^26 slots: 5 levels, as in the seed's table, of 1, 4, 256, 16384 and 2^20 words (64 bits per
  // word all the way up; the seed's table prints 16, 1024, 65536 for the middle levels, which does
  // not follow from its own rule).
  const BitHeap big(26);
  EXPECT_EQ(big.levels(), 5u);
  EXPECT_EQ(big.memory_bytes(), (1u + 4 + 256 + 16384 + (1u << 20)) * 8);
}

TEST(BitHeap, AllocatesInAscendingOrderUntilFull) {
  for (unsigned k : {0u, 1u, 5u, 6u, 7u, 12u, 13u}) {
    BitHeap heap(k);
    for (std::size_t i = 0; i < heap.capacity(); ++i) {
      ASSERT_EQ(heap.allocate(), i) << "k=" << k;
    }
    EXPECT_TRUE(heap.full());
    EXPECT_EQ(heap.allocate(), BitHeap::npos);
    EXPECT_EQ(heap.count(), heap.capacity());
    EXPECT_TRUE(heap.invariants_hold()) << "k=" << k;
  }
}

TEST(BitHeap, ReturnsTheLowestFreedSlotFirst) {
  BitHeap heap(13);
  for (int i = 0; i < 8192; ++i) heap.allocate();
  EXPECT_TRUE(heap.deallocate(5000));
  EXPECT_TRUE(heap.deallocate(70));
  EXPECT_TRUE(heap.deallocate(4095));
  EXPECT_FALSE(heap.full());
  EXPECT_EQ(heap.allocate(), 70u);
  EXPECT_EQ(heap.allocate(), 4095u);
  EXPECT_EQ(heap.allocate(), 5000u);
  EXPECT_TRUE(heap.full());
}

TEST(BitHeap, RejectsFreeingAFreeOrOutOfRangeSlot) {
  BitHeap heap(3);
  EXPECT_FALSE(heap.deallocate(0));
  heap.allocate();
  EXPECT_TRUE(heap.deallocate(0));
  EXPECT_FALSE(heap.deallocate(0));
  EXPECT_FALSE(heap.deallocate(8)) << "padding bit beyond capacity 8";
  EXPECT_EQ(heap.count(), 0u);
  EXPECT_TRUE(heap.invariants_hold());
}

// Random allocate/free against a std::set model: same first-free answers, invariants at every check,
// and a heap emptied completely ends with every word back to its initial state (memory handed back).
TEST(BitHeap, RandomSequencesKeepInvariantsAndMatchAModel) {
  std::mt19937_64 rng(12345);
  for (unsigned k : {4u, 6u, 9u, 14u, 19u}) {
    BitHeap heap(k);
    std::set<std::size_t> freed;  // model: freed slots below the high-water mark, plus the mark
    std::size_t high_water = 0;
    std::vector<std::size_t> live;
    const std::size_t steps = std::min<std::size_t>(200000, 20 * heap.capacity());
    for (std::size_t step = 0; step < steps; ++step) {
      const bool grow = live.empty() || (live.size() < heap.capacity() && rng() % 100 < 55);
      if (grow) {
        std::size_t expected = high_water;
        if (!freed.empty()) {
          expected = *freed.begin();
          freed.erase(freed.begin());
        } else {
          ++high_water;
        }
        const std::size_t got = heap.allocate();
        ASSERT_EQ(got, expected) << "k=" << k << " step=" << step;
        live.push_back(got);
      } else {
        const std::size_t pick = rng() % live.size();
        std::swap(live[pick], live.back());
        ASSERT_TRUE(heap.deallocate(live.back()));
        freed.insert(live.back());
        live.pop_back();
      }
      if (step % 997 == 0) {
        ASSERT_TRUE(heap.invariants_hold()) << "k=" << k << " step=" << step;
      }
    }
    for (std::size_t s : live) ASSERT_TRUE(heap.deallocate(s));
    EXPECT_TRUE(heap.empty());
    EXPECT_TRUE(heap.invariants_hold());
    for (std::size_t i = 0; i < heap.capacity(); ++i) ASSERT_FALSE(heap.test(i));
    EXPECT_EQ(heap.allocate(), 0u);
  }
}

TEST(BitHeap, CapacityBeyondTheLimitIsRejected) {
  EXPECT_THROW(BitHeap(49), std::length_error);
}

}  // namespace
