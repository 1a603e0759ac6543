// The tile map made and searched by many threads at once (more threads than cores), and the waiting
// lists' arrivals delivered from several threads: every key names one tile, written in full before any
// thread finds it, indices dense, and every delivered node in its tile (ThreadSanitizer, in the tsan
// preset, reports a race if a tile is seen before it is written).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <set>
#include <vector>

#include "nodegen/fill/internal/tile_map.hpp"
#include "nodegen/parallel/segmented_array.hpp"
#include "nodegen/parallel/spin_lock.hpp"
#include "nodegen/parallel/thread_team.hpp"

namespace nodegen::fill_detail {
namespace {

TileKey<2> key_of(int i) { return {i % 3 - 1, {i / 3 % 97 - 40, i / 291 - 7}}; }

TEST(SegmentedArray, ElementsStayWhereTheyWereAsItGrows) {
  SegmentedArray<std::uint64_t> a;
  std::vector<std::uint64_t*> where;
  for (std::size_t i = 0; i < 300000; ++i) {
    a.grow_to(i) = i * 7;
    where.push_back(&a[i]);
  }
  for (std::size_t i = 0; i < 300000; i += 997) {
    EXPECT_EQ(&a[i], where[i]);
    EXPECT_EQ(a[i], i * 7);
  }
}

TEST(TileMapConcurrent, EveryKeyNamesOneTileWrittenInFull) {
  constexpr int kThreads = 9, kKeys = 40000;
  TileGrid<2> grid(Vec<2>(0.0, 0.0), 1.0);
  TileMap<2> map(grid);
  std::vector<std::vector<std::uint32_t>> seen(kThreads, std::vector<std::uint32_t>(kKeys, kNoTile));
  std::atomic<int> wrong{0};
  run_team(kThreads, [&](int t, int) {
    // Each thread walks all keys from its own start, finding some first and making the rest.
    for (int k = 0; k < kKeys; ++k) {
      const int i = (k + t * 4447) % kKeys;
      std::uint32_t index = map.find(key_of(i));
      if (index == kNoTile || k % 2 == 0) index = map.at(key_of(i)).index;
      const Tile<2>& tile = map[index];
      if (!(tile.key == key_of(i)) || tile.index != index || !(map.key(index) == key_of(i))) ++wrong;
      seen[static_cast<std::size_t>(t)][static_cast<std::size_t>(i)] = index;
    }
  });
  EXPECT_EQ(wrong.load(), 0);
  std::set<std::uint32_t> indices;
  for (int i = 0; i < kKeys; ++i) {
    for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t][i], seen[0][i]) << "key " << i;
    indices.insert(seen[0][static_cast<std::size_t>(i)]);
  }
  ASSERT_EQ(indices.size(), static_cast<std::size_t>(kKeys));
  EXPECT_EQ(*indices.rbegin(), static_cast<std::uint32_t>(kKeys - 1));  // dense from 0
}

// Nodes for one tile from many sources and threads, in whatever order they come: the tile expands them
// in the order of their sources' merge order, each source's in its own order.
TEST(TileMapConcurrent, ArrivalsFromManyThreadsComeOutInTheSourcesOrder) {
  constexpr int kThreads = 7, kSources = 60, kEach = 5;
  TileGrid<2> grid(Vec<2>(0.0, 0.0), 1.0);
  TileMap<2> map(grid);
  Tile<2>& target = map.at({0, {50, 50}});
  std::vector<std::uint32_t> sources;
  for (int s = 0; s < kSources; ++s) sources.push_back(map.at({0, {s % 8, s / 8}}).index);
  run_team(kThreads, [&](int t, int) {
    for (int s = t; s < kSources; s += kThreads) {
      for (int part = 0; part < 2; ++part) {  // two runs of one source's list, the later first
        const int first = (1 - part) * kEach;
        std::vector<SetAside<2>> nodes;
        for (int k = 0; k < kEach; ++k)
          nodes.push_back({{Vec<2>(s, first + k), 1.0}, target.key, target.index});
        SpinGuard guard(target.lock);
        target.arrive(nodes.begin(), nodes.end(),
                      {1, 5, sources[static_cast<std::size_t>(s)], static_cast<std::uint32_t>(first + 1)});
      }
    }
  });
  std::vector<Waiting<2>> front;
  std::vector<Arrival> due;
  ASSERT_TRUE(target.take(1, [&](const Arrival& a, const Arrival& b) { return map.arrives_before(a, b); }, front, due));
  std::vector<std::uint32_t> merge = sources;
  map.sort_merge_order(merge);
  ASSERT_EQ(front.size(), static_cast<std::size_t>(kSources * 2 * kEach));
  for (std::size_t q = 0; q < front.size(); ++q) {
    const auto s = static_cast<std::size_t>(std::find(sources.begin(), sources.end(), merge[q / (2 * kEach)]) - sources.begin());
    EXPECT_EQ(front[q].pos.x(), static_cast<double>(s)) << q;
    EXPECT_EQ(front[q].pos.y(), static_cast<double>(q % (2 * kEach))) << q;
  }
  EXPECT_TRUE(target.waiting.empty());
  EXPECT_TRUE(target.arrivals.empty());
}

// Arrivals of the next generation stay, in their order, when the front is taken.
TEST(TileMap, TakingAGenerationKeepsTheNextInItsOrder) {
  TileGrid<2> grid(Vec<2>(0.0, 0.0), 1.0);
  TileMap<2> map(grid);
  Tile<2>& tile = map.at({0, {0, 0}});
  const auto node = [](double x) { return Waiting<2>{Vec<2>(x, 0.0), 1.0}; };
  std::vector<Waiting<2>> a{node(1), node(2)}, b{node(10)}, c{node(3)}, d{node(11), node(12)};
  tile.arrive(a.begin(), a.end(), {3, 7, kNoTile, 2});
  tile.arrive(b.begin(), b.end(), {4, 9, kNoTile, 1});
  tile.arrive(c.begin(), c.end(), {3, 7, kNoTile, 1});
  tile.arrive(d.begin(), d.end(), {4, 8, kNoTile, 5});
  EXPECT_EQ(tile.front_count, 3u);
  std::vector<Waiting<2>> front;
  std::vector<Arrival> due;
  const auto before = [&](const Arrival& x, const Arrival& y) { return map.arrives_before(x, y); };
  EXPECT_FALSE(tile.take(4, before, front, due));
  ASSERT_TRUE(tile.take(3, before, front, due));
  ASSERT_EQ(front.size(), 3u);
  EXPECT_EQ(front[0].pos.x(), 3.0);
  EXPECT_EQ(front[1].pos.x(), 1.0);
  EXPECT_EQ(front[2].pos.x(), 2.0);
  EXPECT_EQ(tile.front_generation, 4u);
  EXPECT_EQ(tile.front_count, 3u);
  ASSERT_TRUE(tile.take(4, before, front, due));
  ASSERT_EQ(front.size(), 3u);
  EXPECT_EQ(front[0].pos.x(), 11.0);  // phase 8 before phase 9
  EXPECT_EQ(front[1].pos.x(), 12.0);
  EXPECT_EQ(front[2].pos.x(), 10.0);
  EXPECT_TRUE(tile.waiting.empty());
}

}  // namespace
}  // namespace nodegen::fill_detail
