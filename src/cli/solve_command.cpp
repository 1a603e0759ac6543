#include "solve_command.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <variant>

#include "nodegen/input/domain_file.hpp"
#include "nodegen/input/stored_nodes.hpp"
#include "nodegen/geometry/input_error.hpp"
#include "nodegen/geometry/input_file.hpp"
#include "nodegen/io/hdf5_reader.hpp"
#include "nodegen/io/point_fields.hpp"
#include "nodegen/solve/filled_nodes.hpp"

namespace nodegen::cli {

namespace fs = std::filesystem;

bool is_hdf5(const fs::path& file) {
  // A FIFO would block the open below, a directory or device would be read as something else: refused
  // by type first, as every input is (geometry/input_file.hpp).
  try {
    check_input_file(file, std::numeric_limits<std::uintmax_t>::max(), "input files");
  } catch (const InputFileError& e) {
    throw InputError(file.string(), "(file)", e.missing() ? "file not found" : e.what());
  }
  // HDF5's signature is at offset 0, or at 512, 1024, 2048, ... after a user block (h5py's userblock_size,
  // h5jam): such a file was read as JSON.
  std::ifstream in(file, std::ios::binary);
  const std::string hdf5("\x89HDF\r\n\x1a\n", 8);
  const std::uintmax_t size = fs::file_size(file);
  for (std::uintmax_t at = 0; at + hdf5.size() <= size; at = at == 0 ? 512 : 2 * at) {
    char signature[8] = {};
    in.seekg(static_cast<std::streamoff>(at));
    in.read(signature, sizeof signature);
    if (!in) return false;
    if (std::string(signature, sizeof signature) == hdf5) return true;
  }
  return false;
}

namespace {

// The file's boundary part names (element k-1 names id k), once its nodes pass the checks stats makes
// of them (input/stored_nodes.hpp); a file without names (written by another program) names its parts
// by their ids, "1", "2", ...
std::vector<std::string> checked_part_names(const io::StoredDiscretization& stored, const fs::path& file) {
  std::vector<std::string> names = stored_part_names(file, stored.metadata);
  check_stored_nodes(file, stored.nodes, names);
  if (!names.empty()) return names;
  std::int64_t most = 0;
  for (std::int32_t t : stored.nodes.types) most = std::max(most, -static_cast<std::int64_t>(t));
  for (std::int64_t id = 1; id <= most; ++id) names.push_back(std::to_string(id));
  return names;
}

std::vector<int> neumann_ids(const std::vector<std::string>& wanted, const std::vector<std::string>& names) {
  std::vector<int> ids;
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    // The option splits its value at commas, and a part's name may hold some (a shape named "a,b"): a
    // piece that names no part is joined with the pieces after it until the whole names one.
    const std::string& name = wanted[i];
    auto it = std::find(names.begin(), names.end(), name);
    std::string joined = name;
    for (std::size_t j = i + 1; it == names.end() && j < wanted.size(); ++j) {
      joined += "," + wanted[j];
      it = std::find(names.begin(), names.end(), joined);
      if (it != names.end()) i = j;
    }
    if (it == names.end()) {
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + shown(n);
      throw InputError("--neumann", "value", "no boundary part named \"" + shown(name) + "\" (the parts: " + known + ")");
    }
    ids.push_back(static_cast<int>(it - names.begin()) + 1);
  }
  return ids;
}

io::NodeArrays fill_nodes(const DomainFile& domain, std::uint64_t seed) {
  try {
    return solve::filled_nodes(domain, seed);
  } catch (const StoreFull& e) {
    throw InputError(domain.path.string(), "fill.max_nodes", e.what());
  }
}

std::string where(const solve::PoissonResult& r, int dim, const std::vector<std::string>& names) {
  char buf[160];
  if (dim == 2) std::snprintf(buf, sizeof buf, "(%.4f, %.4f)", r.max_position[0], r.max_position[1]);
  else std::snprintf(buf, sizeof buf, "(%.4f, %.4f, %.4f)", r.max_position[0], r.max_position[1], r.max_position[2]);
  std::string out = buf;
  if (r.max_type > 0) {
    std::snprintf(buf, sizeof buf, " interior, %.2f h from the boundary", r.max_wall_distance_over_h);
    return out + buf;
  }
  const auto id = static_cast<std::size_t>(-r.max_type);
  return out + " on " + (id >= 1 && id <= names.size() ? printable(names[id - 1]) : "boundary " + std::to_string(id));
}

const char* solver_name(solve::LinearSolver s) { return s == solve::LinearSolver::sparse_lu ? "sparse LU" : "BiCGSTAB+ILUT"; }

nlohmann::json result_json(const solve::PoissonResult& r, int dim, const std::vector<std::string>& names) {
  std::vector<double> at(r.max_position.begin(), r.max_position.begin() + dim);
  return {{"max_error", r.max_error},        {"relative_l2_error", r.relative_l2_error},
          {"max_at", at},                    {"max_where", where(r, dim, names)},
          {"unknowns", r.unknowns},          {"ghost_nodes", r.ghost_count},
          {"solver", solver_name(r.solver)}, {"iterations", r.iterations},      {"assembly_seconds", r.assembly_seconds},
          {"solve_seconds", r.solve_seconds}};
}

// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

struct Spread {
  double median, p90, worst;
  std::size_t above_5x;
};

Spread spread(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t m = values.size();
  const double median = m % 2 ? values[m / 2] : 0.5 * (values[m / 2 - 1] + values[m / 2]);
  const auto above = static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [&](double v) { return v > 5 * median; }));
  return {median, percentile(values, 90), values.back(), above};
}

}  // namespace

std::pair<std::uint64_t, std::uint64_t> parse_seed_range(const std::string& text) {
  const auto refuse = [&](const std::string& why) {
    throw InputError("--seeds", "value", "expected A-B, whole numbers from 0 to " + std::to_string(FillParams::kMaxSeed) +
                                             " with A <= B and at most " + std::to_string(kMaxSeedCount) +
                                             " seeds (run several ranges for more)" + why + ", got \"" + shown(text) + "\"");
  };
  auto whole = [&](const std::string& part) {
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) refuse("");
    if (ec != std::errc() || end != part.data() + part.size() || value > FillParams::kMaxSeed)
      refuse(": " + part + " is beyond the largest seed");
    return value;
  };
  const auto dash = text.find('-');
  const std::uint64_t a = whole(text.substr(0, dash));
  const std::uint64_t b = dash == std::string::npos ? a : whole(text.substr(dash + 1));
  if (b < a) refuse(": A is above B");
  if (b - a >= kMaxSeedCount) refuse(": that is " + std::to_string(b - a + 1) + " seeds");
  return {a, b};
}

namespace {

// An input without HDF5's signature, to be read as a domain file: one above a domain file's size limit
// is named as neither kind solve reads (most likely an output that is not one), not as a domain file
// alone. Returns `file`.
const fs::path& domain_file_of(const fs::path& file) {
  try {
    check_input_file(file, InputFileLimits::kDomainFileBytes, "domain files (JSON)");
  } catch (const InputFileError& e) {
    throw InputError(file.string(), "(file)", std::string("not an HDF5 file (no HDF5 signature at its start or after a "
                                                          "user block), and as a domain file it ") + e.what());
  }
  return file;
}

// --error-out: the nodes' positions with the error and h at each, in the layout spacing samples read.
void write_errors(const SolveArgs& args, const io::NodeArrays& nodes, const solve::PoissonResult& r) {
  if (!args.error_out) return;
  std::vector<std::pair<std::string, std::span<const double>>> fields = {{"error", r.node_errors},
                                                                        {"residual", r.node_residuals}};
  if (nodes.h.size() == nodes.node_count()) fields.push_back({"h", nodes.h});
  io::write_point_fields(*args.error_out, nodes.dim, nodes.positions, fields);
}

}  // namespace

int solve_command(const SolveArgs& args) {
  const std::string file = args.input.string();
  solve::PoissonOptions options = args.options;

  if (is_hdf5(args.input)) {
    if (args.seeds) throw InputError("--seeds", "value", "needs a domain file (JSON), not an HDF5 file");
    const io::StoredDiscretization stored = io::read_hdf5(args.input);
    const std::vector<std::string> names = checked_part_names(stored, args.input);
    options.neumann_ids = neumann_ids(args.neumann, names);
    const solve::PoissonResult r = solve::solve_poisson(stored.nodes, options, file);
    write_errors(args, stored.nodes, r);
    if (args.json) {
      nlohmann::json out = result_json(r, stored.nodes.dim, names);
      out["file"] = file;
      out["nodes"] = stored.nodes.node_count();
      std::printf("%s\n", out.dump(2).c_str());
      return 0;
    }
    std::printf("file        %s (%zu nodes, %dD), %s\n", file.c_str(), stored.nodes.node_count(), stored.nodes.dim,
                solver_name(r.solver));
    std::printf("max error   %.3e at %s\n", r.max_error, where(r, stored.nodes.dim, names).c_str());
    std::printf("rel L2      %.3e\n", r.relative_l2_error);
    return 0;
  }

  if (args.error_out && args.seeds && args.seeds->first != args.seeds->second)
    throw InputError("--error-out", "value", "writes the errors of one solve: give one seed, not a range");
  const DomainFile domain = load_domain_file(domain_file_of(args.input));
  const std::vector<std::string> names =
      std::visit([](const auto& d) { return d->boundary_names(); }, domain.domain);
  options.neumann_ids = neumann_ids(args.neumann, names);
  const auto [first, last] = args.seeds ? *args.seeds : std::pair{domain.fill.seed, domain.fill.seed};

  std::vector<double> max_errors, l2_errors;
  nlohmann::json runs = nlohmann::json::array();
  for (std::uint64_t seed = first;; ++seed) {
    const io::NodeArrays nodes = fill_nodes(domain, seed);
    const solve::PoissonResult r = solve::solve_poisson(nodes, options, file);
    write_errors(args, nodes, r);
    max_errors.push_back(r.max_error);
    l2_errors.push_back(r.relative_l2_error);
    if (args.json) {
      nlohmann::json run = result_json(r, nodes.dim, names);
      run["seed"] = seed;
      run["nodes"] = nodes.node_count();
      runs.push_back(run);
    } else {
      std::printf("seed %-6llu nodes %zu  max %.3e  rel L2 %.3e  max at %s\n", static_cast<unsigned long long>(seed),
                  nodes.node_count(), r.max_error, r.relative_l2_error, where(r, nodes.dim, names).c_str());
      std::fflush(stdout);
    }
    if (seed == last) break;
  }
  if (max_errors.size() == 1 && !args.json) return 0;

  const Spread m = spread(max_errors), l = spread(l2_errors);
  if (args.json) {
    auto js = [](const Spread& s) {
      return nlohmann::json{{"median", s.median}, {"p90", s.p90}, {"worst", s.worst}, {"above_5x_median", s.above_5x}};
    };
    const nlohmann::json out = {{"domain", file}, {"seeds", {first, last}}, {"runs", runs},
                                {"max_error", js(m)}, {"relative_l2_error", js(l)}};
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%zu seeds      median     p90        worst      above 5x median\n", max_errors.size());
  std::printf("max error    %.3e  %.3e  %.3e  %zu\n", m.median, m.p90, m.worst, m.above_5x);
  std::printf("rel L2       %.3e  %.3e  %.3e  %zu\n", l.median, l.p90, l.worst, l.above_5x);
  return 0;
}

}  // namespace nodegen::cli
