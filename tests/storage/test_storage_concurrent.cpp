// All storage backends under concurrent appends with more threads than cores (8): every claimed slot
// written exactly once and every value present exactly once, elements read back while others grow the
// store, addresses stable during growth (VM, suballoc), and exhaustion giving StoreFull with claims
// that stay disjoint and within capacity. Built by the tsan preset.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <list>
#include <random>
#include <vector>

#include "nodegen/storage/locked_vector_store.hpp"
#include "nodegen/storage/suballoc_allocator.hpp"
#include "nodegen/storage/suballoc_store.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/storage/vm_store.hpp"

namespace {

constexpr int kThreads = 8;

struct Record {
  std::uint32_t thread;
  std::uint32_t seq;
  std::uint64_t check;
};
std::uint64_t check_of(std::uint32_t thread, std::uint32_t seq) {
  return (std::uint64_t{thread} << 32 | seq) * 0x9E3779B97F4A7C15ull + 1;
}

// The VM store with both options on (small prefault window, so windows are crossed often); the
// default VmStore covers 4 KiB pages without prefault.
struct TunedVmStore : nodegen::VmStore<Record> {
  explicit TunedVmStore(std::size_t capacity)
      : nodegen::VmStore<Record>(capacity, {.prefault = true, .huge_pages = true,
                                            .prefault_window_bytes = std::size_t{2} << 20}) {}
};

template <class S>
class StorageConcurrent : public ::testing::Test {};
using Backends = ::testing::Types<nodegen::VmStore<Record>, TunedVmStore,
                                  nodegen::LockedVectorStore<Record>, nodegen::SuballocStore<Record>>;
TYPED_TEST_SUITE(StorageConcurrent, Backends);

TYPED_TEST(StorageConcurrent, EveryValueLandsExactlyOnceAndReadsBackDuringGrowth) {
  constexpr std::uint32_t kPerThread = 40000;
  TypeParam store(std::size_t{1} << 32);
  std::vector<std::vector<std::size_t>> written(kThreads);
  nodegen::run_team(kThreads, [&](int tid, int) {
    std::mt19937 rng(static_cast<unsigned>(tid) + 1);
    auto& mine = written[static_cast<std::size_t>(tid)];
    std::uint32_t seq = 0;
    while (seq < kPerThread) {
      const std::uint32_t n = std::min<std::uint32_t>(1 + rng() % 64, kPerThread - seq);
      const std::size_t first = store.claim(n);
      for (std::uint32_t k = 0; k < n; ++k, ++seq) {
        store.set(first + k, Record{std::uint32_t(tid), seq, check_of(std::uint32_t(tid), seq)});
        mine.push_back(first + k);
      }
      // Read back one of this thread's earlier elements while the others keep growing the store.
      const std::size_t probe = mine[rng() % mine.size()];
      const Record r = store.get(probe);
      ASSERT_EQ(r.thread, std::uint32_t(tid));
      ASSERT_EQ(r.check, check_of(r.thread, r.seq));
    }
  });
  const std::size_t total = std::size_t{kThreads} * kPerThread;
  ASSERT_EQ(store.size(), total);
  std::vector<std::uint8_t> seen(total, 0);
  for (std::size_t i = 0; i < total; ++i) {
    const Record r = store.get(i);
    ASSERT_LT(r.thread, std::uint32_t(kThreads)) << "slot " << i << " never written";
    ASSERT_LT(r.seq, kPerThread);
    ASSERT_EQ(r.check, check_of(r.thread, r.seq)) << "slot " << i << " torn or overwritten";
    std::uint8_t& s = seen[std::size_t{r.thread} * kPerThread + r.seq];
    ASSERT_EQ(s, 0) << "value (" << r.thread << "," << r.seq << ") present twice";
    s = 1;
  }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), std::ptrdiff_t(total));
  EXPECT_GE(store.bytes_resident(), total * sizeof(Record));
}

TYPED_TEST(StorageConcurrent, AddressesStayStableWhileOthersAppend) {
  if constexpr (!requires(TypeParam& s) { s[0]; }) {
    GTEST_SKIP() << "vector + lock moves elements on growth by design";
  } else {
    TypeParam store(std::size_t{1} << 30);
    const std::size_t anchor = store.claim(1);
    store.set(anchor, Record{99, 99, check_of(99, 99)});
    Record* const address = &store[anchor];
    std::atomic<int> appenders_done{0};
    nodegen::run_team(kThreads, [&](int tid, int nthreads) {
      if (tid == 0) {  // watcher: the anchor never moves or changes while the store grows
        do {
          ASSERT_EQ(&store[anchor], address);
          ASSERT_EQ(address->check, check_of(99, 99));
        } while (appenders_done.load(std::memory_order_acquire) < nthreads - 1);
        return;
      }
      for (int k = 0; k < 2000; ++k) {
        const std::size_t first = store.claim(37);
        store.set(first, Record{std::uint32_t(tid), std::uint32_t(k), 0});
      }
      appenders_done.fetch_add(1, std::memory_order_release);
    });
    EXPECT_EQ(store.size(), 1 + std::size_t{kThreads - 1} * 2000 * 37);
  }
}

TYPED_TEST(StorageConcurrent, ExhaustionThrowsStoreFullAndClaimsStayDisjoint) {
  constexpr std::size_t kCapacity = 100000;
  TypeParam store(kCapacity);
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> runs(kThreads);
  std::atomic<int> saw_full{0};
  nodegen::run_team(kThreads, [&](int tid, int) {
    std::mt19937 rng(static_cast<unsigned>(tid) + 100);
    // Bulk claims until refused, then single claims until refused: singles must fill what fits.
    bool bulk = true;
    for (;;) {
      const std::size_t n = bulk ? 1 + rng() % 50 : 1;
      try {
        const std::size_t first = store.claim(n);
        runs[static_cast<std::size_t>(tid)].emplace_back(first, n);
        store.set(first + n - 1, Record{std::uint32_t(tid), 0, 0});
      } catch (const nodegen::StoreFull&) {
        if (!bulk) break;
        bulk = false;
      }
    }
    saw_full.fetch_add(1);
  });
  EXPECT_EQ(saw_full.load(), kThreads);
  EXPECT_EQ(store.size(), kCapacity);
  std::vector<std::uint8_t> owner(kCapacity, 0);
  std::size_t claimed = 0;
  for (const auto& thread_runs : runs) {
    for (const auto& [first, n] : thread_runs) {
      ASSERT_LE(first + n, kCapacity);
      for (std::size_t i = first; i < first + n; ++i) {
        ASSERT_EQ(owner[i], 0) << "slot " << i << " claimed twice";
        owner[i] = 1;
      }
      claimed += n;
    }
  }
  EXPECT_LE(claimed, kCapacity);
  EXPECT_THROW(store.claim(1), nodegen::StoreFull);
}

// The shared pool behind SuballocAllocator, from 8 threads at once: each thread builds and trims its own
// list (nodes of one size, so all threads share one pool), contents stay intact, and once every list
// is gone the pool holds nothing.
TEST(SuballocAllocatorConcurrent, SharedPoolServesManyThreads) {
  struct Payload {
    std::uint64_t a, b, c;
  };
  using List = std::list<Payload, nodegen::SuballocAllocator<Payload>>;
  nodegen::run_team(kThreads, [&](int tid, int) {
    List list;
    for (std::uint64_t round = 0; round < 3; ++round) {
      for (std::uint64_t i = 0; i < 20000; ++i) list.push_back(Payload{std::uint64_t(tid), i, i ^ round});
      std::uint64_t i = 0;
      for (auto it = list.begin(); it != list.end(); ++i) {  // drop every other node
        ASSERT_EQ(it->a, std::uint64_t(tid));
        it = (i % 2) ? list.erase(it) : std::next(it);
      }
    }
  });
  // libstdc++'s node type of std::list<Payload>: the pool of its size must be empty again.
  using Node = std::_List_node<Payload>;
  auto& pool = nodegen::shared_suballocator<sizeof(Node), alignof(Node), std::mutex,
                                            nodegen::HugePageChunks<nodegen::SuballocSlot<sizeof(Node), alignof(Node)>>>();
  EXPECT_EQ(pool.locked([](auto& p) { return p.size(); }), 0u);
  EXPECT_TRUE(pool.locked([](auto& p) { return p.invariants_hold(); }));
}

}  // namespace
