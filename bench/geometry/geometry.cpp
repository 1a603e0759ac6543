// Benchmark of the geometry layer: inside tests per second on a 1e5-triangle mesh (voxel cache vs
// plain CGAL, uniform points and points near the surface, 1 and 2 threads), CSG and polygon inside
// tests, spacing evaluations, mesh load time and boundary node placement for the example domains.
//
//   geometry [--repeats R] [--triangles T] [--domains DIR]    (run from the repository root, or give
//                                                               DIR = the repository's domains/ folder)
//
// Prints markdown tables (median and min-max over R runs, variants alternated run by run);
// bench/results/geometry.md has its figures.
#include <time.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_stats.hpp"
#include "nodegen/input/domain_file.hpp"

namespace {

using namespace nodegen;
using bench::now_seconds;
using bench::summarize;

// Torus R = 1, r = 0.35 with nu x nv quads split in two: 2 nu nv triangles.
void write_torus_off(const std::filesystem::path& path, int nu, int nv) {
  std::ofstream out(path);
  out.precision(17);
  out << "OFF\n" << nu * nv << " " << 2 * nu * nv << " 0\n";
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nv; ++j) {
      const double u = 2 * std::numbers::pi * i / nu, w = 2 * std::numbers::pi * j / nv;
      out << (1 + 0.35 * std::cos(w)) * std::cos(u) << " " << (1 + 0.35 * std::cos(w)) * std::sin(u) << " "
          << 0.35 * std::sin(w) << "\n";
    }
  for (int i = 0; i < nu; ++i)
    for (int j = 0; j < nv; ++j) {
      const int a = i * nv + j, b = ((i + 1) % nu) * nv + j, c = ((i + 1) % nu) * nv + (j + 1) % nv,
                d = i * nv + (j + 1) % nv;
      out << "3 " << a << " " << b << " " << c << "\n3 " << a << " " << c << " " << d << "\n";
    }
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Rates {
  double wall;  // tests per wall-clock second, all threads together
  double cpu;   // tests per CPU-second of the testing threads (what an idle core would give)
};

// Inside tests per second with `threads` threads, each on its own slice of `points`. The machine is
// shared, so CPU time is recorded too: on a loaded machine the wall-clock rate mostly measures waiting.
template <int D>
Rates tests_per_second(const Domain<D>& d, const std::vector<Vec<D>>& points, int threads) {
  std::atomic<long> inside{0};
  std::vector<double> cpu(static_cast<std::size_t>(threads));
  const double t0 = now_seconds();
  std::vector<std::thread> team;
  for (int t = 0; t < threads; ++t)
    team.emplace_back([&, t] {
      const double c0 = thread_cpu_seconds();
      long local = 0;
      for (std::size_t i = static_cast<std::size_t>(t); i < points.size(); i += static_cast<std::size_t>(threads))
        local += d.contains(points[i]);
      inside += local;
      cpu[static_cast<std::size_t>(t)] = thread_cpu_seconds() - c0;
    });
  for (auto& th : team) th.join();
  const double sec = now_seconds() - t0;
  if (inside.load() < 0) std::abort();  // keeps the loop alive
  double cpu_total = 0;
  for (double c : cpu) cpu_total += c;
  return {static_cast<double>(points.size()) / sec, static_cast<double>(points.size()) / cpu_total};
}

template <int D>
std::vector<Vec<D>> uniform_points(const Box<D>& box, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Vec<D>> pts(n);
  for (auto& p : pts)
    for (int i = 0; i < D; ++i) p[i] = std::uniform_real_distribution<double>(box.lo[i], box.hi[i])(rng);
  return pts;
}

// Points within 0.05 of the torus surface: where the fill's candidates near the boundary land.
std::vector<Vec<3>> torus_shell_points(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> angle(0, 2 * std::numbers::pi), radial(0.30, 0.40);
  std::vector<Vec<3>> pts(n);
  for (auto& p : pts) {
    const double u = angle(rng), w = angle(rng), r = radial(rng);
    p = Vec<3>((1 + r * std::cos(w)) * std::cos(u), (1 + r * std::cos(w)) * std::sin(u), r * std::sin(w));
  }
  return pts;
}

std::string rate(const bench::Summary& s) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.3g (%.3g-%.3g)", s.median, s.min, s.max);
  return buf;
}

struct Options {
  int repeats = 5, triangles = 100000;
  std::filesystem::path domains = "domains";
};

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--repeats")) o.repeats = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--triangles")) o.triangles = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--domains")) o.domains = argv[i + 1];
  }
  return o;
}

// The torus mesh in `dir` and two domain files of it: cached.json (voxel cache on), plain.json (off).
void write_torus_domains(const std::filesystem::path& dir, int nu, int nv) {
  std::filesystem::create_directories(dir);
  write_torus_off(dir / "torus.off", nu, nv);
  for (bool acc : {true, false})
    std::ofstream(dir / (acc ? "cached.json" : "plain.json"))
        << R"({"dim":3,"spacing":0.05,"shape":{"type":"mesh","file":"torus.off","accelerate":)"
        << (acc ? "true" : "false") << "}}";
}

// One table row per point set and thread count: the voxel-cached mesh on the full set against plain
// CGAL on its first tenth (plain CGAL is that much slower).
void print_mesh_rates(const Domain<3>& dc, const Domain<3>& dp, int repeats) {
  std::printf("| points | threads | voxel cache: tests/s (wall) | voxel cache: tests per CPU-s | plain CGAL: tests/s (wall) | plain CGAL: tests per CPU-s |\n|---|---|---|---|---|---|\n");
  const auto uniform = uniform_points<3>(dc.bounding_box(), 2'000'000, 1);
  const auto shell = torus_shell_points(2'000'000, 2);
  const std::vector<Vec<3>> uniform_small(uniform.begin(), uniform.begin() + 200'000);
  const std::vector<Vec<3>> shell_small(shell.begin(), shell.begin() + 200'000);
  for (const auto& [name, pts, pts_plain] :
       {std::tuple{"uniform in box", &uniform, &uniform_small}, std::tuple{"within 0.05 of surface", &shell, &shell_small}}) {
    for (int threads : {1, 2}) {
      std::vector<double> a, a_cpu, b, b_cpu;
      for (int r = 0; r < repeats; ++r) {
        const Rates x = tests_per_second(dc, *pts, threads), y = tests_per_second(dp, *pts_plain, threads);
        a.push_back(x.wall);
        a_cpu.push_back(x.cpu);
        b.push_back(y.wall);
        b_cpu.push_back(y.cpu);
      }
      std::printf("| %s | %d | %s | %s | %s | %s |\n", name, threads, rate(summarize(a)).c_str(),
                  rate(summarize(a_cpu)).c_str(), rate(summarize(b)).c_str(), rate(summarize(b_cpu)).c_str());
    }
  }
}

// Load times of the torus with and without the voxel cache, then their inside-test rates.
void print_mesh_inside_tests(const Options& o) {
  const auto dir = std::filesystem::temp_directory_path() / "nodegen_bench_geometry";
  const int nv = std::max(8, static_cast<int>(std::sqrt(o.triangles / 2.0 / 5.0)));
  const int nu = std::max(8, o.triangles / (2 * nv));
  write_torus_domains(dir, nu, nv);
  std::vector<double> load_cached, load_plain;
  DomainFile cached, plain;
  for (int r = 0; r < o.repeats; ++r) {
    double t0 = now_seconds();
    cached = load_domain_file(dir / "cached.json");
    load_cached.push_back(now_seconds() - t0);
    t0 = now_seconds();
    plain = load_domain_file(dir / "plain.json");
    load_plain.push_back(now_seconds() - t0);
  }
  std::printf("## Mesh inside tests (torus, %d triangles)\n\n", 2 * nu * nv);
  std::printf("Load (read + orient + AABB tree + voxel cache + spacing validation), s: cached %s, plain CGAL %s\n\n",
              rate(summarize(load_cached)).c_str(), rate(summarize(load_plain)).c_str());
  print_mesh_rates(*std::get<1>(cached.domain), *std::get<1>(plain.domain), o.repeats);
}

void print_analytic_inside_tests(const Options& o) {
  std::printf("\n## Other inside tests (1 thread, uniform points in the bounding box)\n\n| domain | tests/s (wall) | tests per CPU-s |\n|---|---|---|\n");
  for (const char* name : {"square.json", "plate_with_holes.json", "polygon_with_holes.json", "box_minus_ball.json",
                           "cross_union.json", "gear_mesh.json"}) {
    const DomainFile f = load_domain_file(o.domains / name);
    std::vector<double> rates, cpu_rates;
    std::visit(
        [&](const auto& d) {
          const auto pts = uniform_points(d->bounding_box(), 1'000'000, 3);
          for (int r = 0; r < o.repeats; ++r) {
            const Rates x = tests_per_second(*d, pts, 1);
            rates.push_back(x.wall);
            cpu_rates.push_back(x.cpu);
          }
        },
        f.domain);
    std::printf("| %s | %s | %s |\n", name, rate(summarize(rates)).c_str(), rate(summarize(cpu_rates)).c_str());
  }
}

void print_spacing_evaluations(int repeats) {
  std::printf("\n## Spacing evaluations (1 thread)\n\n| spacing | evaluations/s |\n|---|---|\n");
  for (const auto& spacing : {Spacing::constant(0.01), Spacing::expression("0.002 + 0.02*sqrt((x-0.5)^2+y^2)")}) {
    std::vector<double> rates;
    auto h = spacing.evaluator();
    for (int r = 0; r < repeats; ++r) {
      double sum = 0;
      const int n = 5'000'000;
      const double t0 = now_seconds();
      for (int k = 0; k < n; ++k) sum += h(Vec<2>(1e-7 * k, 0.3));
      rates.push_back(n / (now_seconds() - t0));
      if (sum < 0) std::abort();
    }
    std::printf("| %s | %s |\n", spacing.describe().c_str(), rate(summarize(rates)).c_str());
  }
}

void print_boundary_nodes(const Options& o) {
  std::printf("\n## Boundary nodes of the example domains (1 thread)\n\n| domain | boundary nodes | s | nodes/s |\n|---|---|---|---|\n");
  for (const auto& e : std::filesystem::directory_iterator(o.domains)) {
    if (e.path().extension() != ".json") continue;
    const DomainFile f = load_domain_file(e.path());
    std::vector<double> secs;
    std::size_t count = 0;
    for (int r = 0; r < o.repeats; ++r) {
      const double t0 = now_seconds();
      std::visit([&](const auto& d) { count = d->boundary_nodes(f.spacing, f.fill.seed).size(); }, f.domain);
      secs.push_back(now_seconds() - t0);
    }
    const auto s = summarize(secs);
    std::printf("| %s | %zu | %.3f (%.3f-%.3f) | %.3g |\n", e.path().filename().c_str(), count, s.median, s.min, s.max,
                static_cast<double>(count) / s.median);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);
  std::printf("# geometry benchmark: repeats %d, hardware threads %u\n\n", o.repeats, std::thread::hardware_concurrency());
  print_mesh_inside_tests(o);
  print_analytic_inside_tests(o);
  print_spacing_evaluations(o.repeats);
  print_boundary_nodes(o);
  return 0;
}
