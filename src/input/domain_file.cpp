// Domain file loader: JSON text -> shape tree, spacing and fill parameters (format:
// docs/domain-format.md), every problem one InputError naming the file, the JSON path of the offending
// field and the reason. The fields' readers live with what they read: the shape tree and the spacing
// in geometry (shape_reader.hpp, spacing_reader.hpp), the fill's parameters in fill_fields.hpp.
#include "nodegen/input/domain_file.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <limits>
#include <type_traits>
#include <variant>

#include "input/fill_fields.hpp"
#include "nodegen/input/node_target.hpp"
#include "input/overrides.hpp"
#include "input/sample_spacing_field.hpp"
#include "input/json_text.hpp"
#include "nodegen/geometry/input_file.hpp"
#include "nodegen/geometry/json_fields.hpp"
#include "nodegen/geometry/shape_reader.hpp"
#include "nodegen/geometry/spacing_reader.hpp"
#include "nodegen/geometry/input_error.hpp"

namespace nodegen {
namespace {

using nlohmann::json;

// "dim": 2 or 3, compared as the 64-bit integer the JSON holds (get<int>() narrowed 4294967298 to 2).
int read_dim(const JsonFields& fields, const json& root) {
  fields.only(root, "", {"dim", "spacing", "fill", "shape", "parts"});
  const json& dim = fields.require(root, "", "dim");
  if (!dim.is_number_integer() || (dim.get<std::int64_t>() != 2 && dim.get<std::int64_t>() != 3))
    fields.fail("dim", "must be 2 or 3, got " + dim.dump());
  return static_cast<int>(dim.get<std::int64_t>());
}

// The distances the spacing's dist("NAME") reads, from the domain's parts.
template <int D>
Spacing with_part_distances(const JsonFields& fields, const Spacing& spacing, const Domain<D>& domain,
                            const std::string& field) {
  const std::vector<std::string>& parts = spacing.distance_parts();
  if (parts.empty()) return spacing;
  std::vector<std::shared_ptr<const DistanceField>> distances;
  for (const std::string& name : parts) {
    try {
      distances.push_back(domain.distance_field(name));
    } catch (const std::invalid_argument& e) {
      fields.fail(field, "dist(\"" + shown(name) + "\"): " + e.what());
    }
  }
  return spacing.with_distances(std::move(distances));
}

// The "parts" rules: [{"name": ..., "where": EXPRESSION, "of": PART OR SHAPE}, ...].
template <int D>
std::shared_ptr<const Domain<D>> with_part_rules(const JsonFields& fields, const json& parts,
                                                 std::shared_ptr<const Domain<D>> domain) {
  if (!parts.is_array()) fields.fail("parts", "expected an array of rules, got " + json_type_name(parts));
  std::vector<PartRule> rules;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string at = "parts[" + std::to_string(i) + "]";
    const json& rule = parts[i];
    if (!rule.is_object()) fields.fail(at, "expected a rule {\"name\", \"where\"}, got " + json_type_name(rule));
    fields.only(rule, at, {"where", "of"});
    PartRule r;
    r.name = fields.string(fields.require(rule, at, "name"), at + ".name");
    if (r.name.size() > 256) fields.fail(at + ".name", "is longer than the 256 characters a part's name may have");
    if (rule.contains("of")) r.of = fields.string(rule["of"], at + ".of");
    // Without "where" a rule takes every node of the parts "of" names (that an earlier rule left).
    if (!rule.contains("where") && r.of.empty())
      fields.fail(at, "a rule needs \"where\" (a condition on x, y, z) or \"of\" (a part or shape), or both");
    try {
      r.where = Spacing::expression(rule.contains("where") ? fields.string(rule["where"], at + ".where") : "1");
    } catch (const std::invalid_argument& e) {
      fields.fail(at + ".where", e.what());
    }
    r.where = with_part_distances<D>(JsonFields(fields.file(), fields.dim()), r.where, *domain, at + ".where");
    rules.push_back(std::move(r));
  }
  try {
    return std::make_shared<const Domain<D>>(domain->with_part_rules(std::move(rules)));
  } catch (const std::invalid_argument& e) {
    fields.fail("parts", e.what());
  }
}

// The shape, its part rules, and the spacing checked over it.
template <int D>
void read_domain(const JsonFields& fields, const json& root, DomainFile& out, bool cap_from_cli) {
  ReadShape<D> shape = read_shape<D>(fields, fields.require(root, "", "shape"));
  out.spacing = with_part_distances<D>(fields, out.spacing, *shape.domain, "spacing");
  if (root.contains("parts")) shape.domain = with_part_rules<D>(fields, root["parts"], std::move(shape.domain));
  // With a node count asked for, the spacing as written only shapes h: the fill scales it to the count,
  // which is checked against the cap (node_target.hpp), so the spacing alone may ask for any count.
  const std::size_t cap = out.target_nodes ? std::numeric_limits<std::size_t>::max() : out.fill.max_nodes;
  const NodeEstimate estimate = check_spacing<D>(fields, out.spacing, *shape.domain, cap, cap_from_cli);
  out.expected_nodes = estimate.total();
  out.expected_interior = estimate.interior;
  out.expected_boundary = estimate.boundary;
  out.domain = std::move(shape.domain);
  out.repairs = std::move(shape.repairs);
}

// A number, an expression, or samples from a file (an object).
Spacing read_any_spacing(const JsonFields& fields, const json& spacing, const LoadOptions& options) {
  if (spacing.is_object()) return input_detail::read_sample_spacing(fields, spacing, options.isolate_reads);
  return read_spacing(fields, spacing);
}

// HDF5's signature, at the start of the file or after a user block of 512, 1024, 2048, ... bytes.
bool has_hdf5_signature(const std::string& head) {
  static const std::string signature("\x89HDF\r\n\x1a\n", 8);
  for (std::size_t at = 0; at + signature.size() <= head.size(); at = at == 0 ? 512 : 2 * at)
    if (head.compare(at, signature.size(), signature) == 0) return true;
  return false;
}

// Refuses a file that is plainly another kind than a domain file, by its first bytes or its name.
void refuse_other_kinds(const std::string& head, const std::filesystem::path& path) {
  const std::string file = path.string();
  if (has_hdf5_signature(head))
    throw InputError(file, "(file)", "is an HDF5 file, not a domain file (JSON): nodegen run reads domain files; "
                                     "nodegen stats and nodegen solve read output files");
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == ".stl" || ext == ".obj" || ext == ".off" || ext == ".ply")
    throw InputError(file, "(file)", "is a mesh file, not a domain file (JSON): name it in a domain file's shape, "
                                     "{\"type\": \"mesh\", \"file\": \"" + path.filename().string() + "\"}");
}

// The first bytes of a file, for naming the kind of a regular file too large to read as a domain file:
// outputs and meshes usually are.
std::string head_of(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return head;
}

}  // namespace

DomainFile parse_domain_text(const std::string& text, const std::filesystem::path& path, const LoadOptions& options) {
  refuse_other_kinds(text, path);
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos)
    throw InputError(path.string(), "(file)", "holds a NUL byte at offset " + std::to_string(nul) + ": a domain file is JSON text");
  json root = input_detail::parse_json_text(text, path.string());
  if (!root.is_object())
    throw InputError(path.string(), "(top level)", "expected a JSON object, got " + json_type_name(root));
  DomainFile out;
  out.path = path;
  out.text = text;
  if (!options.overrides.empty()) {
    input_detail::apply_overrides(root, options.overrides);
    out.text = root.dump(2) + "\n";
  }
  out.dim = read_dim(JsonFields(path, 0), root);
  const JsonFields fields(path, out.dim, options.isolate_reads);
  if (root.contains("comment")) out.comment = fields.string(root["comment"], "comment");
  out.spacing = read_any_spacing(fields, fields.require(root, "", "spacing"), options);
  if (root.contains("fill")) {
    input_detail::FillFields fill = input_detail::read_fill_fields(fields, root["fill"]);
    out.fill = fill.params;
    out.target_nodes = fill.nodes;
  } else {
    out.fill = FillParams::defaults_for(out.dim);
  }
  if (options.max_nodes) out.fill.max_nodes = *options.max_nodes;
  check_node_target(out);
  if (out.dim == 2) read_domain<2>(fields, root, out, options.max_nodes.has_value());
  else read_domain<3>(fields, root, out, options.max_nodes.has_value());
  check_node_limit(out);
  out.inputs = fields.inputs();
  return out;
}

DomainFile parse_domain_text(const std::string& text, const std::filesystem::path& path,
                             std::optional<std::size_t> max_nodes) {
  LoadOptions options;
  options.max_nodes = max_nodes;
  return parse_domain_text(text, path, options);
}

DomainFile load_domain_file(const std::filesystem::path& path, const LoadOptions& options) {
  std::string text;
  try {
    text = read_input_file(path, InputFileLimits::kDomainFileBytes, "domain files");
  } catch (const InputFileError& e) {
    // Only a regular file: a FIFO's or a device's open or read may block, and a missing file is missing.
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) refuse_other_kinds(head_of(path), path);
    throw InputError(path.string(), "(file)", e.what());
  }
  return parse_domain_text(text, path, options);
}

DomainFile load_domain_file(const std::filesystem::path& path, std::optional<std::size_t> max_nodes) {
  LoadOptions options;
  options.max_nodes = max_nodes;
  return load_domain_file(path, options);
}

DomainFile with_spacing(const DomainFile& file, Spacing spacing) {
  DomainFile out = file;
  const JsonFields fields(file.path, file.dim);
  std::visit(
      [&](const auto& domain) {
        constexpr int D = std::remove_cvref_t<decltype(*domain)>::kDim;
        out.spacing = with_part_distances<D>(fields, spacing, *domain, "spacing");
        const std::size_t cap = out.target_nodes ? std::numeric_limits<std::size_t>::max() : out.fill.max_nodes;
        const NodeEstimate estimate = check_spacing<D>(fields, out.spacing, *domain, cap, false);
        out.expected_nodes = estimate.total();
        out.expected_interior = estimate.interior;
        out.expected_boundary = estimate.boundary;
      },
      file.domain);
  check_node_limit(out);
  return out;
}

}  // namespace nodegen
