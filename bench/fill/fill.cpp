// Benchmark of the PNP fill: nodes/s, peak memory per node and node quality, on the unit square and
// the unit cube, for one configuration per process (so the peak RSS is that configuration's own).
//
//   fill [--dim 2|3] [--nodes N] [--threads T] [--backend vm|vector|suballoc] [--seed S]
//        [--prefault] [--huge-pages] [--no-quality] [--domain FILE.json] [--independent]
//        [--phase-log FILE.csv] [--seams]
//
// --phase-log writes the seconds of every item of every phase's round and of every completion step
// (PhaseLog in fill/discretization.hpp), for bench/fill/fill_scaling_model.py.
//
// --seams prints a second line comparing the nodes and holes within 2 h of a tile border with the rest
// (seams.hpp): the check that the hand-over between tiles leaves no trace.
//
// --independent (unit box only) measures the machine's ceiling for T threads on this workload rather
// than the parallel fill: T separate single-thread fills of N nodes run at the same time in this one
// process, sharing nothing but the machine (caches, memory bus, the kernel's page-fault path, the
// host's vCPU scheduling); nodes/s is all their nodes over the wall time until the last one finishes.
// Its ratio to the 1-thread rate is the best a T-thread fill could hope for here (bench/fill/fill_scaling.sh
// runs it beside the fill with CEILING=1).
//
// Default domain: the exact unit box with boundary nodes on cell-centred face grids (the geometry
// layer's cost stays out of the fill's figure); h is the constant that gives about N nodes at the
// packing density of PNP. With --domain, the domain file is loaded with the geometry layer and filled
// through fill_domain (boundary placement included in the time), at the file's own spacing unless
// --nodes is also given (then a constant h for about N nodes over the domain's measure).
// One line of key=value pairs goes to stdout; bench/RESULTS.md, Fill, and bench/results/fill.md have its figures.
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "nodegen/parallel/thread_team.hpp"

#include "nodegen/fill/fill.hpp"
#include "nodegen/input/fill_domain.hpp"
#include "nodegen/io/quality.hpp"
#include "seams.hpp"

namespace {

using namespace nodegen;

template <int D>
struct UnitBox {
  Box<D> box{Vec<D>::Zero(), Vec<D>::Ones()};
  bool contains(const Vec<D>& p) const { return (p.array() > 0.0).all() && (p.array() < 1.0).all(); }
  const Box<D>& bounding_box() const { return box; }
};

template <int D>
std::vector<BoundaryNode<D>> unit_box_boundary(double h) {
  std::vector<BoundaryNode<D>> out;
  const int n = static_cast<int>(std::ceil(1.0 / h));
  for (int axis = 0; axis < D; ++axis)
    for (int side = 0; side < 2; ++side)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < (D == 3 ? n : 1); ++j) {
          BoundaryNode<D> b;
          const int u = (axis + 1) % D, v = (axis + 2) % D;
          b.pos[axis] = side;
          b.pos[u] = (i + 0.5) / n;
          if constexpr (D == 3) b.pos[v] = (j + 0.5) / n;
          b.normal = Vec<D>::Zero();
          b.normal[axis] = side ? 1.0 : -1.0;
          b.boundary_id = 2 * axis + side + 1;
          out.push_back(b);
        }
  return out;
}

// CPU seconds of the whole process (all threads): on a loaded shared machine, nodes per CPU second
// is the steadier figure of the algorithm's cost; wall-clock nodes/s is what a user sees.
double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

struct Args {
  int dim = 2;
  double nodes = 1e6;
  int threads = 1;
  Backend backend = Backend::vm;
  std::uint64_t seed = 1;
  bool prefault = false, huge_pages = false, quality = true, nodes_given = false, independent = false;
  bool space_rule = false;  // --space-rule: the items as the space rule lets them, no rounds
  bool seams = false;  // --seams: a second line comparing nodes near tile borders with the rest (seams.hpp)
  std::string domain_file;
  std::string phase_log;  // --phase-log FILE.csv: every round's item, completion and hand-over seconds
};

PhaseLog phase_log;  // recorded when --phase-log is given

// One line per item, per completion step and per round's hand-over: phase,kind,seconds (kind: item,
// completion or handover), and for an item that expanded a tile, the round's generation, the tile's
// level and its cell (lo and hi, x y z). The scaling model (bench/fill/fill_scaling_model.py) replays
// them on P threads, the dataflow model (fill_dataflow_model.py) with the tiles' dependencies.
void write_phase_log(const std::string& path) {
  if (path.empty()) return;
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + path);
  std::fprintf(f, "phase,kind,seconds,generation,level,x0,y0,z0,x1,y1,z1\n");
  for (std::size_t p = 0; p < phase_log.item_seconds.size(); ++p) {
    for (std::size_t i = 0; i < phase_log.item_seconds[p].size(); ++i) {
      std::fprintf(f, "%zu,item,%.9g", p, phase_log.item_seconds[p][i]);
      const PhaseLog::ItemTile& t = phase_log.item_tiles[p][i];
      if (t.tile)
        std::fprintf(f, ",%llu,%d,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g", static_cast<unsigned long long>(phase_log.generations[p]),
                     t.level, t.lo[0], t.lo[1], t.lo[2], t.hi[0], t.hi[1], t.hi[2]);
      std::fprintf(f, "\n");
    }
    if (p < phase_log.completion_seconds.size()) std::fprintf(f, "%zu,completion,%.9g\n", p, phase_log.completion_seconds[p]);
    if (p < phase_log.handover_seconds.size()) std::fprintf(f, "%zu,handover,%.9g\n", p, phase_log.handover_seconds[p]);
  }
  if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
}

// Constant h giving about `nodes` nodes in a domain of this measure at PNP's packing density.
template <int D>
double spacing_for(double nodes, double measure) {
  return D == 2 ? std::sqrt(0.70 * 4.0 * measure / (std::numbers::pi * nodes))
                : std::cbrt(0.45 * 6.0 * measure / (std::numbers::pi * nodes));
}

FillOptions fill_options(const Args& a) {
  FillOptions options;
  options.threads = a.threads;
  options.backend = a.backend;
  options.prefault = a.prefault;
  options.huge_pages = a.huge_pages;
  if (!a.phase_log.empty()) options.phase_log = &phase_log;
  options.space_rule = a.space_rule;
  return options;
}

// FNV-1a of the positions' bytes: the same nodes give the same value (fills compared by their line).
template <int D>
unsigned long long positions_fnv(const Discretization<D>& d) {
  std::uint64_t h = 1469598103934665603ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(d.positions.data());
  for (std::size_t i = 0; i < d.positions.size() * sizeof(d.positions[0]); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return static_cast<unsigned long long>(h);
}

// The line every configuration prints: speed, memory and (optionally) quality of one fill.
template <int D, class Contains, class HAt>
void report(const Args& a, const std::string& domain_name, const Discretization<D>& d, double cpu, double rss_before,
            double rss_peak, const Box<D>& box, Contains&& contains, HAt&& h_at) {
  const double n = static_cast<double>(d.positions.size());
  std::printf("domain=%s dim=%d backend=%s threads=%d nodes=%zu boundary=%zu seconds=%.3f boundary_s=%.3f nodes_per_s=%.4g "
              "cpu_s=%.3f nodes_per_cpu_s=%.4g peak_rss_per_node=%.1f fill_rss_per_node=%.1f phases=%zu tile_runs=%zu "
              "largest_tile_run=%zu early_hand_overs=%zu nodes_fnv=%016llx",
              domain_name.c_str(), D, backend_name(a.backend), a.threads, d.positions.size(), d.boundary_count,
              d.fill_seconds, d.boundary_seconds, n / d.fill_seconds, cpu, n / cpu, rss_peak / n, (rss_peak - rss_before) / n,
              d.phases, d.tile_runs, d.largest_tile_run, d.early_hand_overs, positions_fnv(d));
  if (a.quality) {
    io::NodeArrays arrays;
    arrays.dim = D;
    arrays.positions.resize(d.positions.size() * D);
    std::memcpy(arrays.positions.data(), d.positions.data(), arrays.positions.size() * sizeof(double));
    arrays.types.assign(d.types.begin(), d.types.end());
    arrays.bmap.assign(d.bmap.begin(), d.bmap.end());
    arrays.h.resize(d.positions.size());
    for (std::size_t i = 0; i < d.positions.size(); ++i) arrays.h[i] = h_at(d.positions[i]);
    io::QualityDomain<D> qd{contains, box, 1.0, {}};
    io::QualityOptions qo;
    qo.samples = 1'000'000;
    qo.threads = 2;
    const auto q = io::quality_report<D>(arrays, &qd, qo);
    std::printf(" nn_min=%.4f nn_mean=%.4f nn_max=%.4f density=%.4f holes_mean=%.4f holes_p999=%.4f holes_max=%.4f",
                q.nn_over_h.min, q.nn_over_h.mean, q.nn_over_h.max, q.packing_density, q.holes.mean, q.holes.p999,
                q.holes.max);
  }
  if (phase_log.lock_items)
    std::printf(" lock_us_per_item=%.3f", 1e6 * phase_log.lock_seconds / static_cast<double>(phase_log.lock_items));
  std::printf("\n");
  if (a.seams) bench::print_seams<D>(d, box, contains, h_at);
  write_phase_log(a.phase_log);
}

template <int D>
int run_file(const Args& a, DomainFile file) {
  const auto& domain = *std::get<std::shared_ptr<const Domain<D>>>(file.domain);
  if (a.nodes_given) {
    file.spacing = Spacing::constant(spacing_for<D>(a.nodes, domain.measure()));
    file.expected_nodes = static_cast<double>(a.nodes);  // the fill reserves room by it
  }
  file.fill.seed = a.seed;
  file.fill.max_nodes = std::max<std::size_t>(file.fill.max_nodes, static_cast<std::size_t>(a.nodes * 4));
  const double rss_before = peak_rss_bytes();
  const double cpu_before = cpu_seconds();
  const auto any = fill_domain(file, fill_options(a));
  const double cpu = cpu_seconds() - cpu_before;
  const double rss_peak = peak_rss_bytes();
  const auto& d = std::get<Discretization<D>>(any);
  auto h = file.spacing.evaluator();
  report<D>(a, file.path.stem().string(), d, cpu, rss_before, rss_peak, domain.bounding_box(),
            [&](const Vec<D>& p) { return domain.contains(p); }, [&](const Vec<D>& p) { return h(p); });
  return 0;
}

// --independent: a.threads single-thread fills at once (see the header). Prints one line; seconds is
// the wall time until the last fill finished and nodes the sum of theirs.
template <int D, class DomainT>
int run_independent(const Args& a, const std::string& name, const DomainT& domain, const Spacing& spacing,
                    const std::vector<BoundaryNode<D>>& boundary, const FillParams& params) {
  Args one = a;
  one.threads = 1;
  std::vector<std::size_t> nodes(static_cast<std::size_t>(a.threads));
  const double cpu_before = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  run_team(a.threads, [&](int tid, int) {
    nodes[static_cast<std::size_t>(tid)] =
        pnp_fill_on<D>(a.backend, domain, spacing, boundary, params, fill_options(one)).positions.size();
  });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu_before;
  double total = 0;
  for (std::size_t n : nodes) total += static_cast<double>(n);
  std::printf("domain=%s dim=%d backend=%s threads=%d mode=independent nodes=%.0f seconds=%.3f nodes_per_s=%.4g "
              "cpu_s=%.3f nodes_per_cpu_s=%.4g\n",
              name.c_str(), D, backend_name(a.backend), a.threads, total, seconds, total / seconds, cpu, total / cpu);
  return 0;
}

template <int D>
int run(const Args& a) {
  const double h = spacing_for<D>(a.nodes, 1.0);
  const UnitBox<D> domain;
  const Spacing spacing = Spacing::constant(h);
  FillParams params = FillParams::defaults_for(D);
  params.seed = a.seed;
  params.max_nodes = static_cast<std::size_t>(a.nodes * 4);
  auto boundary = unit_box_boundary<D>(h);
  const double rss_before = peak_rss_bytes();
  const double cpu_before = cpu_seconds();
  const std::string name = D == 2 ? "unit_square" : "unit_cube";
  if (a.independent) return run_independent<D>(a, name, domain, spacing, boundary, params);
  const auto d = pnp_fill_on<D>(a.backend, domain, spacing, boundary, params, fill_options(a));
  const double cpu = cpu_seconds() - cpu_before;
  const double rss_peak = peak_rss_bytes();
  report<D>(a, name, d, cpu, rss_before, rss_peak, domain.box,
            [&](const Vec<D>& p) { return domain.contains(p); }, [&](const Vec<D>&) { return h; });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fill: %s needs a value\n", arg.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (arg == "--dim") a.dim = std::stoi(value());
    else if (arg == "--nodes") a.nodes = std::stod(value()), a.nodes_given = true;
    else if (arg == "--domain") a.domain_file = value();
    else if (arg == "--threads") a.threads = std::stoi(value());
    else if (arg == "--backend") a.backend = parse_backend(value());
    else if (arg == "--seed") a.seed = std::stoull(value());
    else if (arg == "--prefault") a.prefault = true;
    else if (arg == "--huge-pages") a.huge_pages = true;
    else if (arg == "--no-quality") a.quality = false;
    else if (arg == "--independent") a.independent = true;
    else if (arg == "--phase-log") a.phase_log = value();
    else if (arg == "--seams") a.seams = true;
    else if (arg == "--space-rule") a.space_rule = true;
    else {
      std::fprintf(stderr, "usage: fill [--dim 2|3] [--nodes N] [--threads T] [--backend vm|vector|suballoc] "
                           "[--seed S] [--prefault] [--huge-pages] [--no-quality] [--domain FILE.json] [--independent] "
                           "[--phase-log FILE.csv] [--seams] [--space-rule]\n");
      return 2;
    }
  }
  try {
    if (a.independent && !a.domain_file.empty()) {
      std::fprintf(stderr, "fill: --independent runs on the unit box only, not with --domain\n");
      return 2;
    }
    if (!a.domain_file.empty()) {
      DomainFile file = load_domain_file(a.domain_file);
      return file.dim == 3 ? run_file<3>(a, std::move(file)) : run_file<2>(a, std::move(file));
    }
    return a.dim == 3 ? run<3>(a) : run<2>(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fill: %s\n", e.what());
    return 1;
  }
}
