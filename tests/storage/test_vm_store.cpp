// Single-thread semantics of VmStore: claims, element access, capacity exhaustion, stable addresses,
// options (prefault, huge pages) and the resident-bytes accounting.
#include "nodegen/storage/vm_store.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

namespace {

using nodegen::StoreFull;
using nodegen::VmStore;
using nodegen::VmStoreOptions;

struct Node {
  double x, y, z;
  std::uint32_t id;
};

TEST(VmStore, ClaimsAreConsecutiveAndStartAtZero) {
  VmStore<int> store(100);
  EXPECT_EQ(store.size(), 0u);
  EXPECT_EQ(store.capacity(), 100u);
  EXPECT_EQ(store.claim(3), 0u);
  EXPECT_EQ(store.claim(1), 3u);
  EXPECT_EQ(store.claim(10), 4u);
  EXPECT_EQ(store.size(), 14u);
}

TEST(VmStore, FreshSlotsAreZeroAndKeepWhatIsWritten) {
  VmStore<Node> store(1000);
  const std::size_t first = store.claim(500);
  for (std::size_t i = first; i < first + 500; ++i) {
    EXPECT_EQ(store.get(i).id, 0u);
    store.set(i, Node{double(i), 2.0 * i, 3.0 * i, std::uint32_t(i)});
  }
  store.access(7, [](Node& n) { n.id += 1000; });
  for (std::size_t i = 0; i < 500; ++i) {
    const Node n = store.get(i);
    EXPECT_EQ(n.x, double(i));
    EXPECT_EQ(n.z, 3.0 * i);
    EXPECT_EQ(n.id, i == 7 ? 1007u : std::uint32_t(i));
  }
  EXPECT_EQ(&store[3], store.data() + 3);
}

TEST(VmStore, AccessReturnsTheCallableResult) {
  VmStore<int> store(4);
  store.claim(1);
  store.set(0, 41);
  EXPECT_EQ(store.access(0, [](int& v) { return ++v; }), 42);
}

TEST(VmStore, ExhaustionThrowsStoreFullAndSizeNeverExceedsCapacity) {
  VmStore<int> store(10);
  EXPECT_EQ(store.claim(8), 0u);
  EXPECT_THROW(store.claim(3), StoreFull);
  EXPECT_LE(store.size(), 10u);
  EXPECT_THROW(store.claim(11), StoreFull);
  // Single-threaded, a claim that does not fit is refused before it takes anything: the rest still fits.
  EXPECT_EQ(store.claim(2), 8u);
  EXPECT_THROW(store.claim(1), StoreFull);
  EXPECT_EQ(store.size(), 10u);
  // The slots that were claimed successfully are still usable.
  store.set(9, 5);
  EXPECT_EQ(store.get(9), 5);
}

TEST(VmStore, ExactlyFullIsNotAnError) {
  VmStore<int> store(10);
  EXPECT_EQ(store.claim(10), 0u);
  EXPECT_EQ(store.size(), 10u);
  EXPECT_THROW(store.claim(1), StoreFull);
}

TEST(VmStore, ZeroCapacityStoreRejectsEveryClaim) {
  VmStore<int> store(0);
  EXPECT_EQ(store.bytes_resident(), 0u);
  EXPECT_THROW(store.claim(1), StoreFull);
}

TEST(VmStore, DefaultsAreSmallPagesWithoutPrefault) {
  const VmStoreOptions defaults;  // chosen by bench/storage/append, see vm_store.hpp
  EXPECT_FALSE(defaults.huge_pages);
  EXPECT_FALSE(defaults.prefault);
}

TEST(VmStore, HugeCapacityOnlyReservesAddressSpace) {
  // 2^32 elements of 24 bytes = 96 GiB: far beyond this machine's RAM, must construct instantly.
  VmStore<Node> store(std::size_t{1} << 32, {.huge_pages = false});
  EXPECT_GE(store.bytes_reserved(), (std::size_t{1} << 32) * sizeof(Node));
  EXPECT_EQ(store.bytes_resident(), 0u);
  const std::size_t i = store.claim(1);
  store.set(i, Node{1, 2, 3, 4});
  EXPECT_EQ(store.bytes_resident(), 4096u);
  EXPECT_LE(store.bytes_resident_measured(), std::size_t{2} << 20);
}

TEST(VmStore, CapacityBeyondAddressSpaceIsRejected) {
  EXPECT_THROW(VmStore<Node>(std::size_t{1} << 60), std::length_error);
}

TEST(VmStore, AddressesStayPutWhileTheStoreGrows) {
  VmStore<std::uint64_t> store(std::size_t{1} << 24);
  store.claim(1);
  std::uint64_t* first = &store[0];
  *first = 99;
  for (int k = 0; k < 1000; ++k) store.claim(1000);
  EXPECT_EQ(&store[0], first);
  EXPECT_EQ(*first, 99u);
}

TEST(VmStore, PrefaultPopulatesAheadOfTheFrontier) {
  VmStoreOptions options;
  options.prefault = true;
  options.prefault_window_bytes = std::size_t{2} << 20;
  VmStore<std::uint64_t> store(std::size_t{1} << 24, options);
  store.claim(1);  // enters window 0: windows 0 and 1 become resident
  EXPECT_EQ(store.bytes_resident(), std::size_t{4} << 20);
  EXPECT_GE(store.bytes_resident_measured(), std::size_t{4} << 20);
  // Crossing into window 1 populates window 2.
  store.claim((std::size_t{2} << 20) / sizeof(std::uint64_t));
  EXPECT_EQ(store.bytes_resident(), std::size_t{6} << 20);
  EXPECT_GE(store.bytes_resident_measured(), std::size_t{6} << 20);
  // Populating must not disturb data already written in the window.
  store.set(5, 12345);
  store.claim((std::size_t{2} << 20) / sizeof(std::uint64_t));
  EXPECT_EQ(store.get(5), 12345u);
}

TEST(VmStore, PrefaultWindowIsRoundedToAPowerOfTwoOfAtLeastOneHugePage) {
  VmStoreOptions options;
  options.prefault = true;
  options.prefault_window_bytes = 3 << 20;
  VmStore<char> store(std::size_t{1} << 26, options);
  EXPECT_EQ(store.options().prefault_window_bytes, std::size_t{4} << 20);
}

TEST(VmStore, HugePagesOptionKeepsSemantics) {
  VmStoreOptions options;
  options.huge_pages = true;
  VmStore<std::uint32_t> store(std::size_t{1} << 22, options);
  const std::size_t first = store.claim(std::size_t{1} << 20);
  for (std::size_t i = 0; i < (std::size_t{1} << 20); ++i) store[first + i] = std::uint32_t(i);
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < (std::size_t{1} << 20); ++i) sum += store[i];
  EXPECT_EQ(sum, (std::uint64_t{1} << 20) * ((std::uint64_t{1} << 20) - 1) / 2);
  EXPECT_EQ(store.bytes_resident(), std::size_t{4} << 20);
}

TEST(VmStore, MovedStoreKeepsElementsAndAddresses) {
  VmStore<int> a(100);
  a.claim(2);
  a.set(1, 17);
  int* p = &a[1];
  VmStore<int> b(std::move(a));
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(&b[1], p);
  EXPECT_EQ(b.get(1), 17);
  EXPECT_EQ(a.capacity(), 0u);
  EXPECT_THROW(a.claim(1), StoreFull);
}

}  // namespace
