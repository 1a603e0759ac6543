// Suballocator pool and its standard-allocator adaptor: first-free placement across chunks, doubling
// chunks, chunks handed back at quarter usage, stable addresses, and std containers on top of it.
#include "nodegen/storage/suballocator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <forward_list>
#include <list>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "nodegen/storage/suballoc_allocator.hpp"

namespace {

using Pool = nodegen::Suballocator<24, 8>;

TEST(Suballocator, ChunksDoubleFromTheFirstLevel) {
  Pool pool(2);  // chunks of 4, 8, 16, ...
  std::vector<void*> p;
  for (int i = 0; i < 4; ++i) p.push_back(pool.allocate());
  EXPECT_EQ(pool.chunk_count(), 1u);
  EXPECT_EQ(pool.capacity(), 4u);
  p.push_back(pool.allocate());
  EXPECT_EQ(pool.chunk_count(), 2u);
  EXPECT_EQ(pool.capacity(), 12u);
  for (int i = 0; i < 8; ++i) p.push_back(pool.allocate());
  EXPECT_EQ(pool.chunk_count(), 3u);
  EXPECT_EQ(pool.capacity(), 28u);
  EXPECT_EQ(pool.size(), 13u);
  // Consecutive allocations within a chunk are adjacent slots.
  EXPECT_EQ(static_cast<char*>(p[1]) - static_cast<char*>(p[0]), 24);
  EXPECT_TRUE(pool.invariants_hold());
}

TEST(Suballocator, AllocatesTheFirstFreeSlotOfThePool) {
  Pool pool(2);
  std::vector<void*> p;
  for (int i = 0; i < 20; ++i) p.push_back(pool.allocate());
  ASSERT_TRUE(pool.deallocate(p[15]));  // in chunk 2
  ASSERT_TRUE(pool.deallocate(p[6]));   // in chunk 1
  ASSERT_TRUE(pool.deallocate(p[1]));   // in chunk 0
  EXPECT_EQ(pool.allocate(), p[1]);
  EXPECT_EQ(pool.allocate(), p[6]);
  EXPECT_EQ(pool.allocate(), p[15]);
  EXPECT_TRUE(pool.invariants_hold());
}

TEST(Suballocator, HandsTheTopChunkBackWhenUsageFallsToAQuarter) {
  Pool pool(2);
  std::vector<void*> p;
  for (int i = 0; i < 60; ++i) p.push_back(pool.allocate());  // chunks 4+8+16+32 = 60
  ASSERT_EQ(pool.chunk_count(), 4u);
  // Free the top chunk's elements (the last 32): it is empty, but usage 28/60 > 1/4: kept.
  for (int i = 59; i >= 28; --i) ASSERT_TRUE(pool.deallocate(p[i]));
  EXPECT_EQ(pool.chunk_count(), 4u);
  // Down to 15 = 60/4 elements: the empty top chunk goes back; then 15 > 28/4 keeps chunk 2.
  for (int i = 27; i >= 15; --i) ASSERT_TRUE(pool.deallocate(p[i]));
  EXPECT_EQ(pool.chunk_count(), 3u);
  EXPECT_EQ(pool.capacity(), 28u);
  EXPECT_TRUE(pool.invariants_hold());
  // Empty everything: every chunk is handed back.
  for (int i = 14; i >= 0; --i) ASSERT_TRUE(pool.deallocate(p[i]));
  EXPECT_EQ(pool.chunk_count(), 0u);
  EXPECT_EQ(pool.bytes_held(), 0u);
  EXPECT_TRUE(pool.invariants_hold());
}

TEST(Suballocator, RejectsForeignAndDoubleFrees) {
  Pool pool;
  void* a = pool.allocate();
  void* b = pool.allocate();
  int outside = 0;
  EXPECT_FALSE(pool.deallocate(&outside));
  EXPECT_TRUE(pool.deallocate(a));
  EXPECT_FALSE(pool.deallocate(a));
  EXPECT_EQ(pool.size(), 1u);
  EXPECT_TRUE(pool.deallocate(b));
}

// Random churn against a model: every live element keeps its address and contents, the pool's
// invariants hold throughout, and memory held shrinks back when the pool drains.
TEST(Suballocator, RandomChurnKeepsElementsAndInvariants) {
  Pool pool;
  std::mt19937_64 rng(7);
  std::vector<std::pair<std::uint64_t*, std::uint64_t>> live;
  std::size_t peak_bytes = 0;
  for (int step = 0; step < 300000; ++step) {
    const bool grow = live.empty() || rng() % 100 < (step < 150000 ? 60 : 35);
    if (grow) {
      auto* p = static_cast<std::uint64_t*>(pool.allocate());
      const std::uint64_t tag = rng();
      p[0] = tag;
      p[2] = ~tag;
      live.emplace_back(p, tag);
    } else {
      const std::size_t pick = rng() % live.size();
      std::swap(live[pick], live.back());
      ASSERT_EQ(live.back().first[0], live.back().second);
      ASSERT_EQ(live.back().first[2], ~live.back().second);
      ASSERT_TRUE(pool.deallocate(live.back().first));
      live.pop_back();
    }
    peak_bytes = std::max(peak_bytes, pool.bytes_held());
    if (step % 9973 == 0) {
      ASSERT_TRUE(pool.invariants_hold()) << step;
      ASSERT_EQ(pool.size(), live.size());
    }
  }
  for (auto& [p, tag] : live) ASSERT_EQ(p[0], tag);
  EXPECT_LT(pool.bytes_held(), peak_bytes) << "draining must hand chunks back";
  for (auto& [p, tag] : live) ASSERT_TRUE(pool.deallocate(p));
  EXPECT_EQ(pool.chunk_count(), 0u);
}

TEST(Suballocator, SynchronizedPoolRunsCompoundOperationsUnderItsLock) {
  nodegen::SynchronizedSuballocator<16, 16> pool;
  void* p = pool.allocate();
  EXPECT_EQ(pool.locked([](auto& inner) { return inner.size(); }), 1u);
  EXPECT_TRUE(pool.deallocate(p));
}

template <class T>
using Alloc = nodegen::SuballocAllocator<T>;

TEST(SuballocAllocator, NodeContainersWork) {
  std::set<long, std::less<long>, Alloc<long>> set;
  std::map<int, double, std::less<int>, Alloc<std::pair<const int, double>>> map;
  std::list<int, Alloc<int>> list;
  std::forward_list<int, Alloc<int>> flist;
  std::mt19937 rng(3);
  std::set<long> reference;
  for (int i = 0; i < 50000; ++i) {
    const long key = static_cast<long>(rng() % 20000);
    set.insert(key);
    reference.insert(key);
    map[i % 1000] += 1.0;
    list.push_back(i);
    flist.push_front(i);
  }
  EXPECT_TRUE(std::equal(set.begin(), set.end(), reference.begin(), reference.end()));
  EXPECT_EQ(map.size(), 1000u);
  EXPECT_EQ(map.at(999), 50.0);
  EXPECT_EQ(list.size(), 50000u);
  EXPECT_EQ(flist.front(), 49999);
  for (long k = 0; k < 20000; k += 2) set.erase(k);
  for (long k : set) EXPECT_EQ(k % 2, 1);
}

TEST(SuballocAllocator, SpliceBetweenListsKeepsElementsInPlace) {
  std::list<int, Alloc<int>> a{1, 2, 3};
  std::list<int, Alloc<int>> b{4, 5};
  const int* two = &*std::next(a.begin());
  b.splice(b.end(), a);
  EXPECT_EQ(b.size(), 5u);
  EXPECT_EQ(&*std::next(b.begin(), 3), two);
}

TEST(SuballocAllocator, ArraysBypassThePool) {
  std::vector<int, Alloc<int>> v(1000, 7);
  v.push_back(8);
  EXPECT_EQ(v[1000], 8);
  EXPECT_TRUE(Alloc<int>() == Alloc<double>());
}

TEST(HugePageChunks, BigChunksAreHugePageAlignedMappingsAndSmallOnesHeap) {
  nodegen::HugePageChunks<std::uint64_t> chunks;
  const std::size_t big = (std::size_t{4} << 20) / sizeof(std::uint64_t) + 3;
  std::uint64_t* p = chunks.allocate(big);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (std::size_t{2} << 20), 0u);
  p[0] = 1;
  p[big - 1] = 2;  // the whole requested range is writable
  chunks.deallocate(p, big);
  std::uint64_t* small = chunks.allocate(100);
  small[99] = 3;
  chunks.deallocate(small, 100);
}

TEST(Suballocator, WorksOnAPlainHeapUpstreamToo) {
  nodegen::Suballocator<8, 8, std::allocator<nodegen::SuballocSlot<8, 8>>> pool(0);
  std::vector<void*> p;
  for (int i = 0; i < 100000; ++i) p.push_back(pool.allocate());
  for (void* q : p) ASSERT_TRUE(pool.deallocate(q));
  EXPECT_EQ(pool.chunk_count(), 0u);
  EXPECT_TRUE(pool.invariants_hold());
}

TEST(SuballocAllocator, UnsynchronisedPoolIsSeparate) {
  std::set<int, std::less<int>, nodegen::SuballocAllocator<int, nodegen::NullLock>> s{3, 1, 2};
  EXPECT_EQ(*s.begin(), 1);
}

}  // namespace
