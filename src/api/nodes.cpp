// The nodes of the in-process API (nodegen.hpp): completing a fill (h, supports, metadata), the
// accessors, writing them as the command does, and reading an output back.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <string>

#include "api/filled_nodes.hpp"
#include "nodegen/fill/backend.hpp"
#include "nodegen/input/node_report.hpp"
#include "nodegen/io/fingerprint.hpp"
#include "nodegen/io/hdf5_reader.hpp"
#include "nodegen/io/output.hpp"
#include "nodegen/parallel/cpu_affinity.hpp"
#include "nodegen/parallel/thread_team.hpp"
#include "nodegen/spatial/nearest_supports.hpp"

namespace nodegen {
namespace api_detail {
namespace {

template <int D>
std::span<const double> flat(const std::vector<Vec<D>>& v) {
  static_assert(sizeof(Vec<D>) == D * sizeof(double), "Vec<D> must be D packed doubles");
  return {v.empty() ? nullptr : v.front().data(), v.size() * D};
}

// The attributes of /domain the command writes, with the API's values: no domain file on disk when the
// domain came from text, the API as the command.
template <int D>
io::RunMetadata metadata_of(const FilledNodes<D>& out, const DomainFile& file, const FillOptions& fill) {
  return {
      {"nodegen_version", std::string(NODEGEN_VERSION)},
      {"created_utc", io::utc_timestamp()},
      {"domain_file", std::filesystem::absolute(file.path).lexically_normal().string()},
      {"domain_file_text", file.text},
      {"dim", std::int64_t{D}},
      {"spacing", file.spacing.describe()},
      {"spacing_factor", out.spacing_factor},
      {"seed", static_cast<std::int64_t>(file.fill.seed)},
      {"candidates", std::int64_t{file.fill.candidates}},
      {"max_nodes", static_cast<std::int64_t>(file.fill.max_nodes)},
      {"threads", std::int64_t{fill.threads}},
      {"supports", std::int64_t{out.support_size}},
      {"backend", std::string(backend_name(fill.backend))},
      {"boundary_nodes", static_cast<std::int64_t>(out.nodes.boundary_count)},
      {"boundary_names", nlohmann::json(out.part_names).dump()},
      {"fill_seconds", out.nodes.fill_seconds},
      {"boundary_seconds", out.nodes.boundary_seconds},
      {"made_by", std::string("the C++ library (nodegen::discretize)")},
  };
}

}  // namespace

template <int D>
io::NodeArraysView FilledNodes<D>::view() const {
  io::NodeArraysView v;
  v.dim = D;
  v.positions = flat<D>(nodes.positions);
  v.types = nodes.types;
  v.bmap = nodes.bmap;
  v.normals = flat<D>(nodes.normals);
  v.supports = supports;
  v.support_size = static_cast<std::size_t>(support_size);
  const std::vector<double>* values = &h;
  v.spacing_at = [values](std::size_t first, std::span<double> out) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = first + i < values->size() ? (*values)[first + i] : 0.0;
  };
  return v;
}

template <int D>
void complete(FilledNodes<D>& out, const DomainFile& file, const FillOptions& fill, int supports) {
  const auto& positions = out.nodes.positions;
  out.h.resize(positions.size());
  std::vector<Spacing::Evaluator> evaluators = file.spacing.evaluators(fill.threads);
  parallel_ranges(positions.size(), fill.threads, [&](int t, std::size_t begin, std::size_t end) {
    evaluators[static_cast<std::size_t>(t)].at_many(std::span<const Vec<D>>(positions).subspan(begin, end - begin),
                                                    std::span<double>(out.h).subspan(begin, end - begin));
  });
  out.part_names = std::visit([](const auto& d) { return d->boundary_names(); }, file.domain);
  if (supports > 0) {
    if (static_cast<std::size_t>(supports) > positions.size())
      throw Error(InputError(file.path.string(), "supports",
                             std::to_string(supports) + " nearest nodes asked for, of " +
                                 std::to_string(positions.size()) + " nodes")
                      .what());
    out.supports = nearest_supports<D>(positions, supports, fill.threads);
    out.support_size = supports;
  }
  out.metadata = metadata_of(out, file, fill);
}

template void complete<2>(FilledNodes<2>&, const DomainFile&, const FillOptions&, int);
template void complete<3>(FilledNodes<3>&, const DomainFile&, const FillOptions&, int);
template struct FilledNodes<2>;
template struct FilledNodes<3>;

}  // namespace api_detail

template <int D>
std::size_t Nodes<D>::size() const {
  return filled_->nodes.positions.size();
}
template <int D>
std::size_t Nodes<D>::boundary_count() const {
  return filled_->nodes.boundary_count;
}
template <int D>
std::span<const Point<D>> Nodes<D>::positions() const {
  return filled_->nodes.positions;
}
template <int D>
std::span<const std::int32_t> Nodes<D>::types() const {
  return filled_->nodes.types;
}
template <int D>
std::span<const std::int32_t> Nodes<D>::bmap() const {
  return filled_->nodes.bmap;
}
template <int D>
std::span<const Point<D>> Nodes<D>::boundary_normals() const {
  return filled_->nodes.normals;
}
template <int D>
Point<D> Nodes<D>::normal(std::size_t i) const {
  const std::int32_t row = filled_->nodes.bmap[i];
  return row < 0 ? Point<D>::Zero().eval() : filled_->nodes.normals[static_cast<std::size_t>(row)];
}
template <int D>
std::span<const double> Nodes<D>::h() const {
  return filled_->h;
}
template <int D>
const std::vector<std::string>& Nodes<D>::part_names() const {
  return filled_->part_names;
}
template <int D>
const std::string& Nodes<D>::part_name(std::size_t i) const {
  static const std::string kInside;
  const std::int32_t type = filled_->nodes.types[i];
  const auto k = static_cast<std::size_t>(-static_cast<std::int64_t>(type));
  return type < 0 && k <= filled_->part_names.size() ? filled_->part_names[k - 1] : kInside;
}
template <int D>
int Nodes<D>::support_size() const {
  return filled_->support_size;
}
template <int D>
std::span<const std::int64_t> Nodes<D>::supports() const {
  return filled_->supports;
}
template <int D>
double Nodes<D>::spacing_factor() const {
  return filled_->spacing_factor;
}
template <int D>
double Nodes<D>::fill_seconds() const {
  return filled_->nodes.fill_seconds;
}
template <int D>
std::string Nodes<D>::nodes_sha256() const {
  return io::nodes_sha256(filled_->view(), filled_->h);
}
template <int D>
std::string Nodes<D>::stats_json() const {
  const api_detail::FilledNodes<D>& f = *filled_;
  io::NodeArrays arrays;
  arrays.dim = D;
  const io::NodeArraysView v = f.view();
  arrays.positions.assign(v.positions.begin(), v.positions.end());
  arrays.types.assign(v.types.begin(), v.types.end());
  arrays.bmap.assign(v.bmap.begin(), v.bmap.end());
  arrays.normals.assign(v.normals.begin(), v.normals.end());
  arrays.h = f.h;
  const std::filesystem::path shown = "(nodes in memory)";
  const NodeReport report = api_detail::translating_errors(
      [&] { return node_report(shown, arrays, f.metadata, 0, cpus_allowed()); });
  nlohmann::json out = report.to_json(shown, D);
  out["warnings"] = report.warnings;
  return out.dump();
}

template <int D>
void Nodes<D>::write(const std::filesystem::path& h5_file) const {
  api_detail::translating_errors([&] { io::write_output(h5_file, filled_->view(), filled_->metadata); });
}

template class Nodes<2>;
template class Nodes<3>;

}  // namespace nodegen
