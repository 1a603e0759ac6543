// Single-thread semantics of LockedVectorStore: claims, access, the cap, lazy growth.
#include "nodegen/storage/locked_vector_store.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

using nodegen::LockedVectorStore;
using nodegen::StoreFull;

struct Node {
  double x, y;
  std::uint32_t id;
};

TEST(LockedVectorStore, ClaimsAreConsecutiveAndZeroed) {
  LockedVectorStore<Node> store(100);
  EXPECT_EQ(store.claim(2), 0u);
  EXPECT_EQ(store.claim(5), 2u);
  EXPECT_EQ(store.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(store.get(i).id, 0u);
}

TEST(LockedVectorStore, ElementsSurviveReallocation) {
  LockedVectorStore<Node> store(1 << 20);
  for (std::uint32_t i = 0; i < 10000; ++i) {
    const std::size_t slot = store.claim(1);
    store.set(slot, Node{double(i), -double(i), i});
  }
  store.access(10, [](Node& n) { n.id = 77; });
  for (std::uint32_t i = 0; i < 10000; ++i) {
    const Node n = store.get(i);
    EXPECT_EQ(n.x, double(i));
    EXPECT_EQ(n.id, i == 10 ? 77u : i);
  }
}

TEST(LockedVectorStore, AccessReturnsTheCallableResult) {
  LockedVectorStore<int> store(4);
  store.claim(1);
  EXPECT_EQ(store.access(0, [](int& v) { return v += 3; }), 3);
}

TEST(LockedVectorStore, CapIsEnforcedWithStoreFull) {
  LockedVectorStore<int> store(10);
  EXPECT_EQ(store.capacity(), 10u);
  EXPECT_EQ(store.claim(8), 0u);
  EXPECT_THROW(store.claim(3), StoreFull);
  EXPECT_EQ(store.size(), 8u) << "a refused claim takes nothing";
  EXPECT_EQ(store.claim(2), 8u);
  EXPECT_THROW(store.claim(1), StoreFull);
  EXPECT_EQ(store.size(), 10u);
}

TEST(LockedVectorStore, HugeCapDoesNotReserveUpFront) {
  LockedVectorStore<Node> store(std::size_t{1} << 32);
  EXPECT_EQ(store.bytes_resident(), 0u);
  store.claim(1000);
  EXPECT_GE(store.bytes_resident(), 1000 * sizeof(Node));
  EXPECT_LE(store.bytes_resident(), 2000 * sizeof(Node));
}

TEST(LockedVectorStore, GrowthNeverReservesPastTheCap) {
  LockedVectorStore<int> store(1000);
  store.claim(600);
  store.claim(1);  // doubling would ask for 1200
  EXPECT_LE(store.bytes_resident(), 1000 * sizeof(int));
}

TEST(LockedVectorStore, MoveKeepsElements) {
  LockedVectorStore<int> a(10);
  a.claim(3);
  a.set(2, 9);
  LockedVectorStore<int> b(std::move(a));
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.get(2), 9);
  EXPECT_EQ(b.capacity(), 10u);
}

}  // namespace
