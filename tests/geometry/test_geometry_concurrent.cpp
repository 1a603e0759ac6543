// Domains are shared read-only by the fill's worker threads: contains() from 8 threads at once (more
// threads than cores) must give the serial answers, with no lazy initialisation racing (the tsan preset
// builds this suite); each thread uses its own spacing evaluator; boundary_nodes() is reentrant, and gives
// the same nodes on any number of threads.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <random>
#include <thread>

#include "support/geometry_test_support.hpp"
#include "support/temp_dir.hpp"

namespace nodegen {
namespace {

constexpr int threads = 8;

template <int D>
void expect_concurrent_contains_matches_serial(const Domain<D>& d, int points_per_thread) {
  const Box<D> box = d.bounding_box();
  auto points_of = [&](int t) {
    std::mt19937_64 rng(1000 + t);
    std::vector<Vec<D>> pts(points_per_thread);
    for (auto& p : pts)
      for (int i = 0; i < D; ++i) p[i] = std::uniform_real_distribution<double>(box.lo[i], box.hi[i])(rng);
    return pts;
  };
  std::vector<std::vector<char>> serial(threads), parallel(threads);
  for (int t = 0; t < threads; ++t)
    for (const auto& p : points_of(t)) serial[t].push_back(d.contains(p));
  std::vector<std::thread> team;
  for (int t = 0; t < threads; ++t)
    team.emplace_back([&, t] {
      for (const auto& p : points_of(t)) parallel[t].push_back(d.contains(p));
    });
  for (auto& th : team) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(serial[t], parallel[t]) << "thread " << t;
}

TEST(GeometryConcurrent, MeshContainsFromManyThreads) {
  // The voxel cache answers most points; the rest go to CGAL's tree, built eagerly at load.
  const DomainFile f = load_domain_file(test::source_dir() / "domains" / "torus_mesh.json");
  expect_concurrent_contains_matches_serial(*test::domain_of<3>(f), 20000);
}

TEST(GeometryConcurrent, PlainCgalMeshContainsFromManyThreads) {
  const test::TempDir dir("geometry");
  std::ofstream(dir / "plain_torus.json")
      << R"({"dim":3,"spacing":0.1,"shape":{"type":"mesh","file":")"
      << (test::source_dir() / "domains" / "meshes" / "torus.stl").string() << R"(","accelerate":false}})";
  const DomainFile f = load_domain_file(dir / "plain_torus.json");
  expect_concurrent_contains_matches_serial(*test::domain_of<3>(f), 5000);
}

TEST(GeometryConcurrent, CsgAndPolygonContainsFromManyThreads) {
  const DomainFile f2 = load_domain_file(test::source_dir() / "domains" / "plate_with_holes.json");
  expect_concurrent_contains_matches_serial(*test::domain_of<2>(f2), 50000);
  const DomainFile f3 = load_domain_file(test::source_dir() / "domains" / "box_minus_ball.json");
  expect_concurrent_contains_matches_serial(*test::domain_of<3>(f3), 50000);
}

TEST(GeometryConcurrent, OneSpacingEvaluatorPerThread) {
  const Spacing s = Spacing::expression("0.002 + 0.02*sqrt((x-0.5)^2+y^2)");
  std::atomic<int> wrong{0};
  std::vector<std::thread> team;
  for (int t = 0; t < threads; ++t)
    team.emplace_back([&, t] {
      auto h = s.evaluator();
      for (int k = 0; k < 20000; ++k) {
        const double x = 0.001 * ((k * 7 + t) % 1000), y = 0.001 * ((k * 13 + 3 * t) % 1000);
        const double expected = 0.002 + 0.02 * std::sqrt((x - 0.5) * (x - 0.5) + y * y);
        if (std::abs(h(Vec<2>(x, y)) - expected) > 1e-15) wrong.fetch_add(1, std::memory_order_relaxed);
      }
    });
  for (auto& th : team) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(GeometryConcurrent, BoundaryNodesAreReentrant) {
  const DomainFile f = load_domain_file(test::source_dir() / "domains" / "box_minus_ball.json");
  const auto& d = *test::domain_of<3>(f);
  const auto reference = d.boundary_nodes(f.spacing, 4);
  std::vector<std::vector<BoundaryNode<3>>> results(4);
  std::vector<std::thread> team;
  for (int t = 0; t < 4; ++t) team.emplace_back([&, t] { results[t] = d.boundary_nodes(f.spacing, 4); });
  for (auto& th : team) th.join();
  for (const auto& r : results) {
    ASSERT_EQ(r.size(), reference.size());
    for (std::size_t i = 0; i < r.size(); ++i) ASSERT_EQ(r[i].pos, reference[i].pos);
  }
}

// CSG of two cube charts (box faces and sphere patches filled on forked sinks, their junction nodes
// merged): 8 threads must place exactly the nodes one thread places.
TEST(GeometryConcurrent, CsgBoundaryNodesDoNotDependOnThreads) {
  const DomainFile f = load_domain_file(test::source_dir() / "domains" / "box_minus_ball.json");
  const auto& d = *test::domain_of<3>(f);
  const auto one = d.boundary_nodes(f.spacing, 6, 1);
  const auto eight = d.boundary_nodes(f.spacing, 6, threads);
  ASSERT_EQ(eight.size(), one.size());
  for (std::size_t i = 0; i < one.size(); ++i) ASSERT_EQ(eight[i].pos, one[i].pos) << i;
}

// A mesh's surface samples are thinned on several threads (poisson_thinning.hpp): 8 threads (more than
// cores) must place exactly the nodes one thread places.
void expect_mesh_boundary_independent_of_threads(const DomainFile& f) {
  const auto& d = *test::domain_of<3>(f);
  const auto one = d.boundary_nodes(f.spacing, 5, 1);
  const auto eight = d.boundary_nodes(f.spacing, 5, threads);
  ASSERT_GT(one.size(), 1000u);
  ASSERT_EQ(eight.size(), one.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(eight[i].pos, one[i].pos) << i;
    ASSERT_EQ(eight[i].normal, one[i].normal) << i;
  }
}

TEST(GeometryConcurrent, MeshBoundaryNodesDoNotDependOnThreads) {
  expect_mesh_boundary_independent_of_threads(load_domain_file(test::source_dir() / "domains" / "torus_mesh.json"));
}

// A graded spacing leaves most thinning blocks sparse (a list instead of a dense cell grid), read by
// the neighbouring blocks' threads as the dense ones are.
TEST(GeometryConcurrent, GradedMeshBoundaryNodesDoNotDependOnThreads) {
  const test::TempDir dir("geometry");
  std::ofstream(dir / "graded_torus.json")
      << R"j({"dim":3,"spacing":"0.002 + 0.1*sqrt((x-1.35)^2+y^2+z^2)","shape":{"type":"mesh","file":")j"
      << (test::source_dir() / "domains" / "meshes" / "torus.stl").string() << R"("}})";
  expect_mesh_boundary_independent_of_threads(load_domain_file(dir / "graded_torus.json"));
}

}  // namespace
}  // namespace nodegen
