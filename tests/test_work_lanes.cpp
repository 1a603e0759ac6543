// The parallel fill's work lanes on one thread: first in, first out within a lane, runs cut at the
// limit, and steals that take the newer half of the fullest lane (cutting a segment when needed).
#include <gtest/gtest.h>

#include <vector>

#include "nodegen/fill/work_lanes.hpp"

namespace nodegen {
namespace {

using fill_detail::WorkLanes;

std::vector<std::size_t> drain(WorkLanes& lanes, int lane, std::size_t limit) {
  std::vector<std::size_t> slots;
  WorkLanes::Run run;
  while (lanes.pop(lane, limit, run)) {
    EXPECT_GE(run.count, 1u);
    EXPECT_LE(run.count, limit);
    for (std::size_t i = 0; i < run.count; ++i) slots.push_back(run.first + i);
  }
  return slots;
}

std::vector<std::size_t> range(std::size_t first, std::size_t end) {
  std::vector<std::size_t> v;
  for (std::size_t i = first; i < end; ++i) v.push_back(i);
  return v;
}

TEST(WorkLanes, FirstInFirstOutWithRunsCutAtTheLimit) {
  WorkLanes lanes(1);
  lanes.push(0, {0, 10});
  lanes.push(0, {10, 3});
  lanes.push(0, {13, 0});  // empty segments are not queued
  EXPECT_EQ(lanes.queued(0), 13u);
  WorkLanes::Run run;
  ASSERT_TRUE(lanes.pop(0, 4, run));
  EXPECT_EQ(run.first, 0u);
  EXPECT_EQ(run.count, 4u);
  ASSERT_TRUE(lanes.pop(0, 64, run));  // the rest of the first segment, not into the next one
  EXPECT_EQ(run.first, 4u);
  EXPECT_EQ(run.count, 6u);
  EXPECT_EQ(drain(lanes, 0, 64), range(10, 13));
  EXPECT_FALSE(lanes.pop(0, 64, run));
  EXPECT_EQ(lanes.queued(0), 0u);
}

TEST(WorkLanes, StealTakesTheNewerHalfOfTheFullestLane) {
  WorkLanes lanes(3);
  lanes.push(0, {0, 4});
  lanes.push(1, {100, 6});
  lanes.push(1, {106, 4});
  ASSERT_TRUE(lanes.steal(2));  // lane 1 is the fullest (10): the thief gets its newer 5 slots
  EXPECT_EQ(lanes.queued(1), 5u);
  EXPECT_EQ(lanes.queued(2), 5u);
  EXPECT_EQ(drain(lanes, 2, 64), range(105, 110));  // the cut end of segment 100 and all of 106
  EXPECT_EQ(drain(lanes, 1, 64), range(100, 105));
  EXPECT_EQ(drain(lanes, 0, 64), range(0, 4));
  EXPECT_FALSE(lanes.steal(2));  // nothing anywhere
}

TEST(WorkLanes, TheBoundaryIsSpreadByStealing) {
  // The fill pushes the whole boundary onto lane 0; each other thread steals a contiguous stretch.
  WorkLanes lanes(4);
  lanes.push(0, {0, 1000});
  for (int t = 1; t < 4; ++t) ASSERT_TRUE(lanes.steal(t));
  std::vector<bool> seen(1000, false);
  for (int t = 0; t < 4; ++t) {
    const auto slots = drain(lanes, t, 64);
    ASSERT_FALSE(slots.empty());
    for (std::size_t k = 1; k < slots.size(); ++k) EXPECT_EQ(slots[k], slots[k - 1] + 1) << "lane " << t;
    for (std::size_t i : slots) {
      ASSERT_FALSE(seen[i]);
      seen[i] = true;
    }
  }
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_TRUE(seen[i]) << "slot " << i;
}

TEST(WorkLanes, ASingleSlotCanBeStolen) {
  WorkLanes lanes(2);
  lanes.push(0, {7, 1});
  ASSERT_TRUE(lanes.steal(1));
  EXPECT_EQ(drain(lanes, 1, 64), std::vector<std::size_t>{7});
  EXPECT_TRUE(drain(lanes, 0, 64).empty());
}

}  // namespace
}  // namespace nodegen
