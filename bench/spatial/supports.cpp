// supports: the k nearest nodes of every node (spatial/nearest_supports.hpp) against the fill that
// placed those nodes, side by side in one process.
//
//   build/release/bench/supports [--domain FILE] [--k K] [--threads T] [--reps R]
//
// Each round fills the domain file (fill_domain: boundary placement and interior, as `nodegen run`
// does) and then answers the supports of the nodes it placed, the two alternating for R rounds. Prints
// the medians (with ranges) of both and of their ratio per round. Defaults: the 2D benchmark domain
// (bench/domains/square_1e6.json, about 1e6 nodes), k = 15 in 2D and 30 in 3D, 1 thread, 5 rounds.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "nodegen/input/domain_file.hpp"
#include "nodegen/input/fill_domain.hpp"
#include "nodegen/spatial/nearest_supports.hpp"

namespace {

using namespace nodegen;

struct Args {
  std::string domain = "bench/domains/square_1e6.json";  // from the repository's root
  int k = 0;  // 0: 15 in 2D, 30 in 3D
  int threads = 1;
  int reps = 5;
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--domain") && has_value) a.domain = argv[++i];
    else if (!std::strcmp(argv[i], "--k") && has_value) a.k = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && has_value) a.threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--reps") && has_value) a.reps = std::atoi(argv[++i]);
    else return false;
  }
  return a.threads >= 1 && a.reps >= 1 && a.k >= 0;
}

template <int D>
void run(const DomainFile& file, const Args& a) {
  FillOptions options;
  options.threads = a.threads;
  const int k = a.k ? a.k : (D == 2 ? 15 : 30);
  std::vector<double> fill, supports, ratio;
  std::size_t nodes = 0;
  for (int r = 0; r < a.reps; ++r) {
    double t0 = bench::now_seconds();
    const auto d = std::get<Discretization<D>>(fill_domain(file, options));
    const double filled = bench::now_seconds() - t0;
    t0 = bench::now_seconds();
    const auto rows = nearest_supports<D>(std::span<const Vec<D>>(d.positions), k, a.threads);
    const double answered = bench::now_seconds() - t0;
    nodes = d.positions.size();
    if (rows.size() != nodes * static_cast<std::size_t>(k)) std::abort();
    fill.push_back(filled);
    supports.push_back(answered);
    ratio.push_back(answered / filled);
  }
  const auto f = bench::summarize(fill), s = bench::summarize(supports), q = bench::summarize(ratio);
  std::printf("%dD, k = %d, %zu nodes, %d thread(s), %d rounds\n", D, k, nodes, a.threads, a.reps);
  std::printf("fill seconds      %.3f (%.3f-%.3f)\n", f.median, f.min, f.max);
  std::printf("supports seconds  %.3f (%.3f-%.3f)\n", s.median, s.min, s.max);
  std::printf("supports / fill   %.2f (%.2f-%.2f)\n", q.median, q.min, q.max);
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr, "usage: supports [--domain FILE] [--k K] [--threads T] [--reps R]\n");
    return 2;
  }
  try {
    const DomainFile file = load_domain_file(a.domain);
    if (file.dim == 2) run<2>(file, a);
    else run<3>(file, a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "supports: %s\n", e.what());
    return 2;
  }
  return 0;
}
