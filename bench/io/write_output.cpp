// How long writing the output takes next to the fill: write_output (HDF5 + XDMF, atomic) and
// read_hdf5 on random node sets of 1e5 .. 1e7 nodes in 2D and 3D, with a constant h.
//
//   write_output [--sizes 100000,1000000,10000000] [--reps 3] [--dir /tmp]
//
// Prints per size and dimension: median (min-max) seconds to write and to read back, write
// nodes/s and MB/s, file bytes per node. The files are deleted after each repetition.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench_stats.hpp"
#include "nodegen/io/hdf5_reader.hpp"
#include "nodegen/io/output.hpp"
#include "nodegen/io/xdmf_writer.hpp"

namespace fs = std::filesystem;
using nodegen::bench::now_seconds;
using nodegen::bench::summarize;

namespace {

nodegen::io::NodeArrays random_nodes(int dim, std::size_t n) {
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  nodegen::io::NodeArrays a;
  a.dim = dim;
  const std::size_t boundary = n / 100;
  a.positions.resize(n * static_cast<std::size_t>(dim));
  for (auto& x : a.positions) x = u(rng);
  a.types.assign(n, 1);
  a.bmap.assign(n, -1);
  for (std::size_t i = 0; i < boundary; ++i) {
    a.types[i] = -1;
    a.bmap[i] = static_cast<std::int32_t>(i);
    for (int k = 0; k < dim; ++k) a.normals.push_back(k == 0 ? 1.0 : 0.0);
  }
  a.h.assign(n, 0.001);
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes = {100'000, 1'000'000, 10'000'000};
  int reps = 3;
  fs::path dir = fs::temp_directory_path();
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--sizes") {
      sizes.clear();
      for (const auto& s : nodegen::bench::split_list(argv[i + 1])) sizes.push_back(std::stoull(s));
    } else if (key == "--reps") {
      reps = std::atoi(argv[i + 1]);
    } else if (key == "--dir") {
      dir = argv[i + 1];
    } else {
      std::fprintf(stderr, "usage: write_output [--sizes N,N,...] [--reps R] [--dir DIR]\n");
      return 2;
    }
  }
  std::printf("| dim | nodes | write s median (min-max) | read s median (min-max) | write Mnodes/s | write MB/s | file B/node |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (int dim : {2, 3}) {
    for (std::size_t n : sizes) {
      const auto nodes = random_nodes(dim, n);
      const fs::path file = dir / ("nodegen-write-bench-" + std::to_string(dim) + "d.h5");
      std::vector<double> writes, reads;
      std::uintmax_t bytes = 0;
      for (int r = 0; r < reps; ++r) {
        double t0 = now_seconds();
        nodegen::io::write_output(file, nodes.view(), {{"seed", std::int64_t{1}}});
        writes.push_back(now_seconds() - t0);
        bytes = fs::file_size(file);
        t0 = now_seconds();
        const auto back = nodegen::io::read_hdf5(file);
        reads.push_back(now_seconds() - t0);
        if (back.nodes.node_count() != n) return 1;
        fs::remove(file);
        fs::remove(nodegen::io::xdmf_path_for(file));
      }
      const auto w = summarize(writes), rd = summarize(reads);
      std::printf("| %d | %zu | %.3f (%.3f-%.3f) | %.3f (%.3f-%.3f) | %.2f | %.0f | %.1f |\n", dim, n, w.median, w.min,
                  w.max, rd.median, rd.min, rd.max, static_cast<double>(n) / w.median / 1e6,
                  static_cast<double>(bytes) / w.median / 1e6, static_cast<double>(bytes) / static_cast<double>(n));
      std::fflush(stdout);
    }
  }
  return 0;
}
