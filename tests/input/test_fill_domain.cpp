// fill_domain's room: the store and the k-d tree reserve address space for about twice the loader's
// node estimate, not for the cap; an estimate that falls short costs a second fill with more room and
// the same nodes; the cap stays the limit.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <variant>

#include "support/fill_test_support.hpp"
#include "nodegen/fill/fill.hpp"
#include "nodegen/input/fill_domain.hpp"

namespace nodegen {
namespace {

DomainFile unit_square(double h, std::size_t max_nodes = 100'000'000) {
  return parse_domain_text(R"({"dim": 2, "spacing": )" + std::to_string(h) +
                               R"(, "shape": {"type": "box", "min": [0, 0], "max": [1, 1]}})",
                           "square.json", max_nodes);
}

Discretization<2> fill(const DomainFile& file, int threads, std::atomic<std::size_t>* progress = nullptr) {
  FillOptions o;
  o.threads = threads;
  o.progress = progress;
  return std::get<Discretization<2>>(fill_domain(file, o));
}

// The default cap of 1e8 would reserve 250 GB of address space; the square at h = 0.01 (~11 500 nodes)
// gets room for about twice the estimate plus 16384.
TEST(FillDomain, ReservesByTheEstimateNotTheCap) {
  const DomainFile file = unit_square(0.01);
  ASSERT_GT(file.expected_nodes, 5000.0);
  const auto d = fill(file, 2);
  EXPECT_EQ(d.fill_runs, 1);
  EXPECT_GE(d.reserved_nodes, d.positions.size());
  EXPECT_LT(d.reserved_nodes, 60'000u);
}

// An estimate far too low (as a coarse grid gives for a spacing refined between its points): the fill
// runs out of room, runs again with twice as much until it fits, and gives the nodes a fill with room
// for the cap gives, at every thread count; the progress count starts again with it.
TEST(FillDomain, AnEstimateTooLowFillsAgainWithTheSameNodes) {
  DomainFile file = unit_square(0.005);  // ~46 000 nodes
  file.expected_nodes.reset();           // unknown: room for the cap
  const auto reference = fill(file, 1);
  EXPECT_EQ(reference.fill_runs, 1);
  EXPECT_EQ(reference.reserved_nodes, file.fill.max_nodes);
  file.expected_nodes = 1.0;  // room for 16386 + the boundary's 800 at first
  for (int threads : {1, 3}) {
    std::atomic<std::size_t> progress{0};
    const auto d = fill(file, threads, &progress);
    const std::string what = std::to_string(threads) + " threads";
    EXPECT_EQ(d.fill_runs, 3) << what;  // room for 17 186, 34 372, 68 744
    EXPECT_EQ(d.reserved_nodes, 4 * (16386 + d.boundary_count)) << what;
    EXPECT_EQ(progress.load(), d.positions.size()) << what;
    testing::expect_same_nodes(d, reference, what);
  }
}

// Room grows to the cap and no further: a domain beyond it ends in the cap's error, not the room's.
TEST(FillDomain, TheCapStaysTheLimit) {
  DomainFile file = unit_square(0.005, 30'000);
  file.expected_nodes = 1.0;
  try {
    fill(file, 2);
    FAIL() << "expected StoreFull";
  } catch (const ReservationFull& e) {
    FAIL() << "the room's error at the cap: " << e.what();
  } catch (const StoreFull& e) {
    EXPECT_NE(std::string(e.what()).find("node cap of 30000"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace nodegen
