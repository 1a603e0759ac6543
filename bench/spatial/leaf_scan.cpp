// The k-d tree's leaf scan (leaf_within, spatial/leaf_distances.hpp) in each of its versions that this
// CPU runs, side by side in one process: blocks of scans alternate between the versions, so the host's
// drift (tens of per cent over seconds on a shared VM, more than a kernel's gain) hits each alike, and
// the figures to quote are the per-block ratios of each version's time to the portable one's and to
// the version above it in the table (the next narrower one).
//
// The leaves are as the fill's queries meet them: grid coordinates (32-bit integers) or doubles, 2D or
// 3D, 33-64 points a leaf (a bucket of 64 is split when full), a query near the leaf whose radius holds
// about a sixth of its points. Prints, per case and version, the median nanoseconds per leaf and the
// median (range) of both per-block ratios.
//
//   leaf_scan [--blocks 301] [--scans 4000]
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "nodegen/spatial/leaf_distances.hpp"

namespace {

using nodegen::spatial_detail::ScanVersion;

constexpr int kLeaves = 256;  // 256 leaves of 64 points: 48-72 KiB, in L2 as the fill's hot leaves are
constexpr ScanVersion kVersions[] = {ScanVersion::portable, ScanVersion::avx2, ScanVersion::avx512};
const char* name_of(ScanVersion v) {
  return v == ScanVersion::portable ? "portable" : v == ScanVersion::avx2 ? "avx2" : "avx512";
}

template <class C>
struct Case {
  int dims;
  std::vector<C> coords;       // leaf l, axis d: coords[(l * 3 + d) * 64 + i]
  std::vector<std::uint32_t> n;
  std::vector<double> q;       // leaf l's query: q[l * 3 + d]
  std::vector<double> r2;

  Case(int dims_, std::mt19937_64& rng)
      : dims(dims_), coords(kLeaves * 3 * 64), n(kLeaves), q(kLeaves * 3), r2(kLeaves) {
    std::uniform_int_distribution<int> count(33, 64);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const double span = 1 << 20;  // a leaf's extent in grid steps
    for (int l = 0; l < kLeaves; ++l) {
      n[l] = static_cast<std::uint32_t>(count(rng));
      for (int d = 0; d < 3; ++d) {
        for (int i = 0; i < 64; ++i) coords[(l * 3 + d) * 64 + i] = static_cast<C>(span * unit(rng));
        q[l * 3 + d] = span * unit(rng) + 0.375;
      }
      // About n / 6 points within: the volume fraction of a ball of that radius in the leaf's box.
      const double frac = 1.0 / 6.0;
      const double r = dims == 2 ? span * std::sqrt(frac / 3.14159265) : span * std::cbrt(frac * 3 / (4 * 3.14159265));
      r2[l] = r * r;
    }
  }
  std::uint64_t scan(ScanVersion v, int l) const {
    const C* x[3];
    for (int d = 0; d < 3; ++d) x[d] = &coords[(l * 3 + d) * 64];
    return nodegen::spatial_detail::leaf_within(v, x, dims, n[l], &q[l * 3], r2[l]);
  }
};

template <class C>
void run(const char* label, int dims, int blocks, int scans) {
  std::mt19937_64 rng(42 + dims);
  const Case<C> c(dims, rng);
  std::vector<ScanVersion> versions;
  for (ScanVersion v : kVersions)
    if (nodegen::spatial_detail::cpu_runs(v)) versions.push_back(v);
  std::vector<std::vector<double>> ns(versions.size()), ratio(versions.size()), step(versions.size());
  std::uint64_t sink = 0;
  for (int b = 0; b < blocks; ++b) {
    std::vector<double> t(versions.size());
    for (std::size_t k = 0; k < versions.size(); ++k) {
      const std::size_t j = (b % 2) ? versions.size() - 1 - k : k;  // the order flips every block
      const double start = nodegen::bench::now_seconds();
      for (int s = 0; s < scans; ++s) sink += c.scan(versions[j], s % kLeaves);
      t[j] = (nodegen::bench::now_seconds() - start) * 1e9 / scans;
    }
    for (std::size_t k = 0; k < versions.size(); ++k) {
      ns[k].push_back(t[k]);
      ratio[k].push_back(t[0] / t[k]);
      step[k].push_back(t[k == 0 ? 0 : k - 1] / t[k]);
    }
  }
  for (std::size_t k = 0; k < versions.size(); ++k) {
    const auto time = nodegen::bench::summarize(ns[k]);
    const auto speed = nodegen::bench::summarize(ratio[k]);
    const auto gain = nodegen::bench::summarize(step[k]);
    std::printf("| %s | %s | %.1f | %.2fx (%.2f-%.2f) | %.2fx (%.2f-%.2f) |\n", label, name_of(versions[k]),
                time.median, speed.median, speed.min, speed.max, gain.median, gain.min, gain.max);
  }
  if (sink == 42) std::puts("");  // keeps the scans from being optimised away
}

}  // namespace

int main(int argc, char** argv) {
  int blocks = 301, scans = 4000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--blocks" && i + 1 < argc) blocks = std::atoi(argv[++i]);
    else if (a == "--scans" && i + 1 < argc) scans = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: leaf_scan [--blocks 301] [--scans 4000]\n");
      return 2;
    }
  }
  if (blocks < 1 || scans < 1) {
    std::fprintf(stderr, "leaf_scan: --blocks and --scans must be at least 1\n");
    return 2;
  }
  std::printf("| leaves | version | ns per leaf (median) | speed vs portable, per block: median (range) | vs the "
              "version above |\n|---|---|---|---|---|\n");
  run<std::int32_t>("2D grid", 2, blocks, scans);
  run<std::int32_t>("3D grid", 3, blocks, scans);
  run<double>("2D double", 2, blocks, scans);
  run<double>("3D double", 3, blocks, scans);
  return 0;
}
