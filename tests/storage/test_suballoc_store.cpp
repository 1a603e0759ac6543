// Single-thread semantics of SuballocStore: claims across block boundaries, zeroed fresh slots,
// stable addresses, the cap, lazy directory.
#include "nodegen/storage/suballoc_store.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using nodegen::StoreFull;
using nodegen::SuballocStore;

struct Node {
  double x, y, z;
  std::uint32_t id;
};

TEST(SuballocStore, ClaimsAreConsecutiveAcrossBlocks) {
  SuballocStore<Node> store(100000);
  EXPECT_EQ(store.claim(4000), 0u);
  EXPECT_EQ(store.claim(200), 4000u);  // spans blocks 0 and 1
  EXPECT_EQ(store.claim(10000), 4200u);  // spans blocks 1..3
  EXPECT_EQ(store.size(), 14200u);
  EXPECT_EQ(store.blocks(), 4u);
}

TEST(SuballocStore, FreshSlotsAreZeroAndKeepWhatIsWritten) {
  SuballocStore<Node> store(50000);
  store.claim(20000);
  for (std::size_t i = 0; i < 20000; ++i) {
    ASSERT_EQ(store.get(i).id, 0u);
    ASSERT_EQ(store.get(i).x, 0.0);
    store.set(i, Node{double(i), 0, 0, std::uint32_t(i)});
  }
  store.access(4096, [](Node& n) { n.id = 1; });
  for (std::size_t i = 0; i < 20000; ++i) ASSERT_EQ(store.get(i).id, i == 4096 ? 1u : i);
}

TEST(SuballocStore, AddressesStayPutWhileTheStoreGrows) {
  SuballocStore<std::uint64_t> store(std::size_t{1} << 24);
  std::vector<std::uint64_t*> addresses;
  for (int k = 0; k < 300; ++k) {
    const std::size_t first = store.claim(1000);
    store[first] = std::uint64_t(k);
    addresses.push_back(&store[first]);
  }
  for (int k = 0; k < 300; ++k) {
    ASSERT_EQ(&store[std::size_t(k) * 1000], addresses[k]);
    ASSERT_EQ(*addresses[k], std::uint64_t(k));
  }
}

TEST(SuballocStore, CapIsEnforcedWithStoreFull) {
  SuballocStore<int> store(5000);
  EXPECT_EQ(store.claim(4999), 0u);
  EXPECT_THROW(store.claim(2), StoreFull);
  EXPECT_EQ(store.claim(1), 4999u);
  EXPECT_THROW(store.claim(1), StoreFull);
  EXPECT_EQ(store.size(), 5000u);
  store.set(4999, 3);
  EXPECT_EQ(store.get(4999), 3);
}

TEST(SuballocStore, HugeCapacityConstructsCheaplyAndGrowsWithUse) {
  SuballocStore<Node> store(std::size_t{1} << 32);
  EXPECT_LE(store.bytes_resident(), 4096u) << "only the top directory array";
  store.claim(5000);
  EXPECT_EQ(store.blocks(), 2u);
  EXPECT_GE(store.bytes_resident(), 2 * 4096 * sizeof(Node));
  EXPECT_LE(store.bytes_resident(), 2 * 4096 * sizeof(Node) + 40000);
}

TEST(SuballocStore, CapacityBeyondTheLimitIsRejected) {
  EXPECT_THROW(SuballocStore<int>(std::size_t{1} << 60), std::length_error);
}

TEST(SuballocStore, MovedStoreKeepsElements) {
  SuballocStore<int> a(10000);
  a.claim(5000);
  a.set(4500, 8);
  int* p = &a[4500];
  SuballocStore<int> b(std::move(a));
  EXPECT_EQ(b.size(), 5000u);
  EXPECT_EQ(&b[4500], p);
  EXPECT_EQ(b.get(4500), 8);
}

}  // namespace
