#pragma once
// nodegen in a program: load a domain, fill it with nodes at a spacing h(x), and get the arrays back,
// in the same process (the library the `nodegen` command is built on; docs/cpp-api.md).
//
//   find_package(nodegen CONFIG REQUIRED)              # CMakeLists.txt
//   target_link_libraries(solver PRIVATE nodegen::nodegen)
//
//   #include <nodegen/nodegen.hpp>
//   auto domain = nodegen::load_domain("part.json");
//   nodegen::Options opt;
//   opt.threads = 8;
//   opt.supports = 30;
//   auto nodes = nodegen::discretize<3>(domain, [](const nodegen::Point<3>& x) { return 0.01 + 0.05 * x.norm(); }, opt);
//   for (std::size_t i = 0; i < nodes.size(); ++i)
//     if (nodes.types()[i] < 0) use(nodes.positions()[i], nodes.normal(i), nodes.part_name(i));
//   nodes.write("part.h5");                            // the command's output: Medusa's layout, .xdmf beside
//
// The nodes are the command's (`nodegen run` on the same domain file, spacing and seed gives the same
// bytes, nodes_sha256 included) and the same at any thread count, with every spacing below; a spacing
// function must therefore depend on the point alone and be safe to call from many threads at once.
//
// Errors: every problem with the input (a malformed domain file, a spacing that is not positive or asks
// for more nodes than the cap, a wrong dimension) throws nodegen::Error whose what() is the one line
// the command prints, "FILE: FIELD: REASON". An exception thrown by a spacing function ends the fill and
// is rethrown as it was.
//
// This header needs Eigen alone: the geometry kernels (CGAL), the expression parser and HDF5 stay
// inside the library.
#include <Eigen/Core>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace nodegen {

template <int D>
using Point = Eigen::Matrix<double, D, 1>;

// The one-line error of a bad input: "FILE: FIELD: REASON".
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A fill ended early by Options::stop.
class Stopped : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace api_detail {
struct LoadedDomain;
template <int D>
struct FilledNodes;
}  // namespace api_detail

// A domain as a domain file describes it (docs/domain-format.md): the shape, its boundary parts, the
// spacing and the fill's parameters. Cheap to copy (copies share it); safe to discretize from several
// threads at once.
class DomainSpec {
 public:
  int dim() const;
  // The boundary parts' names; boundary id k is part_names()[k - 1].
  std::vector<std::string> part_names() const;
  // The file's spacing as text ("0.01", its expression, "samples FILE:DATASET").
  std::string spacing() const;
  const std::filesystem::path& path() const;

  explicit DomainSpec(std::shared_ptr<const api_detail::LoadedDomain> loaded) : loaded_(std::move(loaded)) {}
  const api_detail::LoadedDomain& loaded() const { return *loaded_; }

 private:
  std::shared_ptr<const api_detail::LoadedDomain> loaded_;
};

// Reads a domain file; relative paths inside it (meshes, sample files) are resolved against its folder.
DomainSpec load_domain(const std::filesystem::path& file);
// The same from JSON text in memory; `path` names it in errors and its folder resolves relative paths
// (it need not exist).
DomainSpec parse_domain(const std::string& json_text, const std::filesystem::path& path = "domain.json");

// A spacing interpolated from values at scattered points (an error indicator's h at a previous run's
// nodes, say), as the domain file's {"samples": ...} spacing: linear over the samples' Delaunay
// triangulation, inverse-distance weighted outside their hull (docs/domain-format.md, "Spacing from
// samples").
struct Samples {
  int dim = 2;
  std::vector<double> positions;  // dim values per sample, interleaved (x0 y0 [z0] x1 ...)
  std::vector<double> values;     // one positive h per sample
  double scale = 1.0;             // multiplies every value
  double min = 0.0;               // then each value is clamped to [min, max]
  double max = std::numeric_limits<double>::infinity();
  double grading = 0.0;           // > 0: h grows by at most this per unit of distance from the samples
};

// What a run does besides the spacing; unset fields take the domain file's values.
struct Options {
  int threads = 0;                          // worker threads; 0: one per core the process may use
  std::optional<std::uint64_t> seed;        // the domain file's fill.seed (1 when it has none)
  std::optional<std::size_t> nodes;         // a node count to land within 2 % of, by scaling the spacing
  std::optional<std::size_t> max_nodes;     // the node cap (fill.max_nodes, 1e8 by default)
  int supports = 0;                         // k nearest nodes of every node (itself first); 0: none
  bool boundary_only = false;               // the boundary nodes and normals alone, no interior
  std::string backend = "vm";               // the node store: "vm", "vector" or "suballoc"
  // Set to true (from another thread, a signal handler) to end the fill at its threads' next tile:
  // discretize then throws Stopped. Null: never.
  const std::atomic<bool>* stop = nullptr;
};

// The nodes of one discretization, in Medusa's conventions: boundary nodes first (rows
// 0 .. boundary_count() - 1), then the interior ones. Cheap to copy (copies share the arrays).
template <int D>
class Nodes {
 public:
  std::size_t size() const;
  std::size_t boundary_count() const;
  std::span<const Point<D>> positions() const;
  // > 0 inside; -k on boundary part k (part_names()[k - 1]).
  std::span<const std::int32_t> types() const;
  // Row of a boundary node's normal in boundary_normals(); -1 inside.
  std::span<const std::int32_t> bmap() const;
  // The outward unit normals of the boundary nodes, in their rows.
  std::span<const Point<D>> boundary_normals() const;
  // Node i's outward unit normal; zero inside.
  Point<D> normal(std::size_t i) const;
  // The spacing at every node (the scaled spacing when Options::nodes set the count).
  std::span<const double> h() const;
  const std::vector<std::string>& part_names() const;
  // The part name of node i ("" inside).
  const std::string& part_name(std::size_t i) const;
  // Options::supports nearest nodes of every node (itself first, then by distance, ties by row):
  // supports()[i * support_size() + j]. Empty when none were asked for.
  int support_size() const;
  std::span<const std::int64_t> supports() const;
  // The factor the spacing was scaled by to meet Options::nodes (1 without a target).
  double spacing_factor() const;
  double fill_seconds() const;
  // SHA-256 naming the nodes (docs/output-format.md), as `nodegen run` prints it.
  std::string nodes_sha256() const;
  // The figures `nodegen stats --json` prints of these nodes, as JSON text (counts, nearest-neighbour
  // distance / h, packing density, holes, nodes per part), and "warnings": why any are missing.
  std::string stats_json() const;
  // FILE.h5 in Medusa's layout and FILE.xdmf beside it, as `nodegen run -o FILE.h5` writes them
  // (/domain/supports too when there are supports); both appear complete or not at all.
  void write(const std::filesystem::path& h5_file) const;

  explicit Nodes(std::shared_ptr<const api_detail::FilledNodes<D>> filled) : filled_(std::move(filled)) {}
  const api_detail::FilledNodes<D>& filled() const { return *filled_; }

 private:
  std::shared_ptr<const api_detail::FilledNodes<D>> filled_;
};

template <int D>
using SpacingFunction = std::function<double(const Point<D>&)>;

// A spacing function that takes many points in one call, h(x, out) writing h at x[i] into out[i]: for
// a function whose call costs far more than its arithmetic (one that calls into Python or a GPU). The
// fill hands it the nodes one tile placed in one phase together, the domain check its sample points
// together, the rest (the boundary's placement) one point a call. Its values must depend on each point
// alone, not on the others in the call, and it must be safe to call from many threads at once.
template <int D>
struct BatchSpacing {
  std::function<void(std::span<const Point<D>> x, std::span<double> out)> h;
};

// Fills the domain at the domain file's spacing, a constant h, an expression in x, y, z (and
// dist("PART")), samples, or a function. Throws Error for a domain of another dimension than D.
template <int D>
Nodes<D> discretize(const DomainSpec& domain, const Options& options = {});
template <int D>
Nodes<D> discretize(const DomainSpec& domain, double h, const Options& options = {});
template <int D>
Nodes<D> discretize(const DomainSpec& domain, const std::string& expression, const Options& options = {});
template <int D>
Nodes<D> discretize(const DomainSpec& domain, const Samples& samples, const Options& options = {});
template <int D>
Nodes<D> discretize(const DomainSpec& domain, SpacingFunction<D> h, const Options& options = {});
template <int D>
Nodes<D> discretize(const DomainSpec& domain, BatchSpacing<D> h, const Options& options = {});

// A file that `nodegen run` or Nodes::write made (or Medusa's DomainDiscretization::save), read back
// with h, part names and spacing factor from the file; Error for a file of the other dimension.
template <int D>
Nodes<D> read_nodes(const std::filesystem::path& h5_file);
// The same for a file of either dimension.
std::variant<Nodes<2>, Nodes<3>> read_any_nodes(const std::filesystem::path& h5_file);

#define NODEGEN_API_DIMENSION(D)                                                                        \
  extern template class Nodes<D>;                                                                      \
  extern template Nodes<D> discretize<D>(const DomainSpec&, const Options&);                           \
  extern template Nodes<D> discretize<D>(const DomainSpec&, double, const Options&);                   \
  extern template Nodes<D> discretize<D>(const DomainSpec&, const std::string&, const Options&);       \
  extern template Nodes<D> discretize<D>(const DomainSpec&, const Samples&, const Options&);            \
  extern template Nodes<D> discretize<D>(const DomainSpec&, SpacingFunction<D>, const Options&);        \
  extern template Nodes<D> discretize<D>(const DomainSpec&, BatchSpacing<D>, const Options&);           \
  extern template Nodes<D> read_nodes<D>(const std::filesystem::path&);
NODEGEN_API_DIMENSION(2)
NODEGEN_API_DIMENSION(3)
#undef NODEGEN_API_DIMENSION

}  // namespace nodegen
